"""Show the library's own source in a chapter, so the page and the package cannot drift apart."""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any


def strip_docstring(source: str) -> str:
    """Remove the docstring of the (first) function or class defined in ``source``."""
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    node = tree.body[0] if tree.body else None
    body = getattr(node, "body", None)
    if not body or not isinstance(body[0], ast.Expr):
        return source
    first = body[0].value
    if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
        return source
    lines = source.splitlines(keepends=True)
    del lines[body[0].lineno - 1 : body[0].end_lineno]
    return "".join(lines)


def show_source(obj: Any, *, docstring: bool = True) -> Any:
    """Display the source of a ``course_lib`` function or class, syntax-highlighted.

    Returns an ``IPython.display.Code`` object (a notebook shows it as highlighted code). With
    ``docstring=False`` the docstring is left out, for a shorter listing.
    """
    try:
        source = inspect.getsource(obj)
    except (TypeError, OSError) as err:
        raise TypeError(
            f"show_source needs a function, class or module, got {type(obj)}"
        ) from err
    if not docstring:
        source = strip_docstring(source)
    from IPython.display import Code

    return Code(textwrap.dedent(source), language="python")

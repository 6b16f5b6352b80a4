import pytest

from course_lib.show import show_source, strip_docstring
from course_lib.training import fit


def test_show_source_is_the_library_code():
    code = show_source(fit)
    assert "def fit(" in code.data and "clip_grad_norm_" in code.data


def test_strip_docstring_removes_only_the_docstring():
    text = strip_docstring('def f(x):\n    """Doc\n    more."""\n    return x\n')
    assert text == "def f(x):\n    return x\n"
    assert "Train ``model``" not in show_source(fit, docstring=False).data


def test_show_source_rejects_builtins():
    with pytest.raises(TypeError, match="show_source"):
        show_source(len)

"""Numbers that a chapter's prose quotes: recorded from the run, never typed in.

``record(chapter, name, value)`` stores the value in ``_build/results/<chapter>.json`` (so later
tools, such as the benchmarks and the closing notes, can read what the book showed) and
*glues* it with myst-nb: the prose writes ``{glue:text}`ch01_svd_variance:.1%``` and the
built page shows the number computed when the book was built.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from course_lib.compare import Comparison
from course_lib.runtime import device, profile, run_offset

# What record() keeps beside the values: the run's profile, device and seed; the names
# recorded as examples (one draw shown, not a finding); each comparison's verdict word.
RUN_KEY = "_run"
EXAMPLES_KEY = "_examples"
VERDICTS_KEY = "_verdicts"


def results_dir() -> Path:
    """Where results go: ``COURSE_RESULTS_DIR``, else ``_build/results`` under the book's root.

    The root is the folder holding ``_config.yml``, searched upwards from the working directory;
    without one, ``_build/results`` under the working directory.
    """
    env = os.environ.get("COURSE_RESULTS_DIR")
    if env:
        return Path(env)
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / "_config.yml").is_file() and (folder / "course_lib").is_dir():
            return folder / "_build" / "results"
    return here / "_build" / "results"


def _plain(value: Any) -> Any:
    """A JSON-ready copy: tensors and NumPy scalars become Python numbers."""
    if isinstance(value, torch.Tensor):
        return value.item() if value.numel() == 1 else value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def record(
    chapter: str, name: str, value: Any, *, glue: bool = True, example: bool = False
) -> None:
    """Save ``value`` under ``name`` for ``chapter`` and glue it for the prose.

    The glue key is ``<chapter>_<name>`` (``record("ch01", "vocab_size", n)`` is quoted in the
    prose as ``{glue:text}`ch01_vocab_size:,.0f```), unique across the whole book.

        The file also keeps, under ``"_run"``, the profile and the device of the run that wrote it
    (read back with ``run_info``; ``load`` leaves it out), so that the Results page can say how
    each number was obtained.

    A :class:`course_lib.compare.Comparison` is glued as its text ("ahead by 3.1 points, ±1.6")
    and its verdict word is kept under ``"_verdicts"``, for ``make seeds`` to compare.

    ``example=True`` marks a value that shows one draw (a sampled sentence, the costliest head
    of one run) rather than a finding: ``make seeds`` does not expect it to survive another
    random draw, and the prose must not state it as a finding.

    The JSON file is rewritten atomically (temporary file, then rename), so an interrupted run never
    leaves half a file behind. Nothing is returned, so a record as the last line of a cell
    prints nothing on the page (book/writing.md: recording does not print).
    """
    if not chapter or not name or not name.replace("_", "").isalnum():
        raise ValueError(
            f"chapter and name must be non-empty identifiers, got {chapter!r}, {name!r}"
        )
    verdict = value.verdict if isinstance(value, Comparison) else None
    plain = value.text if isinstance(value, Comparison) else _plain(value)
    try:
        json.dumps(plain)
    except TypeError as err:
        raise TypeError(
            f"record({name!r}) needs a JSON-serialisable value, got {type(value)}"
        ) from err
    folder = results_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{chapter}.json"
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    data[name] = plain
    data[RUN_KEY] = {
        "profile": profile(),
        "device": str(device()),
        "seed": run_offset(),
    }
    examples = set(data.pop(EXAMPLES_KEY, [])) - {name} | ({name} if example else set())
    if examples:
        data[EXAMPLES_KEY] = sorted(examples)
    verdicts = data.pop(VERDICTS_KEY, {})
    verdicts.pop(name, None)
    if verdict is not None:
        verdicts[name] = verdict
    if verdicts:
        data[VERDICTS_KEY] = verdicts
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{chapter}.", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if glue:
        try:
            from myst_nb import glue as myst_glue
        except ImportError:  # outside the book toolchain (a bare Colab): no glue
            return
        myst_glue(f"{chapter}_{name}", plain, display=False)


def recorder(chapter: str, *, glue: bool = True) -> Callable[..., None]:
    """``record`` with the chapter bound: ``ch06 = recorder("ch06"); ch06("uas", 0.91)``.

    Returns ``rec(name, value, **kw)``, which calls ``record(chapter, name, value, **kw)``
    (``glue`` defaults to this function's) and, like it, returns nothing. The chapter is checked
    here, so a typo fails at the top of a notebook rather than at its first number.
    """
    if not isinstance(chapter, str) or not chapter.replace("_", "").isalnum():
        raise ValueError(f"chapter must be a non-empty identifier, got {chapter!r}")

    def rec(name: str, value: Any, **kw: Any) -> None:
        kw.setdefault("glue", glue)
        record(chapter, name, value, **kw)

    rec.__name__ = rec.__qualname__ = chapter
    rec.__doc__ = f"Record a number of {chapter} and glue it into the prose."
    return rec


def _read(chapter: str) -> dict[str, Any]:
    path = results_dir() / f"{chapter}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def load(chapter: str) -> dict[str, Any]:
    """All values recorded for ``chapter`` (an empty dict when none were)."""
    return {k: v for k, v in _read(chapter).items() if not k.startswith("_")}


def run_info(chapter: str) -> dict[str, str] | None:
    """The profile and device of the run that last recorded ``chapter``'s results, or None."""
    return _read(chapter).get(RUN_KEY)


def recorded_chapters() -> list[str]:
    """The chapters with recorded results ("ch01", ...), sorted."""
    folder = results_dir()
    return sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []

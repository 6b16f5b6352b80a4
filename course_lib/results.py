"""Numbers that a chapter's prose quotes: recorded from the run, never typed in.

``record(chapter, name, value)`` stores the value in ``_build/results/<chapter>.json`` (so later
tools, such as the benchmarks and the closing notes, can read what the book showed) and
*glues* it with myst-nb: the prose writes ``{glue:text}`ch01_svd_variance:.1%``` and the
built page shows the number computed when the book was built.

Writes cannot half-happen or collide: a chapter's file is rewritten whole (a temporary
``.<chapter>.<random>.tmp``, then a rename) under a lock on the results folder
(``fcntl.flock`` on the folder itself; where the platform or file system has none, writes
are not locked), so processes recording into one chapter at once keep every value. The
temporary file of a killed writer is never read as results, and the next ``record``
(into any chapter) removes it. A folder
or file that cannot be used raises a :class:`ResultsError` naming the path,
``COURSE_RESULTS_DIR`` and the fix.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch

from course_lib.compare import Comparison
from course_lib.data.errors import disk_fix
from course_lib.runtime import device, profile, run_offset

try:
    import fcntl
except ImportError:  # Windows: no flock; writes are then not locked
    fcntl = None  # type: ignore[assignment]

# What record() keeps beside the values: the run's profile, device and seed; the names
# recorded as examples (one draw shown, not a finding); each comparison's verdict word.
RUN_KEY = "_run"
EXAMPLES_KEY = "_examples"
VERDICTS_KEY = "_verdicts"
RESULTS_ENV = "COURSE_RESULTS_DIR"
LOCK_WAIT_S = 300.0  # the longest record() waits for another writer of the chapter


class ResultsError(Exception):
    """A results file or folder cannot be used; the message names the path, the setting
    ``COURSE_RESULTS_DIR`` and the fix."""


class ResultsFolderError(ResultsError, OSError):
    """The results folder cannot be created, read or written (read-only, a file, full)."""


class CorruptResultsError(ResultsError, ValueError):
    """A chapter's results file is not a JSON object (damaged, or edited by hand)."""


def results_dir() -> Path:
    """Where results go: ``COURSE_RESULTS_DIR``, else ``_build/results`` under the book's root.

    The root is the folder holding ``_config.yml``, searched upwards from the working directory;
    without one, ``_build/results`` under the working directory.
    """
    env = os.environ.get(RESULTS_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / "_config.yml").is_file() and (folder / "course_lib").is_dir():
            return folder / "_build" / "results"
    return here / "_build" / "results"


def _setting() -> str:
    """How the results folder was chosen, for an error message."""
    env = os.environ.get(RESULTS_ENV, "").strip()
    if env:
        return f"the results folder, from {RESULTS_ENV}={env!r}"
    return f"the results folder is {results_dir()}: {RESULTS_ENV} is not set"


def _folder_error(
    doing: str, path: Path, exc: OSError, size: int | None = None, note: str = ""
) -> ResultsFolderError:
    """The error for an OS error met on ``path`` (the folder itself or a file in it)."""
    folder = results_dir()
    return ResultsFolderError(
        f"Cannot {doing} {path}: {exc.strerror or exc} ({_setting()}).{note}\n"
        f"Fix: {disk_fix(exc, folder, RESULTS_ENV, size)}"
    )


def _is_identifier(text: Any) -> bool:
    return isinstance(text, str) and text.replace("_", "").isalnum()


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


    The JSON file is rewritten whole (temporary file, then rename) under the folder's lock
    (see the module's docstring): an interrupted run never leaves half a file behind, and
    two runs recording into one chapter at once keep both values. Nothing is returned, so
    a record as the last line of a cell prints nothing on the page (book/writing.md:
    recording does not print). Raises ``ValueError`` for a chapter or name that is not an
    identifier, ``TypeError`` for a value JSON cannot hold, :class:`ResultsError` for a
    results folder or file that cannot be used, and ``runtime.SettingError`` for a bad
    ``COURSE_PROFILE`` or ``COURSE_DEVICE`` (checked before any file is touched).
    """
    if not _is_identifier(chapter) or not _is_identifier(name):
        raise ValueError(
            "chapter and name must be non-empty identifiers (letters, digits and _, "
            f"such as 'ch01' and 'vocab_size'), got {chapter!r}, {name!r}"
        )
    if name in (RUN_KEY, EXAMPLES_KEY, VERDICTS_KEY):
        raise ValueError(
            f"record() keeps its own notes under {name!r}: choose another name"
        )
    verdict = value.verdict if isinstance(value, Comparison) else None
    plain = value.text if isinstance(value, Comparison) else _plain(value)
    try:
        json.dumps(plain)
    except (TypeError, ValueError) as err:  # ValueError: a circular value
        raise TypeError(
            f"record({name!r}) needs a JSON-serialisable value, got {type(value)}"
        ) from err
    run = {"profile": profile(), "device": str(device()), "seed": run_offset()}
    folder = _ready_folder()
    path = folder / f"{chapter}.json"
    with _locked(folder):
        _remove_leftovers(folder)
        data = _read_file(path)
        data[name] = plain
        data[RUN_KEY] = run
        examples = set(data.pop(EXAMPLES_KEY, [])) - {name} | (
            {name} if example else set()
        )
        if examples:
            data[EXAMPLES_KEY] = sorted(examples)
        verdicts = data.pop(VERDICTS_KEY, {})
        verdicts.pop(name, None)
        if verdict is not None:
            verdicts[name] = verdict
        if verdicts:
            data[VERDICTS_KEY] = verdicts
        _write_whole(path, json.dumps(data, indent=1, sort_keys=True), chapter)
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
    if not _is_identifier(chapter):
        raise ValueError(
            "chapter must be a non-empty identifier (letters, digits and _, such as "
            f"'ch01'), got {chapter!r}"
        )

    def rec(name: str, value: Any, **kw: Any) -> None:
        kw.setdefault("glue", glue)
        record(chapter, name, value, **kw)

    rec.__name__ = rec.__qualname__ = chapter
    rec.__doc__ = f"Record a number of {chapter} and glue it into the prose."
    return rec


def _ready_folder() -> Path:
    """The results folder, created if needed (ResultsFolderError if it cannot be)."""
    folder = results_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # read-only parent, a file in the way, ...
        raise _folder_error("create the results folder", folder, exc) from exc
    return folder


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """Hold the results folder's lock (``flock`` on the folder itself) inside the block.

    The OS releases the lock when its holder dies, so a killed writer never blocks the
    next one; a live one is waited for up to ``LOCK_WAIT_S`` seconds.
    """
    if fcntl is None:
        yield
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError as exc:
        raise _folder_error("open the results folder", folder, exc) from exc
    try:
        if not _take(fd):
            raise ResultsError(
                f"Another process has held the lock on {folder} for {LOCK_WAIT_S:.0f} s "
                f"({_setting()}).\nFix: let the run that records there finish, or stop "
                "it, then record again."
            )
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _take(fd: int, wait: float | None = None) -> bool:
    """Take the exclusive lock on ``fd`` within ``wait`` seconds; True when taken (or
    when the file system cannot lock at all: then the write goes on unlocked)."""
    deadline = time.monotonic() + (LOCK_WAIT_S if wait is None else wait)
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.005)
        except OSError:  # ENOLCK, EOPNOTSUPP: a file system without locks
            return True


def _remove_leftovers(folder: Path) -> None:
    """Remove the temporary files of interrupted writers, ``.<chapter>.<random>.tmp``
    (and ``.<chapter>.<random>.json``, as versions before the lock named them). The
    caller holds the folder's lock, so none of them belongs to a live writer."""
    for pattern in (".*.*.tmp", ".*.*.json"):
        for path in folder.glob(pattern):
            with contextlib.suppress(OSError):
                path.unlink()


def _write_whole(path: Path, text: str, chapter: str) -> None:
    """Write ``text`` to ``path`` whole or not at all: a temporary file, then a rename."""
    folder = path.parent
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{chapter}.", suffix=".tmp")
    except OSError as exc:
        raise _folder_error("write into", folder, exc) from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            size = len(text.encode("utf-8"))
            note = f" {path.name} is as it was before this record()."
            raise _folder_error("write", path, exc, size, note) from exc
        raise


def _read_file(path: Path) -> dict[str, Any]:
    """The JSON object in ``path`` ({} when absent); CorruptResultsError names the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError as exc:
        raise _corrupt(path, f"not UTF-8 text ({exc.reason})") from exc
    except OSError as exc:
        raise _folder_error("read the results file", path, exc) from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _corrupt(path, f"not valid JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise _corrupt(path, f"a JSON {type(data).__name__}, not an object of results")
    return data


def _corrupt(path: Path, what: str) -> CorruptResultsError:
    return CorruptResultsError(
        f"The results file {path} is {what}: damaged, or edited by hand "
        f"({_setting()}).\nFix: delete it and run {path.stem}'s notebook again to "
        "record its results afresh (record() leaves it as it is until then)."
    )


def _read(chapter: str) -> dict[str, Any]:
    if not _is_identifier(chapter):
        raise ValueError(
            "chapter must be a non-empty identifier (letters, digits and _, such as "
            f"'ch01'), got {chapter!r}"
        )
    return _read_file(results_dir() / f"{chapter}.json")


def load(chapter: str) -> dict[str, Any]:
    """All values recorded for ``chapter`` (an empty dict when none were)."""
    notes = (RUN_KEY, EXAMPLES_KEY, VERDICTS_KEY)
    return {k: v for k, v in _read(chapter).items() if k not in notes}


def findings(data: dict[str, Any]) -> dict[str, Any]:
    """The findings among a chapter's recorded ``data`` (a results file as read): each
    recorded comparison's verdict word, and every other recorded string or truth value,
    less those recorded as examples (one draw shown) and record()'s own notes.

    What ``make seeds`` expects to survive another random draw, and what a summary may
    state only when a section above it states it (tests/book/test_summaries.py).
    """
    examples = set(data.get(EXAMPLES_KEY, []))
    plain = {
        key: value
        for key, value in data.items()
        if key not in (RUN_KEY, EXAMPLES_KEY, VERDICTS_KEY)
        and key not in examples
        and isinstance(value, (str, bool))
    }
    verdicts = data.get(VERDICTS_KEY, {})
    return plain | {k: v for k, v in verdicts.items() if k not in examples}


def run_info(chapter: str) -> dict[str, str] | None:
    """The profile and device of the run that last recorded ``chapter``'s results, or None."""
    return _read(chapter).get(RUN_KEY)


def recorded_chapters() -> list[str]:
    """The chapters with recorded results ("ch01", ...), sorted; temporary and lock
    files (names starting with a dot) are never chapters."""
    folder = results_dir()
    if not folder.is_dir():
        if folder.exists():
            exc = NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))
            raise _folder_error("read the results folder", folder, exc)
        return []
    return sorted(
        p.stem for p in folder.glob("*.json") if _is_identifier(p.stem) and p.is_file()
    )

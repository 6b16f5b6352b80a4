"""Writing into the data cache: temporary files that name their writer, and clear errors.

Every file :mod:`course_lib.data.fetch` writes into the cache goes first to a temporary
file beside it, named ``.<file>.<pid>.<random>.part`` (``.zip`` for a downloaded archive;
``<file>.<pid>.tmp`` for the small stamps), and is renamed into place only when whole and
verified, so a cache file is written whole or not at all. A writer killed mid-write
(SIGKILL, a power cut) leaves its temporary file behind: :func:`remove_stale` deletes it
the next time anything is written into that folder, once its writer is gone (no live
process has its pid) or it has not changed for ``STALE_S`` seconds. Temporary files are
never read as data: lookups ask for the pinned name only.

An OS error while writing (a read-only or full disk, a file-size limit, a file where the
folder should be) becomes :class:`CacheWriteError`, naming the file, the folder,
``COURSE_LIB_CACHE`` and the fix. Beside each verified file, a ``<file>.sha256`` sidecar
(hash, size, mtime) spares re-hashing it.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from course_lib.data.errors import CacheWriteError, disk_fix
from course_lib.data.spec import FileSpec

CACHE_ENV = "COURSE_LIB_CACHE"
DEFAULT_CACHE = "~/.cache/course_lib"
STALE_S = 3600.0  # a temporary file unchanged this long has no live writer


def cache_dir() -> Path:
    """The cache folder: ``COURSE_LIB_CACHE``, default ``~/.cache/course_lib``."""
    return Path(os.environ.get(CACHE_ENV) or DEFAULT_CACHE).expanduser().resolve()


def _setting() -> str:
    env = os.environ.get(CACHE_ENV)
    if env:
        return f"the cache, from {CACHE_ENV}={env!r}"
    return f"the cache is {cache_dir()}: {CACHE_ENV} is not set"


@contextlib.contextmanager
def cache_errors(what: str, path: Path, size: int | None = None) -> Iterator[None]:
    """Turn an OS error raised inside the block into :class:`CacheWriteError`.

    what: the file in the caller's terms (``wikitext-2/train.txt``); path: the file
    being written; size: its pinned size in bytes, for the fix of a full disk.
    Wrap writes only: an error while *reading* a source must keep its own meaning.
    """
    try:
        yield
    except OSError as exc:
        folder = cache_dir()
        raise CacheWriteError(
            f"Cannot write {what} into the cache at {path}: {exc.strerror or exc} "
            f"({_setting()}). Nothing half-written was kept.\n"
            f"Fix: {disk_fix(exc, folder, CACHE_ENV, size)}"
        ) from exc


def temp_file(folder: Path, name: str, suffix: str) -> tuple[int, str]:
    """Create ``folder`` if needed, remove stale temporary files there, and open a new
    one, ``.<name>.<pid>.<random><suffix>``; returns ``(fd, path)`` as ``mkstemp`` does.

    Raises ``OSError`` as the OS does (the caller wraps it in :func:`cache_errors`).
    """
    folder.mkdir(parents=True, exist_ok=True)
    remove_stale(folder)
    prefix = f".{name}.{os.getpid()}."
    return tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=folder)


def remove_stale(folder: Path) -> list[Path]:
    """Delete the temporary files in ``folder`` whose writer is gone; returns them."""
    removed = []
    candidates = [
        *folder.glob(".*.part"),
        *folder.glob(".*.zip"),
        *folder.glob("*.tmp"),
    ]
    for path in candidates:
        parts = path.name.split(".")
        pid = parts[-2] if path.suffix == ".tmp" else parts[-3]
        if _stale(path, int(pid) if pid.isdigit() else None):
            with contextlib.suppress(OSError):
                path.unlink()
                removed.append(path)
    return removed


def _stale(path: Path, pid: int | None) -> bool:
    """True when no live writer can own ``path``: its pid is dead, or it is old."""
    if pid == os.getpid():
        return False
    if pid is not None:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except OSError:  # PermissionError: alive, another user's
            pass
    try:
        return time.time() - path.stat().st_mtime > STALE_S
    except OSError:
        return False


def _sidecar(dest: Path) -> Path:
    return dest.with_name(dest.name + ".sha256")


def write_sidecar(dest: Path, spec: FileSpec) -> None:
    """Note that ``dest`` was verified (a read-only cache only costs a re-hash later)."""
    stat = dest.stat()
    tmp = dest.with_name(f"{_sidecar(dest).name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(f"{spec.sha256} {stat.st_size} {stat.st_mtime_ns}\n")
        os.replace(tmp, _sidecar(dest))
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()


def sidecar_ok(dest: Path, spec: FileSpec) -> bool:
    """True when ``dest`` was verified and has not changed since (size and mtime)."""
    try:
        stat = dest.stat()
        digest, size, mtime = _sidecar(dest).read_text().split()
    except (OSError, ValueError):
        return False
    return (digest, int(size), int(mtime)) == (
        spec.sha256,
        stat.st_size,
        stat.st_mtime_ns,
    ) and stat.st_size == spec.bytes

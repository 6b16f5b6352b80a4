"""The errors of the data layer: one family, each message naming the file and the fix.

Every error raised by :mod:`course_lib.data` for a data problem derives from
:class:`DataError`, so a notebook can catch them all with one ``except``. Errors about a
bad argument value (an unknown data set, file or split) are also :class:`ValueError`\\ s,
and :class:`ConlluError` is a :class:`ValueError` too.
"""

from __future__ import annotations


class DataError(Exception):
    """Base class of every data-layer error (download, verification, parsing)."""


class UnknownNameError(DataError, ValueError):
    """An unknown data set, file or split name; the message lists the known ones."""


class IntegrityError(DataError):
    """A copy of a pinned file does not match its pin (base class)."""


class ChecksumError(IntegrityError):
    """The sha256 (or the size, when larger) of a copy differs from the pinned one."""


class TruncatedFileError(IntegrityError):
    """A copy is shorter than its pinned size, or a ``.gz`` copy ends too early."""


class CorruptFileError(IntegrityError):
    """A ``.gz`` (or ``.zip``) copy cannot be decompressed at all."""


class DataUnavailableError(DataError):
    """No verified copy in the mirrors or the cache, and the download failed."""


class ConlluError(DataError, ValueError):
    """A malformed CoNLL-U line; the message names the file and the line number."""


class CacheWriteError(DataError):
    """The cache folder (``COURSE_LIB_CACHE``) cannot take a verified copy: the message
    names the file, the folder, the setting and the fix (read-only, full, a file, ...)."""


def disk_fix(
    exc: OSError, folder: object, setting: str, size: int | None = None
) -> str:
    """The fix for an OS error met writing into ``folder``, which ``setting`` chooses.

    Shared by the data cache and the results store, so both name the setting and the
    path the same way: a full disk, a file-size limit, a read-only folder, a file where
    a folder should be, or (anything else) a folder to check.
    """
    import errno  # imported here: the module stays import-light

    need = f" ({size:,} bytes)" if size else ""
    other = f"or set {setting} to a writable folder with room"
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"free space on the disk holding {folder}{need}, {other}."
    if exc.errno == errno.EFBIG:
        return (
            f"the file{need} is larger than this process may write (`ulimit -f`): "
            f"raise that limit, {other}."
        )
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"make {folder} writable, {other}."
    if exc.errno in (errno.EEXIST, errno.ENOTDIR):
        return (
            f"{setting} must name a folder, and {folder} (or a folder above it) is a "
            f"file: point {setting} at a folder, or move that file away."
        )
    return f"check that {folder} is a writable folder with room, {other}."

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

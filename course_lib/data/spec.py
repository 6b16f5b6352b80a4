"""What a pinned data set is: :class:`FileSpec` (one file's URL, sha256 and size) and
:class:`Dataset` (its files, licence and citation). The course's own pins are the table in
:mod:`course_lib.data.registry`.
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from course_lib.data.errors import UnknownNameError

__all__ = ["Dataset", "FileSpec", "unknown_name"]


@dataclass(frozen=True)
class FileSpec:
    """One pinned file: where it is published and what its bytes hash to.

    name: file name in the mirror and the cache (``<dataset>/<name>``).
    url: public, tag- or commit-pinned URL of the bytes.
    sha256, bytes: hash and size of the bytes at ``url`` (or of ``member``, below).
    gzipped: the upstream file itself is gzip; readers open it with :mod:`gzip`.
    member: when set, ``url`` is a zip archive and the pin is that of this member.
    """

    name: str
    url: str
    sha256: str
    bytes: int
    gzipped: bool = False
    member: str | None = None

    def __post_init__(self) -> None:
        if len(self.sha256) != 64 or set(self.sha256) - set("0123456789abcdef"):
            raise ValueError(f"{self.name}: sha256 must be 64 lowercase hex digits")
        if self.bytes < 0:
            raise ValueError(f"{self.name}: bytes must be >= 0, got {self.bytes}")

    @classmethod
    def for_file(cls, path: str | Path, url: str | None = None) -> FileSpec:
        """Pin a local file (for your own data or for tests).

        path: the file to hash. url: where it is published (default: its ``file://`` URL).
        Returns a :class:`FileSpec` with the file's name, sha256 and size.
        """
        path = Path(path).resolve()
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        return cls(
            path.name,
            url or path.as_uri(),
            digest,
            path.stat().st_size,
            gzipped=path.suffix == ".gz",
        )


@dataclass(frozen=True)
class Dataset:
    """A data set: its pinned files and the terms that travel with it.

    files: file name -> :class:`FileSpec` (a tuple of specs is accepted and converted).
    redistributable: False when the licence forbids passing copies on (download only).
    """

    name: str
    title: str
    files: Mapping[str, FileSpec]
    licence: str
    citation: str
    homepage: str
    attribution: str = ""
    note: str = ""
    redistributable: bool = True

    def __post_init__(self) -> None:
        files = self.files
        if not isinstance(files, Mapping):
            files = {spec.name: spec for spec in files}
        for key, spec in files.items():
            if key != spec.name:
                raise ValueError(f"{self.name}: key {key!r} != file name {spec.name!r}")
        object.__setattr__(self, "files", MappingProxyType(dict(files)))

    def file(self, name: str) -> FileSpec:
        """The spec of file ``name``; raises :class:`UnknownNameError` naming the files."""
        if not isinstance(name, str) or name not in self.files:
            raise UnknownNameError(
                unknown_name(
                    f"file {name!r} in data set {self.name!r}", name, self.files
                )
            )
        return self.files[name]


def unknown_name(what: str, name: str, known: Iterable[str]) -> str:
    known = sorted(known)
    close = (
        difflib.get_close_matches(name, known, n=1, cutoff=0.5)
        if isinstance(name, str)
        else []
    )
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return f"Unknown {what}.{hint} Known: {', '.join(known)}."

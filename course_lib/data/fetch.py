"""Get a verified local copy of a pinned file: mirrors first, then the cache, then download.

``fetch(dataset, file)`` looks, in order, in

1. the mirror folders listed in ``COURSE_LIB_DATA`` (colon-separated), for
   ``<mirror>/<dataset>/<file>`` (returned in place) or ``<mirror>/<dataset>/<file>.gz``
   (decompressed into the cache); the sha256 is checked on a mirror copy's first use, and
   again whenever its size or mtime changes (a stamp in the cache records them);
2. the cache ``COURSE_LIB_CACHE`` (default ``~/.cache/course_lib``), ``<cache>/<dataset>/<file>``;
   a small ``<file>.sha256`` sidecar (hash, size, mtime) spares re-hashing big files;
3. the pinned URL: streamed into a temporary file in the cache folder, hashed while it
   arrives, and renamed into place only when size and sha256 match the pin.

A temporary file is deleted on any failure, so the cache only ever holds verified files;
one left by a killed writer is removed later (:mod:`course_lib.data.cache_files`), and a
cache that cannot be written raises ``CacheWriteError`` naming ``COURSE_LIB_CACHE``.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import hashlib
import os
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, BinaryIO

from course_lib.data.cache_files import (  # CACHE_ENV, DEFAULT_CACHE: re-exported
    CACHE_ENV,  # noqa: F401
    DEFAULT_CACHE,  # noqa: F401
    cache_dir,
    cache_errors,
    sidecar_ok,
    temp_file,
    write_sidecar,
)
from course_lib.data.errors import (
    ChecksumError,
    CorruptFileError,
    DataUnavailableError,
    TruncatedFileError,
)
from course_lib.data.registry import FileSpec, get_dataset

MIRROR_ENV = "COURSE_LIB_DATA"
_CHUNK = 1 << 20
Opener = Callable[[str, float], BinaryIO]


def _urlopen(url: str, timeout: float) -> BinaryIO:
    """Open ``url`` for reading (the default opener; tests replace it)."""
    import urllib.request  # imported here: keeps `import course_lib.data` light

    return urllib.request.urlopen(url, timeout=timeout)


def mirror_dirs() -> list[Path]:
    """The existing mirror folders named in ``COURSE_LIB_DATA``, in order."""
    entries = os.environ.get(MIRROR_ENV, "").split(os.pathsep)
    return [Path(e).expanduser().resolve() for e in entries if e and Path(e).is_dir()]


def open_text(path: str | Path) -> IO[str]:
    """Open a UTF-8 text file for reading, through gzip when its name ends in ``.gz``.

    Lines end at ``\\n`` only (no universal-newline translation), as in the pinned files.
    """
    if str(path).endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8", newline="\n")
    return open(path, encoding="utf-8", newline="\n")


def find_copies(dataset: str, file: str) -> list[tuple[str, Path]]:
    """Every copy of a file present in the mirrors and the cache, without hashing.

    Returns ``(kind, path)`` pairs, kind ``"mirror"`` or ``"cache"``, in lookup order.
    """
    spec = get_dataset(dataset).file(file)
    copies = []
    for mirror in mirror_dirs():
        for path in _mirror_candidates(mirror / dataset, spec):
            if path.is_file():
                copies.append(("mirror", path))
    cached = cache_dir() / dataset / file
    if cached.is_file():
        copies.append(("cache", cached))
    return copies


def verify_copy(dataset: str, file: str, path: str | Path) -> None:
    """Re-hash one copy (plain, or a ``.gz`` of a plain file) against its pin.

    Raises :class:`ChecksumError`, :class:`TruncatedFileError` or :class:`CorruptFileError`.
    """
    verify_spec(dataset, get_dataset(dataset).file(file), path)


def verify_spec(dataset: str, spec: FileSpec, path: str | Path) -> None:
    """:func:`verify_copy` for a pin given as a :class:`FileSpec` (e.g. FSDD's WAVs)."""
    path = Path(path)
    fix = _fix(dataset, spec, path)
    if path.name == spec.name + ".gz" and not spec.gzipped:
        chunks = _gz_chunks(path, dataset, spec, fix)
    else:
        chunks = _file_chunks(path)
    _consume(chunks, dataset, spec, str(path), fix)


def fetch(dataset: str, file: str, *, opener: Opener | None = None) -> Path:
    """A path to the verified content of one pinned file (mirror, cache or download).

    dataset, file: names from :data:`DATASETS`; unknown names raise ``UnknownNameError``
    with a suggestion. opener: ``(url, timeout) -> binary stream``, default urllib.
    Returns the plain file, or for a gzip upstream (``gzipped=True``) the ``.gz`` file.
    Raises ``ChecksumError`` / ``TruncatedFileError`` / ``CorruptFileError`` for a bad
    copy and ``DataUnavailableError`` when there is no copy and the download fails.
    """
    spec = get_dataset(dataset).file(file)
    dest = cache_dir() / dataset / spec.name
    for mirror in mirror_dirs():
        for path in _mirror_candidates(mirror / dataset, spec):
            if not path.is_file():
                continue
            fix = _fix(dataset, spec, path)
            if path.name == spec.name:  # the pinned bytes themselves: use in place
                if not _mirror_verified(dataset, spec, path):
                    _consume(_file_chunks(path), dataset, spec, str(path), fix)
                    _record_mirror(dataset, spec, path)
                return path
            chunks = _gz_chunks(path, dataset, spec, fix)
            if not sidecar_ok(dest, spec):
                _write_verified(dest, chunks, dataset, spec, str(path), fix)
            elif _mirror_verified(dataset, spec, path):  # both verified before
                return dest
            else:  # the cache copy is verified: check the mirror's only
                _consume(chunks, dataset, spec, str(path), fix)
            _record_mirror(dataset, spec, path)
            return dest
    return fetch_spec(dataset, spec, dest, opener=opener)  # the cache, then the URL


def fetch_spec(
    dataset: str,
    spec: FileSpec,
    dest: Path,
    *,
    opener: Opener | None = None,
    mirror_file: str | None = None,
) -> Path:
    """A verified copy at ``dest`` of a pinned file not in the registry (no mirror lookup).

    A copy already at ``dest`` is verified (once: the sidecar spares re-hashing) and
    kept; otherwise ``spec.url`` is downloaded as :func:`fetch` does. mirror_file: what
    the offline error suggests putting in a mirror (default ``spec.name``).
    Used for data sets published file by file (FSDD's WAVs, pinned by a manifest).
    """
    if dest.is_file():
        if not sidecar_ok(dest, spec):
            fix = _fix(dataset, spec, dest)
            _consume(_file_chunks(dest), dataset, spec, str(dest), fix)
            write_sidecar(dest, spec)
        return dest
    _download(dataset, spec, dest, opener or _urlopen, mirror_file)
    return dest


def _mirror_candidates(folder: Path, spec: FileSpec) -> list[Path]:
    if spec.gzipped:
        return [folder / spec.name]
    return [folder / spec.name, folder / (spec.name + ".gz")]


def _fix(dataset: str, spec: FileSpec, path: Path) -> str:
    if path.is_relative_to(cache_dir()):
        return (
            f"delete {path} and fetch again "
            f"(`python -m course_lib.data fetch {dataset}`) to get a fresh copy."
        )
    return (
        f"the mirror copy {path} is damaged or from another release: replace it with "
        f"the file from {spec.url} (or remove it from the mirror and fetch again)."
    )


def _file_chunks(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            yield chunk


def _gz_chunks(path: Path, dataset: str, spec: FileSpec, fix: str) -> Iterator[bytes]:
    try:
        with gzip.open(path, "rb") as f:
            while chunk := f.read(_CHUNK):
                yield chunk
    except EOFError as exc:
        raise TruncatedFileError(
            f"{dataset}/{spec.name}: the gzip copy {path} is truncated ({exc}).\n"
            f"Fix: {fix}"
        ) from exc
    except (gzip.BadGzipFile, zlib.error) as exc:
        raise CorruptFileError(
            f"{dataset}/{spec.name}: {path} is not a valid gzip file ({exc}).\nFix: {fix}"
        ) from exc


def _consume(
    chunks: Iterator[bytes], dataset: str, spec: FileSpec, where: str, fix: str
) -> None:
    """Hash a stream of chunks and compare it with the pin."""
    digest, size = hashlib.sha256(), 0
    for chunk in chunks:
        digest.update(chunk)
        size += len(chunk)
        _check_growing(size, dataset, spec, where, fix)
    _check(digest.hexdigest(), size, dataset, spec, where, fix)


def _check_growing(size: int, dataset: str, spec: FileSpec, where: str, fix: str):
    if size > spec.bytes:
        raise ChecksumError(
            f"{dataset}/{spec.name}: {where} is larger than the pinned "
            f"{spec.bytes:,} bytes (expected sha256 {spec.sha256}).\nFix: {fix}"
        )


def _check(digest: str, size: int, dataset: str, spec: FileSpec, where: str, fix: str):
    if size < spec.bytes:
        raise TruncatedFileError(
            f"{dataset}/{spec.name}: {where} is truncated: {size:,} bytes, expected "
            f"{spec.bytes:,}.\nFix: {fix}"
        )
    if digest != spec.sha256:
        raise ChecksumError(
            f"{dataset}/{spec.name}: checksum mismatch for {where}\n"
            f"  expected sha256 {spec.sha256}\n  actual   sha256 {digest}\nFix: {fix}"
        )


def _write_verified(
    dest: Path,
    chunks: Iterator[bytes],
    dataset: str,
    spec: FileSpec,
    where: str,
    fix: str,
) -> None:
    """Write chunks to a temporary file beside ``dest``; rename it only when verified.

    An error reading ``chunks`` keeps its meaning; one writing raises CacheWriteError.
    """
    guard = functools.partial(cache_errors, f"{dataset}/{spec.name}", dest, spec.bytes)
    with guard():
        fd, tmp = temp_file(dest.parent, spec.name, ".part")
    try:
        digest, size = hashlib.sha256(), 0
        with os.fdopen(fd, "wb") as out:
            for chunk in chunks:
                digest.update(chunk)
                size += len(chunk)
                _check_growing(size, dataset, spec, where, fix)
                with guard():
                    out.write(chunk)
            with guard():
                out.flush()
        _check(digest.hexdigest(), size, dataset, spec, where, fix)
        with guard():
            os.chmod(tmp, 0o644)  # mkstemp makes 0600 files
            os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    write_sidecar(dest, spec)


def _mirror_stamp(dataset: str, spec: FileSpec, source: Path) -> tuple[Path, str]:
    """Where the cache records a verified mirror copy, and what it records: the pin, the
    copy's path, size and mtime (a copy changed since is verified again)."""
    stat = source.stat()
    line = f"{spec.sha256} {stat.st_size} {stat.st_mtime_ns} {source}\n"
    return cache_dir() / dataset / f".{spec.name}.mirror", line


def _mirror_verified(dataset: str, spec: FileSpec, source: Path) -> bool:
    stamp, line = _mirror_stamp(dataset, spec, source)
    try:
        return stamp.read_text(encoding="utf-8") == line
    except OSError:
        return False


def _record_mirror(dataset: str, spec: FileSpec, source: Path) -> None:
    """Note that ``source`` holds the pinned content (a read-only cache only costs time)."""
    stamp, line = _mirror_stamp(dataset, spec, source)
    tmp = stamp.with_name(f"{stamp.name}.{os.getpid()}.tmp")
    try:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(line, encoding="utf-8")
        os.replace(tmp, stamp)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()


def _download(
    dataset: str,
    spec: FileSpec,
    dest: Path,
    opener: Opener,
    mirror_file: str | None = None,
) -> None:
    """Stream ``spec.url`` into the cache, verified; raise DataUnavailableError offline."""
    mirror_file = mirror_file or spec.name
    fix = (
        f"try again later, or put a verified copy at <mirror>/{dataset}/{mirror_file} "
        f"in a folder listed in {MIRROR_ENV}."
    )
    try:
        if spec.member is None:
            with opener(spec.url, 60.0) as response:
                chunks = iter(lambda: response.read(_CHUNK), b"")
                _write_verified(dest, chunks, dataset, spec, spec.url, fix)
        else:
            _download_member(dataset, spec, dest, opener, fix)
    except OSError as exc:  # URLError, HTTPError, timeouts, refused connections
        if not os.environ.get(MIRROR_ENV):
            mirrors = f"{MIRROR_ENV} is not set"
        else:
            found = ", ".join(map(str, mirror_dirs()))
            mirrors = f"{MIRROR_ENV}: {found or 'none of its folders exists'}"
        packed = (
            "" if spec.gzipped or mirror_file != spec.name else f" (or {spec.name}.gz)"
        )
        raise DataUnavailableError(
            f"Cannot get {dataset}/{spec.name}: no copy in a mirror ({mirrors}) or "
            f"in the cache ({dest}), and the download from {spec.url} failed: {exc}.\n"
            f"Fix: connect to the internet, or set {MIRROR_ENV} to a folder holding "
            f"{dataset}/{mirror_file}{packed}, such as the course's shared/data."
        ) from exc


def _download_member(
    dataset: str, spec: FileSpec, dest: Path, opener: Opener, fix: str
) -> None:
    """Download the zip at ``spec.url`` to a temporary file and extract ``spec.member``."""
    import zipfile

    guard = functools.partial(cache_errors, f"{dataset}/{spec.name}", dest)
    with guard():
        fd, tmp = temp_file(dest.parent, spec.name, ".zip")
    try:
        with os.fdopen(fd, "wb") as out, opener(spec.url, 60.0) as response:
            while chunk := response.read(_CHUNK):
                with guard():
                    out.write(chunk)
        try:
            with zipfile.ZipFile(tmp) as archive, archive.open(spec.member) as member:
                chunks = iter(lambda: member.read(_CHUNK), b"")
                where = f"{spec.url} (member {spec.member})"
                _write_verified(dest, chunks, dataset, spec, where, fix)
        except (zipfile.BadZipFile, KeyError) as exc:
            raise CorruptFileError(
                f"{dataset}/{spec.name}: {spec.url} is not a zip archive holding "
                f"{spec.member} ({exc}).\nFix: {fix}"
            ) from exc
    finally:
        Path(tmp).unlink(missing_ok=True)

"""Does every pinned URL still answer with the bytes we pinned? ``python -m course_lib.data
check-urls`` asks each one (a HEAD request; a one-byte ranged GET where HEAD is refused or
gives no size) without downloading it, and prints one line per file:

    ok         ud_english_ewt/en_ewt-ud-train.conllu  14,203,025 bytes
    MISSING    wikitext-2/train.txt: HTTP 404 at https://...
    SIZE       sst2/dev.tsv: 94,415 bytes at https://..., pinned 94,414
    MOVED      multi30k_en_de/val.en.gz: HTTP 301 to https://... (a pin never redirects)
    UNREACHABLE ...: <the network error>

A redirect is a problem, not a detour: a pinned URL names fixed bytes, and one that moves may
no longer serve them. A zip member's pin is the member's, so only the archive's presence is
checked; FSDD has no published archive, so each of its recordings (the package's manifest)
is asked for instead. The weekly workflow runs it; exit 1 when any file is not ``ok``.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from course_lib.data.registry import DATASETS, FSDD_RECORDINGS_URL

TIMEOUT = 30.0


@dataclass(frozen=True)
class Target:
    """One URL to ask about: its label, and the size pinned for it (None: not pinned)."""

    label: str
    url: str
    bytes: int | None


@dataclass(frozen=True)
class Answer:
    """What one URL answered: ``status`` is ok, MISSING, SIZE, MOVED or UNREACHABLE."""

    target: Target
    status: str
    detail: str

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def line(self) -> str:
        return f"{self.status:<11} {self.target.label}{self.detail}"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: PLR0913
        return None  # urllib then raises HTTPError with the 3xx status


_OPENER = urllib.request.build_opener(_NoRedirect)


def _size(response) -> int | None:
    """The resource's size: Content-Range's total for a ranged answer, else Content-Length."""
    ranged = response.headers.get("Content-Range", "")
    if "/" in ranged and not ranged.endswith("/*"):
        return int(ranged.rsplit("/", 1)[1])
    length = response.headers.get("Content-Length")
    return int(length) if length is not None and response.status != 206 else None


def _ask(url: str, method: str, timeout: float):
    headers = {"Range": "bytes=0-0"} if method == "GET" else {}
    request = urllib.request.Request(url, method=method, headers=headers)
    return _OPENER.open(request, timeout=timeout)


def check(target: Target, timeout: float = TIMEOUT) -> Answer:
    """Ask ``target.url`` for its status and size (HEAD, then a ranged GET if needed)."""
    size = None
    try:
        for method in ("HEAD", "GET"):
            try:
                with _ask(target.url, method, timeout) as response:
                    size = _size(response)
            except urllib.error.HTTPError as err:
                if method == "HEAD" and err.code in (403, 405, 501):
                    continue  # HEAD refused: ask for one byte instead
                raise
            if size is not None:
                break
    except urllib.error.HTTPError as err:
        if 300 <= err.code < 400:
            where = err.headers.get("Location", "an unnamed place")
            detail = f": HTTP {err.code} to {where} (a pin never redirects)"
            return Answer(target, "MOVED", detail)
        return Answer(target, "MISSING", f": HTTP {err.code} at {target.url}")
    except (urllib.error.URLError, OSError, ValueError) as err:
        reason = getattr(err, "reason", err)
        return Answer(target, "UNREACHABLE", f": {reason} at {target.url}")
    if target.bytes is not None and size is not None and size != target.bytes:
        detail = f": {size:,} bytes at {target.url}, pinned {target.bytes:,}"
        return Answer(target, "SIZE", detail)
    if target.bytes is not None and size is None:
        return Answer(target, "ok", "  (present; the server gives no size)")
    shown = f"  {size:,} bytes" if size is not None else "  (present)"
    return Answer(target, "ok", shown)


def fsdd_targets() -> list[Target]:
    """Each FSDD recording of the package's manifest, at its public URL, with its size."""
    from course_lib.data.fsdd import recording_specs

    return [
        Target(
            f"fsdd/recordings/{spec.name}", FSDD_RECORDINGS_URL + spec.name, spec.bytes
        )
        for spec in recording_specs()
    ]


def targets(names: Iterable[str] | None = None) -> list[Target]:
    """Every pinned URL of the named data sets (default: all of them)."""
    found = []
    for ds in DATASETS.values():
        if names is not None and ds.name not in names:
            continue
        if ds.name == "fsdd":
            found += fsdd_targets()
            continue
        for spec in ds.files.values():
            pinned = (
                None if spec.member else spec.bytes
            )  # a member's size is not the zip's
            found.append(Target(f"{ds.name}/{spec.name}", spec.url, pinned))
    return found


def check_all(
    found: list[Target],
    *,
    workers: int = 16,
    asker: Callable[[Target], Answer] = check,
) -> list[Answer]:
    """Ask every target, ``workers`` at a time; the answers in the targets' order."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(asker, found))

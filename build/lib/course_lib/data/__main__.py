"""Prepare and check the course's data on a machine: ``python -m course_lib.data ...``.

Commands::

    list            each data set: files, sizes, licence, where a copy is present
    fetch NAME...   fetch (and verify) every file of the named data sets
    fetch-all       fetch every data set
    verify          re-hash every present copy (mirrors and cache); exit 1 on a mismatch
    check-urls [NAME...]  ask every pinned URL whether it still answers with the pinned size
                    (no download; exit 1 when a file is missing, resized or moved)

Exit codes: 0 success, 1 a data error (mismatch, no copy), 2 a usage error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from course_lib.data.errors import DataError, IntegrityError
from course_lib.data.fetch import (
    CACHE_ENV,
    MIRROR_ENV,
    cache_dir,
    fetch,
    find_copies,
    mirror_dirs,
    verify_copy,
    verify_spec,
)
from course_lib.data.registry import DATASETS, get_dataset


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n / 1e3:.1f} kB"


def _list() -> int:
    print(f"mirrors ({MIRROR_ENV}): {', '.join(map(str, mirror_dirs())) or 'none'}")
    print(f"cache   ({CACHE_ENV}): {cache_dir()}")
    for ds in DATASETS.values():
        flag = "" if ds.redistributable else "  [download only: not redistributable]"
        print(f"\n{ds.name}: {ds.title}\n  licence: {ds.licence}{flag}")
        for spec in ds.files.values():
            copies = find_copies(ds.name, spec.name)
            where = ", ".join(kind for kind, _ in copies) or "missing"
            print(f"  {spec.name:<26} {_size(spec.bytes):>9}  {where}")
        if ds.name == "fsdd":
            n = len(_fsdd_cached())
            print(f"  {'recordings/*.wav':<26} {n:>5} of 3,000 in the cache (per file)")
    return 0


def _fsdd_cached():
    from course_lib.data.fsdd import cached_recordings

    return cached_recordings()


def _fetch_one(name: str, file: str):
    """fetch(), except FSDD's archive: with no copy of it, its WAVs one by one."""
    if name == "fsdd" and not find_copies(name, file):  # upstream has no archive
        from course_lib.data.fsdd import fetch_recordings

        return fetch_recordings()
    return fetch(name, file)


def _fetch(names: Sequence[str]) -> int:
    failed = 0
    for name in names:
        ds = get_dataset(name)
        if not ds.redistributable:
            print(f"note: {name}: {ds.licence}. Do not redistribute it.")
        for spec in ds.files.values():
            try:
                print(f"ok      {name}/{spec.name}: {_fetch_one(name, spec.name)}")
            except DataError as exc:
                failed += 1
                print(f"FAILED  {name}/{spec.name}: {exc}", file=sys.stderr)
    return 1 if failed else 0


def _verify() -> int:
    checked = bad = 0
    for ds in DATASETS.values():
        for spec in ds.files.values():
            for _, path in find_copies(ds.name, spec.name):
                checked += 1
                try:
                    verify_copy(ds.name, spec.name, path)
                    print(f"ok        {path}")
                except IntegrityError as exc:
                    bad += 1
                    print(f"MISMATCH  {path}\n{exc}", file=sys.stderr)
    for spec, path in _fsdd_cached():  # WAVs fetched one by one (no archive)
        checked += 1
        try:
            verify_spec("fsdd", spec, path)
        except IntegrityError as exc:
            bad += 1
            print(f"MISMATCH  {path}\n{exc}", file=sys.stderr)
    print(f"{checked} copies checked, {bad} bad.")
    if not checked:
        print(f"No copies present: set {MIRROR_ENV} or run `fetch-all` first.")
    return 1 if bad else 0


def _check_urls(names: Sequence[str]) -> int:
    from course_lib.data.check_urls import check_all, targets

    for name in names:
        get_dataset(name)  # fail on a typo before asking anything
    answers = check_all(targets(names or None))
    for answer in answers:
        print(answer.line(), file=sys.stdout if answer.ok else sys.stderr)
    bad = sum(not a.ok for a in answers)
    print(f"{len(answers)} URLs asked, {bad} not as pinned.")
    return 1 if bad else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 data error, 2 usage)."""
    parser = argparse.ArgumentParser(
        prog="python -m course_lib.data",
        description="List, fetch and verify the course's pinned data sets.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="data sets, files, sizes, licences, copies present")
    p_fetch = sub.add_parser("fetch", help="fetch every file of the named data sets")
    p_fetch.add_argument("names", nargs="+", metavar="NAME", help=", ".join(DATASETS))
    sub.add_parser("fetch-all", help="fetch every data set")
    sub.add_parser("verify", help="re-hash every present copy; exit 1 on a mismatch")
    p_urls = sub.add_parser(
        "check-urls", help="ask every pinned URL for its size, without downloading"
    )
    p_urls.add_argument(
        "names", nargs="*", metavar="NAME", help="default: every data set"
    )
    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            return _list()
        if args.command == "fetch":
            for name in args.names:
                get_dataset(name)  # fail on a typo before fetching anything
            return _fetch(args.names)
        if args.command == "fetch-all":
            return _fetch(list(DATASETS))
        if args.command == "check-urls":
            return _check_urls(args.names)
        return _verify()
    except DataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, ValueError) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Why course_lib.data keeps its own cache lookup beside pooch: the cost of a warm fetch.

``pooch.retrieve(url, known_hash, fname, path)`` (pooch 1.9) does what our download step
does (a temporary file, the hash checked, a rename, a progress bar), but on every call for a
file already in its cache it hashes the whole file again. The chapters ask for the same
files many times (every loader call, every test), and FSDD is 3,000 files. Ours records the
verified hash, size and mtime in a small sidecar and compares a ``stat`` instead. This
script measures both on the same cached files of the registry (the data sets present in
the cache or a mirror), one warm call each, and prints the median times side by side.

    pip install pooch   # not a requirement of the course
    COURSE_LIB_DATA=../shared/data python benchmarks/data_cache.py [--repeats 5]

Measured on 2026-12-02 (2-core machine, the 11 registry files in the cache, 58 MB):
without a mirror (a reader's machine, Colab) ours takes 0.84 ms for all 11 warm calls and
pooch 76 ms (90x; 179-325x on the 4-14 MB files), every call. With ``COURSE_LIB_DATA`` set
(CI), ours re-verified the mirror's copy on every hit (588 ms); it now stamps a verified
mirror copy (size, mtime) in the cache and checks it again only when it changes: 1.8 ms
against pooch's 98 ms (56x). Pooch has no mirrors (folders of ``<dataset>/<file>`` or
``<file>.gz``) nor our "Fix:" error messages, and its download step would replace about
40 of our lines (``_write_verified``, ``_download``). So the data layer keeps its own.
"""

from __future__ import annotations

import argparse
import statistics
import time

from course_lib.data import DATASETS, fetch
from course_lib.data.errors import DataError
from course_lib.data.fetch import cache_dir


def _median_ms(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    import pooch

    rows, ours_total, pooch_total = [], 0.0, 0.0
    for name, dataset in sorted(DATASETS.items()):
        for spec in dataset.files.values():
            try:
                path = fetch(name, spec.name)  # makes the cache copy (or a mirror hit)
            except DataError:
                continue
            if path.parent != cache_dir() / name:
                continue  # used in place from a mirror: pooch has no such lookup
            ours = _median_ms(lambda n=name, f=spec.name: fetch(n, f), args.repeats)
            theirs = _median_ms(
                lambda s=spec, p=path: pooch.retrieve(
                    s.url, f"sha256:{s.sha256}", fname=p.name, path=p.parent
                ),
                args.repeats,
            )
            rows.append((f"{name}/{spec.name}", spec.bytes / 1e6, ours, theirs))
            ours_total, pooch_total = ours_total + ours, pooch_total + theirs
    print(f"pooch {pooch.__version__}; median of {args.repeats} warm calls per file")
    print(f"{'file':<44} {'MB':>7} {'ours ms':>9} {'pooch ms':>9} {'ratio':>7}")
    for file, mb, ours, theirs in rows:
        print(f"{file:<44} {mb:7.2f} {ours:9.3f} {theirs:9.3f} {theirs / ours:7.1f}")
    print(
        f"{'all ' + str(len(rows)) + ' files':<44} {'':>7} {ours_total:9.3f} "
        f"{pooch_total:9.3f} {pooch_total / max(ours_total, 1e-9):7.1f}"
    )


if __name__ == "__main__":
    main()

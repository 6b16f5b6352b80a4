"""Re-execute a page of the book only when something it depends on changed.

    python tools/book_cache.py stale     # before `jupyter-book build`: forget what is stale
    python tools/book_cache.py execute --jobs 2   # then: execute the stale chapters side by side
    python tools/book_cache.py commit    # after it: remember what was executed; per-page times
    python tools/book_cache.py stale --out _build/chapter-09 --toc _build/toc-09.yml  # make chapter

The book executes its notebooks through jupyter-cache (``execute_notebooks: cache``), which
keys a notebook on its code cells only. A chapter also depends on the ``course_lib`` modules it
imports (followed through their own imports), the run profile, the widget mode, the device
override and the pins (``requirements.txt``, ``pyproject.toml``); the Results page depends on
every chapter. ``stale`` computes that key for every page and, for each page whose key differs
from the one stored by the last ``commit``, removes its executed copy from the cache and touches
the notebook, so that Sphinx reads it again and myst-nb executes it; every other page keeps its
cached outputs. ``execute`` runs the stale chapters ``--jobs`` at a time (myst-nb runs them
one after the other, leaving a core of a 2-core machine idle while each kernel uses one thread)
and stores each in the cache exactly as myst-nb would, so that ``jupyter-book build`` finds them
executed; a chapter that fails is left out, and the build executes it again and reports its
error. The Results page, which reads every chapter's results, is left to the build, which
executes it after them. ``commit`` stores the key of every page the cache now holds and
prints how long each chapter took against its budget (10 minutes; Chapter 9, 20); ``execute``
prints the wall time of the chapters it ran, against the whole book's 60 minutes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import time
from collections.abc import Iterable
from pathlib import Path

from notebook_imports import (  # tools/
    is_notebook,
    module_closure,
    notebook_code,
    page_file,
    read_notebook,
)

ROOT = Path(__file__).resolve().parents[1]
PINS = ("requirements.txt", "pyproject.toml")
ENVIRONMENT = ("COURSE_PROFILE", "COURSE_WIDGET_MODE", "COURSE_DEVICE", "COURSE_SEED")
BUDGET_SECONDS = {"notebooks/09_pretraining": 1200}
DEFAULT_BUDGET = 600
BOOK_BUDGET = 3600  # every chapter, BOOK_JOBS=2 on 2 cores


class Build:
    """Where a build keeps its state: ``<out>/_build/`` (``jupyter-book build --path-output``)."""

    def __init__(self, root: Path, out: Path | None = None, toc: Path | None = None):
        self.root = root
        self.out = out or root
        self.toc = toc or root / "_toc.yml"

    @property
    def cache_dir(self) -> Path:
        return self.out / "_build" / ".jupyter_cache"

    @property
    def keys_file(self) -> Path:
        return self.out / "_build" / ".book_keys.json"

    @property
    def stale_file(self) -> Path:
        return self.out / "_build" / ".book_stale.json"


def pages(root: Path, toc_file: Path | None = None) -> list[str]:
    """The notebook pages of the toc ("notebooks/01_word_vectors", "results", ...)."""
    import yaml

    toc = yaml.safe_load((toc_file or root / "_toc.yml").read_text(encoding="utf-8"))
    files = [c["file"] for part in toc["parts"] for c in part["chapters"]]
    return [f for f in files if is_notebook(root, f)]


def _digest(chunks: Iterable[bytes]) -> str:
    h = hashlib.sha256()
    for chunk in chunks:
        h.update(hashlib.sha256(chunk).digest())
    return h.hexdigest()[:16]


def environment() -> dict[str, str]:
    """What a build's outputs depend on beyond the sources: profile, widget mode, device, seed."""
    env = {name: os.environ.get(name, "") for name in ENVIRONMENT}
    if not env["COURSE_PROFILE"]:  # the default depends on the machine
        sys.path.insert(0, str(ROOT))
        from course_lib.runtime import profile

        env["COURSE_PROFILE"] = profile()
    return env


def page_keys(
    root: Path, env: dict[str, str], toc: Path | None = None
) -> dict[str, str]:
    """The key of every notebook page; the Results page's includes every chapter's."""
    common = [json.dumps(env, sort_keys=True).encode()]
    common += [(root / p).read_bytes() for p in PINS if (root / p).is_file()]
    keys: dict[str, str] = {}
    for page in pages(root, toc):
        deps = module_closure(root, notebook_code(page_file(root, page)))
        chunks = common + [
            str(p.relative_to(root)).encode() + p.read_bytes() for p in deps
        ]
        keys[page] = _digest(chunks)
    for page in keys:
        if not page.startswith(
            "notebooks/"
        ):  # the Results page reads every chapter's results
            chapters = [keys[p].encode() for p in keys if p.startswith("notebooks/")]
            keys[page] = _digest([keys[page].encode(), *chapters])
    return keys


def _cache(build: Build):
    from jupyter_cache import get_cache

    return get_cache(str(build.cache_dir))


def _stored(build: Build) -> dict[str, str]:
    if build.keys_file.is_file():
        return json.loads(build.keys_file.read_text(encoding="utf-8"))
    return {}


def _cached(cache, path: Path):
    """The cache record of the notebook at ``path`` as it is now, or None."""
    try:
        return cache.match_cache_notebook(read_notebook(path))
    except KeyError:
        return None


def stale(build: Build, env: dict[str, str]) -> list[str]:
    """Forget the executed copy of every page whose key changed; return those pages."""
    stored, cache = _stored(build), _cache(build)
    changed = []
    for page, key in page_keys(build.root, env, build.toc).items():
        if stored.get(page) == key:
            continue
        changed.append(page)
        path = page_file(build.root, page)
        record = _cached(cache, path)
        if record is not None:
            cache.remove_cache(record.pk)
        path.touch()  # Sphinx reads a page again only when its source is newer
    return changed


def _execute_one(path: str, timeout: int) -> tuple[str, float, str | None]:
    """Execute one notebook in its folder (a worker process); its JSON, seconds, error."""
    import nbformat
    from jupyter_cache.executors.utils import single_nb_execution

    nb = read_notebook(Path(path))
    result = single_nb_execution(
        nb, cwd=str(Path(path).parent), timeout=timeout, allow_errors=False
    )
    error = None
    if result.err is not None:  # the error's name, and its last lines: the failing cell
        tail = "\n".join(str(result.err).strip().splitlines()[-12:])
        error = f"{type(result.err).__name__}\n{tail}"
    return nbformat.writes(nb), result.time, error


def _execution_timeout(root: Path) -> int:
    import yaml

    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    return int(config.get("execute", {}).get("timeout", 3600))


def execute(build: Build, changed: list[str], jobs: int) -> dict[str, str | None]:
    """Execute the stale chapters ``jobs`` at a time and cache each that succeeds (as
    myst-nb's cache mode does: the executed notebook, keyed on its file, with its time).

    Chapter 9, the longest, starts first. Returns each chapter's error (None: cached)."""
    from concurrent.futures import ProcessPoolExecutor, as_completed

    import nbformat
    from jupyter_cache.base import CacheBundleIn

    todo = sorted(
        (p for p in changed if p.startswith("notebooks/")),
        key=lambda p: (-BUDGET_SECONDS.get(p, DEFAULT_BUDGET), p),
    )
    if not todo:
        return {}
    cache, timeout = _cache(build), _execution_timeout(build.root)
    errors: dict[str, str | None] = {}
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {
            pool.submit(_execute_one, str(page_file(build.root, p)), timeout): p
            for p in todo
        }
        for future in as_completed(futures):
            page = futures[future]
            try:
                text, seconds, errors[page] = future.result()
            except Exception as err:  # noqa: BLE001 (a dead worker: the build runs it again)
                text, seconds, errors[page] = "", 0.0, f"{type(err).__name__}: {err}"
            if errors[page] is None:
                path = page_file(build.root, page)
                cache.cache_notebook_bundle(
                    CacheBundleIn(
                        nbformat.reads(text, as_version=4),
                        str(path),
                        data={"execution_seconds": seconds},
                    ),
                    check_validity=False,
                    overwrite=True,
                )
                print(f"executed {page} in {seconds:.0f} s", flush=True)
            else:
                print(
                    f"{page} failed ({errors[page]}): the build runs it again",
                    flush=True,
                )
    wall = time.perf_counter() - start
    over = "  OVER" if wall > BOOK_BUDGET else ""
    print(
        f"{len(todo)} chapters in {wall / 60:.1f} min (the book's budget: 60 min){over}"
    )
    return errors


def _write_executed(build: Build, cache, page: str) -> None:
    """Give ``_build/jupyter_execute/<page>.ipynb`` (when the build wrote it) the outputs the
    cache holds for the page, replacing the file atomically."""
    import nbformat

    target = build.out / "_build" / "jupyter_execute" / f"{page}.ipynb"
    if not target.is_file():
        return
    notebook = read_notebook(page_file(build.root, page))
    _, merged = cache.merge_match_into_notebook(notebook)
    tmp = target.with_suffix(".tmp")
    tmp.write_text(nbformat.writes(merged), encoding="utf-8")
    tmp.replace(target)


def commit(build: Build, env: dict[str, str]) -> dict[str, float | None]:
    """Store the key of every page whose current notebook the cache holds.

    Returns each page's execution seconds as the cache recorded them (None: not cached, so
    it failed or was never executed; it will be executed again next time). Each cached page's
    copy in ``_build/jupyter_execute/`` gets the cached outputs (myst-nb writes the page's
    unexecuted notebook there when it takes the outputs from the cache).
    """
    cache, stored = _cache(build), _stored(build)
    seconds: dict[str, float | None] = {}
    for page, key in page_keys(build.root, env, build.toc).items():
        record = _cached(cache, page_file(build.root, page))
        if record is None:
            stored.pop(page, None)
            seconds[page] = None
        else:
            stored[page] = key
            seconds[page] = record.data.get("execution_seconds")
            _write_executed(build, cache, page)
    build.keys_file.parent.mkdir(parents=True, exist_ok=True)
    tmp = build.keys_file.with_suffix(".tmp")
    tmp.write_text(json.dumps(stored, indent=1, sort_keys=True), encoding="utf-8")
    tmp.replace(build.keys_file)
    return seconds


def report(seconds: dict[str, float | None], ran: list[str]) -> str:
    """One line a page: executed this time or taken from the cache, seconds, budget."""
    lines = []
    for page, secs in seconds.items():
        budget = (
            BUDGET_SECONDS.get(page, DEFAULT_BUDGET)
            if page.startswith("notebooks/")
            else None
        )
        how = "executed" if page in ran else "cached  "
        if secs is None:
            lines.append(f"{page:<36} not executed (failed or not built)")
            continue
        late = page in ran and budget is not None and secs > budget  # this build's time
        over = f"  OVER its {budget} s budget" if late else ""
        lines.append(f"{page:<36} {how} {secs:7.1f} s{over}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("stale", "execute", "commit"))
    parser.add_argument(
        "--jobs", type=int, default=2, help="chapters executed at once (execute)"
    )
    parser.add_argument("--root", default=str(ROOT), help="the book's source folder")
    parser.add_argument(
        "--out", help="jupyter-book's --path-output (default: the root)"
    )
    parser.add_argument(
        "--toc", help="the table of contents (default: <root>/_toc.yml)"
    )
    args = parser.parse_args(argv)
    root = Path(args.root).resolve()
    build = Build(
        root,
        Path(args.out).resolve() if args.out else None,
        Path(args.toc).resolve() if args.toc else None,
    )
    env = environment()
    if args.action == "stale":
        changed = stale(build, env)
        build.stale_file.parent.mkdir(parents=True, exist_ok=True)
        build.stale_file.write_text(json.dumps(changed), encoding="utf-8")
        what = ", ".join(re.sub(r"^notebooks/", "", p) for p in changed) or "none"
        print(f"pages to execute ({env['COURSE_PROFILE']} profile): {what}")
    elif args.action == "execute":
        changed = []
        if build.stale_file.is_file():
            changed = json.loads(build.stale_file.read_text(encoding="utf-8"))
        execute(build, changed, args.jobs)
    else:
        ran = []
        if build.stale_file.is_file():
            ran = json.loads(build.stale_file.read_text(encoding="utf-8"))
        print(report(commit(build, env), ran))


if __name__ == "__main__":
    main()

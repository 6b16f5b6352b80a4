"""Re-execute a page of the book only when something it depends on changed.

    python tools/book_cache.py stale     # before `jupyter-book build`: forget what is stale
    python tools/book_cache.py execute --jobs 2   # then: execute the stale chapters side by side
    python tools/book_cache.py commit    # after it: remember what was executed; per-page times
    python tools/book_cache.py toc 09 > _build/toc-09.yml   # make chapter N=09: its toc
    python tools/book_cache.py stale --out _build/chapter-09 --toc _build/toc-09.yml

jupyter-cache keys a notebook on its code cells only; a page's key here also holds the
``course_lib`` files its code loads, the ``ENVIRONMENT`` and the ``PINS`` (the Results page's,
every chapter's). A page whose key changed is dropped from the cache, so the build executes it.
"""

import argparse
import ast
import hashlib
import json
import os
import re
import sys
import time
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from modulefinder import ModuleFinder
from pathlib import Path

import nbformat
import yaml
from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn
from jupyter_cache.executors.utils import single_nb_execution
from notebook_run import read_notebook, write_whole  # tools/, beside this file

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "course_lib"
PINS = ("requirements.txt", "pyproject.toml")
ENVIRONMENT = ("COURSE_PROFILE", "COURSE_WIDGET_MODE", "COURSE_DEVICE", "COURSE_SEED")
BUDGET_SECONDS = {"notebooks/09_pretraining": 1200}  # every other chapter: 600
BOOK_BUDGET = 60  # minutes, every chapter, BOOK_JOBS=2 on 2 cores


class Build:
    """Where a build keeps its state: ``<out>/_build/`` (``jupyter-book build --path-output``)."""

    def __init__(self, root: Path, out: Path | None = None, toc: Path | None = None):
        self.root, self.toc = root, toc or root / "_toc.yml"
        self.state = (out or root) / "_build"
        self.cache_dir = self.state / ".jupyter_cache"
        self.keys_file = self.state / ".book_keys.json"
        self.stale_file = self.state / ".book_stale.json"


def pages(root: Path, toc_file: Path | None = None) -> list[str]:
    """The executed pages of the toc ("notebooks/01_word_vectors", "results", ...): each
    ``.ipynb``, and each ``.md`` whose front matter names a kernel (a MyST notebook)."""
    toc = yaml.safe_load((toc_file or root / "_toc.yml").read_text(encoding="utf-8"))
    found = []
    for page in (c["file"] for part in toc["parts"] for c in part["chapters"]):
        path = page_file(root, page)
        head = path.read_text(encoding="utf-8")[:1000] if path.suffix == ".md" else ""
        front = head.split("\n---", 1)[0] if head.startswith("---") else ""
        if "\nkernelspec:" in front or (path.suffix == ".ipynb" and path.is_file()):
            found.append(page)
    return found


def chapter_toc(root: Path, number: str) -> dict:
    """``_toc.yml`` with only the chapter whose file starts with ``notebooks/<number>_``."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    prefix = f"notebooks/{number.zfill(2)}_"
    files = [c["file"] for p in toc["parts"] for c in p["chapters"]]
    if not any(f.startswith(prefix) for f in files):
        raise SystemExit(f"no chapter {number!r} in _toc.yml; the chapters are {files}")
    # the other chapters and the Results page go
    others = [f for f in files if f.startswith(("notebooks/", "results"))]
    others = [f for f in others if not f.startswith(prefix)]
    for part in toc["parts"]:
        part["chapters"] = [c for c in part["chapters"] if c["file"] not in others]
    return toc


def page_file(root: Path, page: str) -> Path:
    """A page's file: its MyST text source (``.md``) where it has one, else its ``.ipynb``."""
    text = root / f"{page}.md"
    return text if text.is_file() else root / f"{page}.ipynb"


def notebook_code(path: Path) -> str:
    """A notebook's code cells as one program: IPython magics (``%pip``) become ``pass``, and
    ``check("chNN.name", ...)`` imports ``course_lib.exercises.chNN`` (as it does on first use)."""
    lines = []
    for cell in read_notebook(path).cells:
        if cell.cell_type == "code":
            lines.append(re.sub(r"(?m)^([ \t]*)[%!].*$", r"\1pass", cell.source))
            for chapter in re.findall(r"""check\(\s*["'](ch\d\d)\.""", cell.source):
                lines.append(f"import {PACKAGE}.exercises.{chapter}")
    return "\n".join(lines)


class _Finder(ModuleFinder):
    """A ModuleFinder that also loads the submodule of a name in a package's ``_EXPORTS`` (which
    its ``__getattr__`` imports on first use, PEP 562, as ``course_lib.widgets``)."""

    def import_module(self, partname, fqname, parent):
        module = super().import_module(partname, fqname, parent)
        init = getattr(parent, "__file__", None) or ""
        if module is None and init.endswith("__init__.py"):
            text = Path(init).read_text(encoding="utf-8")
            table = re.search(r"^_EXPORTS = (\{[^}]*\})", text, re.M)
            lazy = ast.literal_eval(table[1]).get(partname) if table else None
            if lazy:
                super().import_module(lazy, f"{parent.__name__}.{lazy}", parent)
        return module


def module_closure(root: Path, code: str) -> list[Path]:
    """Every ``course_lib`` file the program ``code`` loads, with the package data (the
    widgets' JavaScript, manifests) of every package involved. Sorted, each once."""
    finder = _Finder(path=[str(root)])
    finder.scan_code(compile(code, "<notebook>", "exec"), finder.add_module("__main__"))
    files: set[Path] = set()
    for name, module in finder.modules.items():
        if name.split(".")[0] == PACKAGE and module.__file__:
            files.add(Path(module.__file__))
            if module.__path__:  # a package: its data too
                tree = Path(module.__path__[0]).rglob("*")
                data = [p for p in tree if p.is_file() and "__pycache__" not in p.parts]
                files |= {p for p in data if p.suffix not in (".py", ".pyc")}
    return sorted(files)


def _digest(chunks: Iterable[bytes]) -> str:
    """A short hash of the hashes of ``chunks``."""
    hashes = b"".join(hashlib.sha256(chunk).digest() for chunk in chunks)
    return hashlib.sha256(hashes).hexdigest()[:16]


def environment() -> dict[str, str]:
    """What a build's outputs depend on beyond the sources: profile, widget mode, device, seed."""
    env = {name: os.environ.get(name, "") for name in ENVIRONMENT}
    if not env["COURSE_PROFILE"]:  # the default depends on the machine
        sys.path.insert(0, str(ROOT))
        from course_lib.runtime import profile

        env["COURSE_PROFILE"] = profile()
    return env


def page_keys(root: Path, env: dict, toc: Path | None = None) -> dict[str, str]:
    """The key of every notebook page; the Results page's includes every chapter's."""
    common = [json.dumps(env, sort_keys=True).encode()]
    common += [(root / p).read_bytes() for p in PINS if (root / p).is_file()]
    keys: dict[str, str] = {}
    for page in pages(root, toc):
        files = module_closure(root, notebook_code(page_file(root, page)))
        chunks = [str(p.relative_to(root)).encode() + p.read_bytes() for p in files]
        keys[page] = _digest(common + chunks)
    chapters = [keys[p].encode() for p in keys if p.startswith("notebooks/")]
    for page in keys:
        if not page.startswith("notebooks/"):  # the Results page reads every chapter's
            keys[page] = _digest([keys[page].encode(), *chapters])
    return keys


def _read_json(path: Path, default):
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else default


def _cached(cache, path: Path):
    """The cache record of the notebook at ``path`` as it is now, or None."""
    try:
        return cache.match_cache_notebook(read_notebook(path))
    except KeyError:
        return None


def stale(build: Build, env: dict[str, str]) -> list[str]:
    """Forget the executed copy of every page whose key changed; return those pages."""
    stored, cache = _read_json(build.keys_file, {}), get_cache(str(build.cache_dir))
    changed = []
    for page, key in page_keys(build.root, env, build.toc).items():
        if stored.get(page) != key:
            changed.append(page)
            path = page_file(build.root, page)
            if (record := _cached(cache, path)) is not None:
                cache.remove_cache(record.pk)
            path.touch()  # Sphinx reads a page again only when its source is newer
    return changed


def _execute_one(path: str, timeout: int) -> tuple[str, float, str | None]:
    """Execute one notebook in its folder (a worker process); its JSON, seconds, error."""
    nb, folder = read_notebook(Path(path)), str(Path(path).parent)
    result = single_nb_execution(nb, cwd=folder, timeout=timeout, allow_errors=False)
    error = None
    if result.err is not None:  # the error's name, and its last lines: the failing cell
        tail = "\n".join(str(result.err).strip().splitlines()[-12:])
        error = f"{type(result.err).__name__}\n{tail}"
    return nbformat.writes(nb), result.time, error


def execute(build: Build, changed: list[str], jobs: int) -> dict[str, str | None]:
    """Execute the stale chapters ``jobs`` at a time, the longest first, caching each that
    succeeds as myst-nb would; return each one's error (None: cached; else the build runs it)."""
    todo = [p for p in changed if p.startswith("notebooks/")]
    todo.sort(key=lambda p: (-BUDGET_SECONDS.get(p, 600), p))
    if not todo:
        return {}
    cache = get_cache(str(build.cache_dir))
    config = yaml.safe_load((build.root / "_config.yml").read_text(encoding="utf-8"))
    timeout = int(config.get("execute", {}).get("timeout", 3600))
    errors: dict[str, str | None] = {}
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
        paths = {p: page_file(build.root, p) for p in todo}
        futures = {pool.submit(_execute_one, str(paths[p]), timeout): p for p in todo}
        for future in as_completed(futures):
            page = futures[future]
            try:
                text, seconds, errors[page] = future.result()
            except Exception as err:  # noqa: BLE001 (a dead worker: the build runs it again)
                text, seconds, errors[page] = "", 0.0, f"{type(err).__name__}: {err}"
            if errors[page] is not None:
                print(f"{page} failed ({errors[page]}): the build runs it again")
                continue
            nb = nbformat.reads(text, as_version=4)
            data = {"execution_seconds": seconds}
            bundle = CacheBundleIn(nb, str(paths[page]), data=data)
            cache.cache_notebook_bundle(bundle, check_validity=False, overwrite=True)
            print(f"executed {page} in {seconds:.0f} s")
    wall = (time.perf_counter() - start) / 60
    over = "  OVER" if wall > BOOK_BUDGET else ""
    print(f"{len(todo)} chapters in {wall:.1f} min (the book's budget: 60 min){over}")
    return errors


def commit(build: Build, env: dict[str, str]) -> dict[str, float | None]:
    """Store the key of every page the cache holds, with its outputs in the build's unexecuted
    copy (``_build/jupyter_execute``); return each page's seconds (None: not executed)."""
    cache, stored = get_cache(str(build.cache_dir)), _read_json(build.keys_file, {})
    seconds = {}
    for page, key in page_keys(build.root, env, build.toc).items():
        path = page_file(build.root, page)
        record = _cached(cache, path)
        seconds[page] = record.data.get("execution_seconds") if record else None
        if record is None:
            stored.pop(page, None)
            continue
        stored[page] = key
        executed = build.state / "jupyter_execute" / f"{page}.ipynb"
        if executed.is_file():
            _, merged = cache.merge_match_into_notebook(read_notebook(path))
            write_whole(executed, nbformat.writes(merged))
    write_whole(build.keys_file, json.dumps(stored, indent=1, sort_keys=True))
    return seconds


def report(seconds: dict[str, float | None], ran: list[str]) -> str:
    """One line a page: executed this time or taken from the cache, seconds, budget."""
    lines = []
    for page, secs in seconds.items():
        if secs is None:
            lines.append(f"{page:<36} not executed (failed or not built)")
            continue
        budget = BUDGET_SECONDS.get(page, 600)
        late = page in ran and page.startswith("notebooks/") and secs > budget
        over = f"  OVER its {budget} s budget" if late else ""  # this build's time
        how = "executed" if page in ran else "cached  "
        lines.append(f"{page:<36} {how} {secs:7.1f} s{over}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("stale", "execute", "commit", "toc"))
    parser.add_argument("chapter", nargs="?", default="", help="toc: its number")
    parser.add_argument("--jobs", type=int, default=2, help="execute: chapters at once")
    parser.add_argument("--root", type=Path, default=ROOT, help="the book's sources")
    parser.add_argument("--out", type=Path, help="jupyter-book's --path-output")
    parser.add_argument("--toc", type=Path, help="the toc (default: <root>/_toc.yml)")
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # each line as soon as it is printed
    if args.action == "toc":
        toc = chapter_toc(args.root, args.chapter)
        return print(yaml.safe_dump(toc, sort_keys=False), end="")
    out, toc = (path and path.resolve() for path in (args.out, args.toc))
    build, env = Build(args.root.resolve(), out, toc), environment()
    ran = _read_json(build.stale_file, [])  # the pages the last ``stale`` found
    if args.action == "stale":
        changed = stale(build, env)
        write_whole(build.stale_file, json.dumps(changed))
        what = ", ".join(p.removeprefix("notebooks/") for p in changed) or "none"
        print(f"pages to execute ({env['COURSE_PROFILE']} profile): {what}")
    elif args.action == "execute":
        execute(build, ran, args.jobs)
    else:
        print(report(commit(build, env), ran))


if __name__ == "__main__":
    main()

"""Print a table of contents that holds one chapter and the book's other pages.

    python tools/chapter_toc.py 09 > _build/toc-09.yml

``make chapter N=09`` builds that chapter's page with it, without executing the others. Links
from the reference pages (the errata page's links to other chapters' boxes) stay unresolved
in such a build, so it runs without ``-W``; ``make book`` is the whole book's check.
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def chapter_toc(number: str, root: Path = ROOT) -> dict:
    """``_toc.yml`` with only the chapter whose file starts with ``notebooks/<number>_``."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    prefix = f"notebooks/{number.zfill(2)}_"
    found = [
        c for p in toc["parts"] for c in p["chapters"] if c["file"].startswith(prefix)
    ]
    if not found:
        chapters = [c["file"] for p in toc["parts"] for c in p["chapters"]]
        raise SystemExit(
            f"no chapter {number!r} in _toc.yml; the chapters are {chapters}"
        )
    for part in toc["parts"]:
        part["chapters"] = [
            c
            for c in part["chapters"]
            if c in found or not c["file"].startswith(("notebooks/", "results"))
        ]
    return toc


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python tools/chapter_toc.py NN")
    print(yaml.safe_dump(chapter_toc(sys.argv[1]), sort_keys=False), end="")

"""Link the first use of every glossary term in each chapter with MyST's {term} role.

    python tools/link_terms.py          # edit the chapter notebooks in place
    python tools/link_terms.py --check  # exit 1, listing what it would link, if anything

The terms are the English term lines of ``book/glossary.md`` (a Chinese line is not looked
for). In each chapter's text source, ``notebooks/NN_*.md``, the first prose occurrence of a
term (a plural "s"/"es" allowed; case-insensitive unless the term has capitals) becomes
``{term}`...```, unless the chapter links it already. Headings, code, math, links, roles and
HTML are never touched, and a shorter term is never linked inside a longer one
("backpropagation" inside "backpropagation through time"). Only markdown cells change, and
the chapter's ``.ipynb`` is written again from its source (``tools/notebooks_sync.py``); run
it after adding a chapter or a glossary entry.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import notebooks_sync  # tools/, beside this file

ROOT = Path(__file__).resolve().parents[1]
MASKS = [
    r"```(?!\{dropdown\})[\s\S]*?```",  # code fences (a dropdown's prose is kept)
    r"^````\{dropdown\}.*$",
    r"^````$",
    r"^#.*$",  # headings
    r"\$\$[\s\S]*?\$\$",
    r"(?<!\\)\$[^$\n]+?(?<!\\)\$",  # math
    r"\{[a-z:-]+\}`[^`]*`",  # roles, with their content
    r"`[^`\n]*`",  # inline code
    r"!?\[[^\]]*\]\([^)]*\)",  # links and images
    r"<[^>\n]+>",  # html
    r"^\*CS224N.*$",  # a chapter's lecture line
]
CJK = re.compile(r"[\u4e00-\u9fff]")


def glossary_terms(root: Path = ROOT) -> list[str]:
    """The English term lines of the glossary, longest first."""
    text = (root / "book" / "glossary.md").read_text(encoding="utf-8")
    body = text.split("```{glossary}\n", 1)[1].rsplit("```", 1)[0]
    terms = [
        line.strip()
        for line in body.splitlines()
        if line and not line.startswith(" ") and not CJK.search(line)
    ]
    return sorted(terms, key=len, reverse=True)


def _masked(text: str) -> list[tuple[int, int]]:
    return [
        (m.start(), m.end()) for p in MASKS for m in re.finditer(p, text, flags=re.M)
    ]


def _free(spans: list[tuple[int, int]], a: int, b: int) -> bool:
    return all(b <= s or a >= e for s, e in spans)


def link_chapter(texts: list[str], terms: list[str]) -> tuple[list[str], list[str]]:
    """The markdown cells' texts with first uses linked, and the terms newly linked."""
    linked = {
        t.lower()
        for x in texts
        for t in re.findall(r"\{term\}`(?:[^`<]*<)?([^`>]+)>?`", x)
    }
    taken = [_masked(t) for t in texts]
    edits: list[list[tuple[int, int, str]]] = [[] for _ in texts]
    done = []
    for term in terms:
        flags = 0 if re.search(r"[A-Z]", term) else re.I
        pattern = re.compile(
            r"(?<![\w-])" + re.escape(term) + r"(e?s)?(?![\w-])", flags
        )
        spans = [[(m.start(), m.end()) for m in pattern.finditer(t)] for t in texts]
        if term.lower() not in linked:
            for i, text in enumerate(texts):
                hit = next(
                    (m for m in pattern.finditer(text) if _free(taken[i], *m.span())),
                    None,
                )
                if hit:
                    word = hit.group(0)
                    same = word.lower() == term.lower()
                    role = f"{{term}}`{word}`" if same else f"{{term}}`{word} <{term}>`"
                    edits[i].append((hit.start(), hit.end(), role))
                    done.append(term)
                    break
        for i, found in enumerate(spans):  # shorter terms never link inside this one
            taken[i].extend(found)
    out = []
    for text, changes in zip(texts, edits):
        for a, b, role in sorted(changes, reverse=True):
            text = text[:a] + role + text[b:]
        out.append(text)
    return out, done


def main(argv: list[str]) -> int:
    check = "--check" in argv
    terms = glossary_terms()
    pending = []
    for path in notebooks_sync.sources(ROOT):
        nb = notebooks_sync.read_source(path)
        cells = [c for c in nb.cells if c.cell_type == "markdown"]
        texts, done = link_chapter([c.source for c in cells], terms)
        pending += [f"{path.name}: {t}" for t in done]
        if done and not check:
            for cell, text in zip(cells, texts):
                cell.source = text
            notebooks_sync.write_source(path, nb)
            notebooks_sync.sync(path)
    if pending:
        print(("would link " if check else "linked ") + "; ".join(pending))
    return 1 if check and pending else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

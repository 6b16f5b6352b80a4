"""Link the first use of every glossary term in each chapter with MyST's {term} role.

    python tools/link_terms.py          # edit the chapter notebooks in place
    python tools/link_terms.py --check  # exit 1, listing what it would link, if anything

In each chapter's ``.md``, the first prose use of each English term of ``book/glossary.md`` (a
plural allowed; case-insensitive unless the term has capitals) becomes ``{term}`...```, unless
the chapter links it already: never in headings, code, math, links, roles or HTML, nor a shorter
term inside a longer one. The chapter's ``.ipynb`` is written again (tools/notebooks_sync.py).
"""

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
    """The English term lines of the glossary (not a Chinese one), longest first."""
    text = (root / "book" / "glossary.md").read_text(encoding="utf-8")
    body = text.split("```{glossary}\n", 1)[1].rsplit("```", 1)[0]
    lines = [line for line in body.splitlines() if line and not line.startswith(" ")]
    terms = [line.strip() for line in lines if not CJK.search(line)]
    return sorted(terms, key=len, reverse=True)


def link_chapter(texts: list[str], terms: list[str]) -> tuple[list[str], list[str]]:
    """The markdown cells' texts with first uses linked, and the terms newly linked."""
    role = r"\{term\}`(?:[^`<]*<)?([^`>]+)>?`"
    linked = {t.lower() for text in texts for t in re.findall(role, text)}
    # spans no link may touch: the masks, then each longer term's uses
    taken = [[m.span() for p in MASKS for m in re.finditer(p, t, re.M)] for t in texts]
    edits: list[list[tuple[int, int, str]]] = [[] for _ in texts]
    done = []
    for term in terms:
        flags = 0 if re.search(r"[A-Z]", term) else re.I
        pattern = re.compile(rf"(?<![\w-]){re.escape(term)}(e?s)?(?![\w-])", flags)
        uses = [[m.span() for m in pattern.finditer(text)] for text in texts]
        free = (
            (i, a, b)
            for i, spans in enumerate(uses)
            for a, b in spans
            if all(b <= s or a >= e for s, e in taken[i])
        )
        if term.lower() not in linked and (hit := next(free, None)):
            i, a, b = hit
            word = texts[i][a:b]
            label = word if word.lower() == term.lower() else f"{word} <{term}>"
            edits[i].append((a, b, f"{{term}}`{label}`"))
            done.append(term)
        for i, spans in enumerate(uses):  # shorter terms never link inside this one
            taken[i].extend(spans)
    out = []
    for text, changes in zip(texts, edits):
        for a, b, link in sorted(changes, reverse=True):
            text = text[:a] + link + text[b:]
        out.append(text)
    return out, done


def main(argv: list[str]) -> int:
    check, terms, pending = "--check" in argv, glossary_terms(), []
    for path in notebooks_sync.sources(ROOT):
        nb = notebooks_sync.read_notebook(path)
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

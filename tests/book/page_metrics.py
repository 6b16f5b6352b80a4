"""How a built chapter page reads, measured in headless Chromium at a desktop width.

    python tests/book/page_metrics.py [_build/html] [--json out.json]
    python tests/book/page_metrics.py _build/chapter-03/_build/html   # after make chapter N=03

prints, for every chapter page of the built book, what book/writing.md limits: the code lines
a reader sees (cells not folded), shown cells over 25 lines, code blocks wider than the text
column, shown lines that only record a number or assert a claim, outputs that are only a stray
value, words about the build, figures on the page against the figures the executed notebook
drew, and the page's height. ``tests/book/test_reader_pages.py`` holds every chapter to the
limits with the same measurements.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# A comment for a tool ending a line (fmt skip/off/on, a noqa with its codes, a type-ignore):
# a chapter's shown code carries none (the formatter lays it out; notebooks/ruff.toml).
PRAGMA = re.compile(
    r"[ \t]*#[ \t]*(?:fmt:[ \t]*(?:skip|off|on)"
    r"|noqa(?::[ \t]*[A-Z]+[0-9]+(?:[, \t]+[A-Z]+[0-9]+)*)?"
    r"|type:[ \t]*ignore(?:\[[\w, -]+\])?)[ \t]*$"
)
WIDTH, HEIGHT = 1280, 900
MAX_CELL_LINES = 25
MAX_PAGE_LINES = 400
# Lines that exist for the build, not the reader: a number recorded for the prose, a check.
RECORD_LINE = re.compile(r"^\s*(?:ch\d\d|record|rec)\(")
ASSERT_LINE = re.compile(r"^\s*assert\b")
# Words about how the book was made, which a chapter's prose never uses.
BUILD_WORDS = re.compile(
    r"closing note|the course's target|is not met|target is met|for the notes?\b"
    r"|the book build|when the book (?:is|was) built|nbval|glued? (?:value|number)s?",
    re.I,
)
# An output that is one short value (a number, a bare string or tuple), printed by accident.
STRAY = re.compile(r"^\s*(?:[-+\d.eE,()\[\]'\" ]+|None|True|False)\s*$")

MEASURE_JS = """() => {
  const article = document.querySelector('article.bd-article');
  const folded = el => !!el.closest('details');
  const cells = [...article.querySelectorAll('div.cell')];
  const shown = [];
  for (const cell of cells) {
    const input = cell.querySelector(':scope > div.cell_input, :scope > details > div.cell_input');
    if (input && !folded(input)) {
      const pre = input.querySelector('pre');
      shown.push(pre ? pre.innerText.replace(/\\n$/, '') : '');
    }
  }
  const wide = [];
  for (const pre of article.querySelectorAll('pre')) {
    if (folded(pre) || pre.offsetParent === null) continue;
    if (pre.scrollWidth > pre.clientWidth + 1) {
      const line = pre.innerText.split('\\n').reduce((a, b) => (b.length > a.length ? b : a), '');
      wide.push(line.slice(0, 100));
    }
  }
  const plain = [];
  for (const out of article.querySelectorAll('div.cell_output div.output.text_plain pre')) {
    plain.push(out.innerText);
  }
  const images = [...article.querySelectorAll('div.cell_output img')].map(i => ({
    src: i.getAttribute('src'), width: i.naturalWidth, height: i.naturalHeight,
  }));
  const pre = document.querySelector('article pre');
  return {
    shown, wide, plain, images,
    text: article.innerText,
    height: document.documentElement.scrollHeight,
    column: Math.round(article.getBoundingClientRect().width),
    preWidth: pre ? Math.round(pre.clientWidth) : 0,
    charWidth: (() => {
      if (!pre) return 0;
      const span = document.createElement('span');
      span.textContent = 'x'.repeat(100);
      pre.appendChild(span);
      const w = span.getBoundingClientRect().width / 100;
      span.remove();
      return w;
    })(),
  };
}"""


@dataclass
class PageMetrics:
    """What one chapter page shows a reader (see the module docstring)."""

    page: str
    shown_lines: int = 0
    long_cells: list[int] = field(default_factory=list)
    wide_blocks: list[str] = field(default_factory=list)
    record_lines: list[str] = field(default_factory=list)
    assert_lines: list[str] = field(default_factory=list)
    pragma_lines: list[str] = field(default_factory=list)
    stray_outputs: list[str] = field(default_factory=list)
    build_words: list[str] = field(default_factory=list)
    figures: int = 0
    figures_drawn: int = 0
    empty_figures: list[str] = field(default_factory=list)
    height: int = 0
    columns: int = 0


def chapters(root: Path = ROOT) -> list[str]:
    """The chapter pages of _toc.yml ("notebooks/01_word_vectors", ...)."""
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    files = [c["file"] for part in toc["parts"] for c in part["chapters"]]
    return [f for f in files if f.startswith("notebooks/")]


def figures_drawn(executed: Path) -> int:
    """Images in the executed notebook's outputs, and at least one per ``plt.show()``."""
    nb = json.loads(executed.read_text(encoding="utf-8"))
    total = 0
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        images = sum(
            1
            for out in cell.get("outputs", [])
            if any(k.startswith("image/") for k in out.get("data", {}))
        )
        shows = "".join(cell["source"]).count("plt.show()")
        total += max(images, shows)
    return total


def blank_image(page: Path, src: str) -> bool:
    """True when the image (a file beside ``page`` or a data: URI) is missing or one colour."""
    import base64
    import io

    from PIL import Image

    if src.startswith("data:"):
        source = io.BytesIO(base64.b64decode(src.split(",", 1)[1]))
    else:
        source = (page.parent / src.split("?")[0]).resolve()
        if not source.is_file():
            return True
    with Image.open(source) as img:
        extrema = img.convert("L").getextrema()
    return extrema[0] == extrema[1]


def measure(html: Path, name: str, page, executed_dir: Path) -> PageMetrics:
    """Open one built chapter page in ``page`` (a Playwright page) and measure it."""
    path = html / f"{name}.html"
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    page.goto(path.as_uri(), wait_until="load")
    raw = page.evaluate(MEASURE_JS)
    m = PageMetrics(page=name, height=raw["height"])
    if raw["charWidth"]:
        m.columns = int(raw["preWidth"] // raw["charWidth"])
    for text in raw["shown"]:
        lines = text.splitlines()
        m.shown_lines += len(lines)
        if len(lines) > MAX_CELL_LINES:
            m.long_cells.append(len(lines))
        m.record_lines += [ln.strip() for ln in lines if RECORD_LINE.match(ln)]
        m.assert_lines += [ln.strip() for ln in lines if ASSERT_LINE.match(ln)]
        m.pragma_lines += [ln.strip() for ln in lines if PRAGMA.search(ln)]
    m.wide_blocks = raw["wide"]
    m.stray_outputs = [t.strip() for t in raw["plain"] if STRAY.match(t)]
    m.build_words = sorted({w.group(0) for w in BUILD_WORDS.finditer(raw["text"])})
    m.figures = len(raw["images"])
    for image in raw["images"]:
        if not image["width"] or blank_image(path, image["src"]):
            m.empty_figures.append(image["src"][:60])
    executed = executed_dir / f"{name}.ipynb"
    m.figures_drawn = figures_drawn(executed) if executed.is_file() else 0
    return m


def measure_book(html: Path) -> list[PageMetrics]:
    """Every chapter page built in ``html`` (a whole book, or one chapter's build)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from widget_browser import offline_page

    html = html.resolve()
    built = [name for name in chapters() if (html / f"{name}.html").is_file()]
    if not built:
        raise SystemExit(f"no chapter page is built in {html}")
    executed = html.parent / "jupyter_execute"
    with offline_page() as browser:
        return [measure(html, name, browser.page, executed) for name in built]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html", nargs="?", default=str(ROOT / "_build" / "html"))
    parser.add_argument("--json", help="also write the measurements to this file")
    args = parser.parse_args(argv)
    metrics = measure_book(Path(args.html))
    head = f"{'chapter':<34} {'lines':>5} {'>25':>3} {'wide':>4} {'rec':>3} {'ass':>3}"
    print(head + f" {'stray':>5} {'words':>5} {'figs':>9} {'height':>7} {'cols':>4}")
    for m in metrics:
        print(
            f"{m.page:<34} {m.shown_lines:>5} {len(m.long_cells):>3} "
            f"{len(m.wide_blocks):>4} {len(m.record_lines):>3} {len(m.assert_lines):>3} "
            f"{len(m.stray_outputs):>5} {len(m.build_words):>5} "
            f"{m.figures:>4}/{m.figures_drawn:<4} {m.height:>7} {m.columns:>4}"
        )
    if args.json:
        Path(args.json).write_text(
            json.dumps([asdict(m) for m in metrics], indent=1), encoding="utf-8"
        )


if __name__ == "__main__":
    main()

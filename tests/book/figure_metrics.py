"""How each output figure on a built chapter page reads at a desktop width (1280 px).

    python tests/book/figure_metrics.py [_build/html] [--json out.json]

lists, for every chapter page, the figures a reader cannot read as book/writing.md asks. An
image on the page is matched, by its SHA-256 (the name the book gives its file), to the
record its executed notebook keeps beside the PNG (``course_lib/figure_record.py``: the
book's kernels describe every matplotlib figure they display). A figure is flagged when it
is shown narrower than its natural width (shrunk); when an axis with tick labels has no axis
label; when its smallest text is under 9 px at the size it is shown (the record's smallest
font in points, times the PNG's dpi / 72, times shown / natural width); when tick labels
collide or other texts overprint each other; when an axes (a colour bar) covers another's
labels; when more than half of a colour scale lies beyond its data; when series in several
colours have no legend; and when it has no record at all (then nothing can be said of it).
Each widget's text must be 9 px to the body's size. ``tests/book/test_figures.py`` holds
every chapter to it.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from course_lib.figure_record import MIME  # noqa: E402

WIDTH, HEIGHT = 1280, 900
MIN_TEXT_PX = 9.0

# (a widget's own images are its business: the widgets' page tests check them)
IMAGES_JS = """() => [...document.querySelectorAll('article.bd-article div.cell_output img')]
  .filter(i => !i.closest('div.course-widget'))
  .map(i => ({src: i.getAttribute('src'), natural: i.naturalWidth,
              shown: i.getBoundingClientRect().width
                - parseFloat(getComputedStyle(i).paddingLeft)
                - parseFloat(getComputedStyle(i).paddingRight)}))"""

# Each widget's text: its size in px as shown (an SVG's text scaled by the SVG's own scale),
# and the size of the page's body text.
WIDGET_TEXT_JS = """() => {
  const body = parseFloat(getComputedStyle(document.querySelector('article.bd-article p')
    || document.body).fontSize);
  return [...document.querySelectorAll('article.bd-article div.course-widget')].map(w => {
    const sizes = [];
    const walker = document.createTreeWalker(w, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!n.textContent.trim() || !el || el.closest('style, script, noscript')) continue;
      if (!el.getClientRects().length) continue;
      let px = parseFloat(getComputedStyle(el).fontSize);
      const svg = el.closest('svg');
      if (svg && el.getScreenCTM && el.getScreenCTM()) px *= Math.abs(el.getScreenCTM().a);
      sizes.push([Math.round(px * 10) / 10, n.textContent.trim().slice(0, 30)]);
    }
    return {widget: w.dataset.courseWidget, body, sizes};
  });
}"""


@dataclass
class WidgetText:
    """The text of one widget on a chapter page: its smallest and largest, in px."""

    page: str
    widget: str
    smallest: tuple[float, str]
    largest: tuple[float, str]
    body: float
    problems: list[str] = field(default_factory=list)


def widget_text(page, name: str) -> list[WidgetText]:
    """Every widget of the page open in ``page`` (rendered): text under 9 px or above the
    body's size (a label set as a heading) is flagged."""
    page.wait_for_function(
        "() => [...document.querySelectorAll('div.course-widget')].every(w =>"
        " w.querySelector('.cw') || w.textContent.includes('could not start'))",
        timeout=15_000,
    )
    out = []
    for w in page.evaluate(WIDGET_TEXT_JS):
        if not w["sizes"]:
            continue
        small = tuple(min(w["sizes"]))
        large = tuple(max(w["sizes"]))
        m = WidgetText(name, w["widget"], small, large, w["body"])
        if small[0] < MIN_TEXT_PX:
            m.problems.append(f"text {small[0]} px ({small[1]!r})")
        if large[0] > w["body"] + 0.5:
            m.problems.append(
                f"text {large[0]} px, above the body's {w['body']} ({large[1]!r})"
            )
        out.append(m)
    return out


@dataclass
class FigureMetrics:
    """One output image of a chapter page, and what keeps a reader from reading it."""

    page: str
    cell: int | None
    title: str
    natural: int
    shown: float
    min_text_px: float | None
    problems: list[str] = field(default_factory=list)


def records(executed: Path) -> dict[str, tuple[int, dict]]:
    """PNG SHA-256 -> (cell number, figure record) for the image outputs of a notebook."""
    nb = json.loads(executed.read_text(encoding="utf-8"))
    out = {}
    for index, cell in enumerate(nb["cells"]):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "image/png" not in data:
                continue
            png = data["image/png"]
            png = "".join(png) if isinstance(png, list) else png
            digest = hashlib.sha256(base64.b64decode(png)).hexdigest()
            out[digest] = (index, data.get(MIME))
    return out


def _digest(page: Path, src: str) -> str:
    if src.startswith("data:"):
        return hashlib.sha256(base64.b64decode(src.split(",", 1)[1])).hexdigest()
    path = (page.parent / src.split("?")[0]).resolve()
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""


def problems(
    record: dict | None, natural: int, shown: float
) -> tuple[list[str], float | None]:
    """What keeps a reader from reading one figure; and its smallest text in px as shown."""
    out = []
    if natural and shown < natural - 1:
        out.append(
            f"shrunk to {shown / natural:.0%} ({natural} px shown at {shown:.0f})"
        )
    if record is None:
        return out + [
            "no figure record (not a matplotlib figure the book's kernel drew)"
        ], None
    px = None
    if record.get("min_font_pt"):
        px = (
            record["min_font_pt"] * record["dpi"] / 72 * (min(shown, natural) / natural)
        )
        if px < MIN_TEXT_PX:
            out.append(f"smallest text {px:.1f} px ({record['min_font_text']!r})")
    for key, what in (
        ("unlabelled", "no axis label"),
        ("collisions", "tick labels collide"),
        ("overprinted", "texts printed over each other"),
        ("covered", "covers labels"),
        ("unfitted", "colour scale over twice its data's range"),
        ("unkeyed", "colours without a legend"),
    ):
        if record.get(key):
            out.append(f"{what}: {'; '.join(record[key])}")
    return out, px


def measure(html: Path, name: str, page, executed_dir: Path) -> list[FigureMetrics]:
    """Every output image of one built chapter page, opened in ``page`` (Playwright)."""
    path = html / f"{name}.html"
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    page.goto(path.as_uri(), wait_until="load")
    executed = executed_dir / f"{name}.ipynb"
    known = records(executed) if executed.is_file() else {}
    out = []
    for image in page.evaluate(IMAGES_JS):
        cell, record = known.get(_digest(path, image["src"]), (None, None))
        found, px = problems(record, image["natural"], image["shown"])
        title = (record or {}).get("title", "") or image["src"].rsplit("/", 1)[-1][:12]
        out.append(
            FigureMetrics(
                page=name,
                cell=cell,
                title=title,
                natural=image["natural"],
                shown=round(image["shown"], 1),
                min_text_px=round(px, 1) if px is not None else None,
                problems=found,
            )
        )
    return out


def measure_book(html: Path) -> tuple[list[FigureMetrics], list[WidgetText]]:
    """Every output image and every widget's text of every chapter page built in ``html``."""
    import page_metrics
    from widget_browser import offline_page

    html = html.resolve()
    built = [n for n in page_metrics.chapters() if (html / f"{n}.html").is_file()]
    if not built:
        raise SystemExit(f"no chapter page is built in {html}")
    executed = html.parent / "jupyter_execute"
    with offline_page() as browser:
        figures, widgets = [], []
        for n in built:
            figures += measure(html, n, browser.page, executed)
            widgets += widget_text(browser.page, n)
        return figures, widgets


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html", nargs="?", default=str(ROOT / "_build" / "html"))
    parser.add_argument("--json", help="also write the measurements to this file")
    parser.add_argument("--all", action="store_true", help="list unflagged figures too")
    args = parser.parse_args(argv)
    figures, widgets = measure_book(Path(args.html))
    for f in figures:
        if f.problems or args.all:
            head = f"{f.page.split('/')[-1]} cell {f.cell} [{f.title}]"
            print(f"{head}: {f.natural} px, text {f.min_text_px} px")
            for p in f.problems:
                print(f"    - {p}")
    flagged = sum(1 for f in figures if f.problems)
    print(f"{flagged} of {len(figures)} figures flagged")
    for w in widgets:
        if w.problems or args.all:
            print(
                f"{w.page.split('/')[-1]} widget {w.widget}: {w.smallest} .. {w.largest}"
            )
            for p in w.problems:
                print(f"    - {p}")
    print(f"{sum(1 for w in widgets if w.problems)} of {len(widgets)} widgets flagged")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "figures": [asdict(f) for f in figures],
                    "widgets": [asdict(w) for w in widgets],
                },
                indent=1,
            ),
            encoding="utf-8",
        )


if __name__ == "__main__":
    main()

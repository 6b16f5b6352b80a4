"""Every built page in a real browser (headless Chromium via Playwright), at desktop and phone
widths, offline from file://: no request leaves the machine, no JavaScript or MathJax error,
every image loads, nothing overflows the text column, every widget is there and reacts, every
dropdown opens, and the front page's tables fit its column without a scroll bar. A
screenshot of each page and width goes to ``_build/screenshots/``.

Run by ``make book-check`` after the build; the harness is ``tests/widget_browser.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from widget_browser import BOOK_HTML, offline_page

ROOT = Path(__file__).resolve().parents[2]
HTML = BOOK_HTML
SHOTS = ROOT / "_build" / "screenshots"
WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}
JPEG_MAX = 65_500  # libjpeg's JPEG_MAX_DIMENSION

# Elements that stick out of the text column, unless a scrolling ancestor inside it holds them.
OVERFLOW_JS = """() => {
  const col = document.querySelector('article.bd-article') || document.querySelector('main');
  const limit = col.getBoundingClientRect().right + 1;
  const scrolls = el => {
    for (let a = el.parentElement; a && a !== col; a = a.parentElement) {
      if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(a).overflowX)) return true;
    }
    return false;
  };
  const out = [];
  for (const el of col.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width && r.right > limit && !scrolls(el)) {
      out.push(el.tagName.toLowerCase() + '.' + el.className + ' right=' + Math.round(r.right));
    }
  }
  const page = document.documentElement.scrollWidth > window.innerWidth + 1;
  return {page, elements: out.slice(0, 5)};
}"""

# Tables the theme wraps in a box that scrolls sideways, and which need that scroll bar: the
# front page's must fit its column at desktop width (its chapter table once did not).
SCROLLING_TABLES_JS = """() => [...document.querySelectorAll('.pst-scrollable-table-container')]
  .filter(box => box.scrollWidth > box.clientWidth + 1)
  .map(box => box.textContent.trim().slice(0, 40) + ' width=' + box.scrollWidth)"""

# Change a widget's first visible control and say whether the widget's DOM changed.
REACT_JS = """async root => {
  const before = root.innerHTML;
  const visible = el => el.offsetParent !== null && !el.closest('[hidden]');
  const controls = [...root.querySelectorAll('input, select, button')].filter(visible);
  const c = controls.find(e => e.type === 'range') || controls.find(e => e.tagName === 'SELECT')
    || controls.find(e => e.type === 'radio' && !e.checked)
    || controls.find(e => e.tagName === 'BUTTON' && !e.disabled
                     && e.getAttribute('aria-pressed') !== 'true') || controls[0];
  if (!c) return 'no control';
  if (c.type === 'range') {
    c.value = String(c.value === c.max ? c.min : c.max);
  } else if (c.tagName === 'SELECT') {
    c.selectedIndex = (c.selectedIndex + 1) % c.options.length;
  }
  if (['BUTTON'].includes(c.tagName) || ['radio', 'checkbox'].includes(c.type)) {
    c.click();  // a click fires the input and change events itself
  } else {
    c.dispatchEvent(new Event('input', {bubbles: true}));
    c.dispatchEvent(new Event('change', {bubbles: true}));
  }
  await new Promise(r => setTimeout(r, 50));
  return root.innerHTML !== before ? 'reacted' : 'no change after ' + c.outerHTML.slice(0, 80);
}"""


OPEN_ALL_JS = """() => [...document.querySelectorAll('details')].filter(d => {
  d.scrollIntoView();
  d.querySelector('summary').click();
  return !(d.open && d.scrollHeight > 0);
}).map(d => d.outerHTML.slice(0, 80))"""


def toc_pages() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [toc["root"]]
    for part in toc["parts"]:
        files += [c["file"] for c in part["chapters"]]
    return files


@pytest.mark.parametrize("width", sorted(WIDTHS))
@pytest.mark.parametrize("name", toc_pages())
def test_page_in_the_browser(name, width):
    path = HTML / f"{name}.html"
    if not path.is_file():
        pytest.fail(
            f"{path} is not built: run `make book-check` (or `make book`) first"
        )
    with offline_page() as browser:
        page = browser.page
        page.set_viewport_size(dict(zip(("width", "height"), WIDTHS[width])))
        page.goto(path.as_uri(), wait_until="load")
        math_errors = page.evaluate(
            "() => (window.MathJax && MathJax.startup && MathJax.startup.promise)"
            " ? MathJax.startup.promise.then("
            "   () => document.querySelectorAll('mjx-merror').length) : 0"
        )
        broken = page.evaluate(
            "() => [...document.images].filter(i => !i.complete || !i.naturalWidth)"
            ".map(i => i.getAttribute('src'))"
        )
        overflow = page.evaluate(OVERFLOW_JS)
        front = name == toc_pages()[0] and width == "desktop"
        wide_tables = page.evaluate(SCROLLING_TABLES_JS) if front else []
        widgets = page.locator("div.course-widget")
        reactions = [widgets.nth(i).evaluate(REACT_JS) for i in range(widgets.count())]
        # every dropdown and folded cell opens on a click of its summary (one round trip:
        # a chapter has dozens of folded cells)
        unopened = page.evaluate(OPEN_ALL_JS)
        SHOTS.mkdir(parents=True, exist_ok=True)
        shot = SHOTS / f"{name.replace('/', '_')}-{width}.jpg"
        # a JPEG is at most 65,500 pixels a side: a taller page (a long chapter at phone
        # width with every fold open) is cut there, where Chromium would write an empty file
        height = min(page.evaluate("document.documentElement.scrollHeight"), JPEG_MAX)
        clip = dict(x=0, y=0, width=WIDTHS[width][0], height=height)
        page.screenshot(
            path=str(shot), full_page=True, clip=clip, type="jpeg", quality=60
        )
    problems = []  # every check's failure, so that one run shows them all
    if browser.blocked:
        problems.append(f"requests that would leave the machine: {browser.blocked}")
    if browser.errors:
        problems.append(f"JavaScript errors: {browser.errors[:5]}")
    if math_errors:
        problems.append(f"{math_errors} MathJax errors (mjx-merror)")
    if broken:
        problems.append(f"images that did not load: {broken}")
    if overflow["page"] or overflow["elements"]:
        problems.append(f"the text column overflows: {overflow}")
    if wide_tables:
        problems.append(f"tables wider than the front page's column: {wide_tables}")
    if any(r != "reacted" for r in reactions):
        problems.append(f"widgets that do not react: {reactions}")
    if unopened:
        problems.append(f"dropdowns that do not open: {unopened}")
    assert not problems, f"{name} at {width} width: " + "; ".join(problems)
    assert shot.stat().st_size > 0

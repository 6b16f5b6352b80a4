"""How a chapter's figures, diagrams, widgets and tables read in the book's light and dark themes.

    python tests/book/theme_metrics.py [_build/html] [--theme dark]

opens every chapter page at 1280 px in the theme (pydata-sphinx-theme follows the browser's
colour scheme: the book's default mode is "auto"), waits for the widgets, and screenshots
each figure, diagram, widget and HTML table of the page into
``_build/screenshots/themes/<chapter>/<theme>-NN-<kind>.png`` (and the whole dark page into
``_build/screenshots/<chapter>-desktop-dark.jpg``; test_pages_browser.py shoots the light
one). On each shot it measures, from the
pixels as drawn, the contrast of every piece of text in a widget or table against the ground
around it (the WCAG ratio of the text's strongest ink to the commonest colour of its box),
and for an image the contrast of its ink against its ground: dark ink on a transparent
image over the dark page, or grey labels on a grey box, read as a low ratio.
``tests/book/test_themes.py`` holds every chapter to it.
"""

from __future__ import annotations

import argparse
import io
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
SHOTS = ROOT / "_build" / "screenshots"
WIDTH, HEIGHT = 1280, 900
MIN_CONTRAST = 3.0  # WCAG's least for large text and for graphics
JPEG_MAX = 65_500

# Figures, diagrams, widgets and HTML outputs of the article, and the text boxes in each
# (page coordinates: the shot of an element starts at its own box).
TARGETS_JS = """() => {
  const article = document.querySelector('article.bd-article');
  const box = r => ({x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height});
  const shown = el => el.offsetParent !== null && !el.closest('details:not([open])');
  const targets = [];
  const add = (el, kind) => { if (shown(el)) targets.push({el, kind}); };
  for (const el of article.querySelectorAll('figure')) add(el, 'diagram');
  for (const out of article.querySelectorAll('div.cell_output')) {
    for (const w of out.querySelectorAll('div.course-widget')) add(w, 'widget');
    for (const img of out.querySelectorAll('img')) {
      if (!img.closest('div.course-widget')) add(img, 'figure');
    }
    for (const t of out.querySelectorAll('div.output.text_html')) {
      if (!t.querySelector('div.course-widget') && t.querySelector('table')) add(t, 'table');
    }
  }
  return targets.map(({el, kind}, i) => {
    el.dataset.themeShot = String(i);
    const texts = [];
    if (kind !== 'figure' && kind !== 'diagram') {
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        if (!n.textContent.trim()) continue;
        const parent = n.parentElement;
        if (!parent || parent.closest('style, script, noscript, :disabled')) continue;
        if (!/[\\p{L}\\p{N}]/u.test(n.textContent)) continue;  // a lone mark: too few pixels
        const cs = getComputedStyle(parent);
        if (cs.visibility === 'hidden' || cs.display === 'none' || +cs.opacity === 0) continue;
        const range = document.createRange();
        range.selectNodeContents(n);
        const r = range.getBoundingClientRect();
        if (r.width < 2 || r.height < 4) continue;
        texts.push({text: n.textContent.trim().slice(0, 30), ...box(r)});
      }
    }
    return {index: i, kind, ...box(el.getBoundingClientRect()), texts};
  });
}"""

WIDGETS_READY_JS = """() => [...document.querySelectorAll('div.course-widget')]
  .every(w => w.querySelector('.cw') || w.textContent.includes('could not start'))"""


@dataclass
class ThemeMetrics:
    """One chapter page in one theme: the shots taken, and what does not read."""

    page: str
    theme: str
    active: str = ""  # the theme the page says it shows (data-theme)
    shots: list[str] = field(default_factory=list)
    low_contrast: list[str] = field(default_factory=list)
    worst: float = 21.0


def luminance(rgb: np.ndarray) -> np.ndarray:
    """WCAG relative luminance of sRGB pixels (..., 3) in 0..255."""
    c = rgb.astype(np.float64) / 255.0
    c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return c @ np.array([0.2126, 0.7152, 0.0722])


def contrast(rgb: np.ndarray) -> float:
    """The WCAG ratio of a region's strongest ink to its ground (its commonest colour).

    The ink is the 98th percentile of the pixels' distance in luminance from the ground (a
    stray pixel or two of another colour does not count; a glyph's stroke does)."""
    pixels = rgb.reshape(-1, 3)
    if len(pixels) == 0:
        return 21.0
    quant = (pixels // 8).astype(np.int64)
    keys = quant[:, 0] * 1024 + quant[:, 1] * 32 + quant[:, 2]
    values, counts = np.unique(keys, return_counts=True)
    ground_pixels = pixels[keys == values[np.argmax(counts)]]
    ground = float(luminance(ground_pixels.mean(axis=0)))
    lum = luminance(pixels)
    far = np.abs(lum - ground)
    ink = lum[np.argsort(far)[int(0.98 * (len(far) - 1))]]
    hi, lo = max(ground, ink), min(ground, ink)
    return (hi + 0.05) / (lo + 0.05)


def measure(
    html: Path, name: str, page, theme: str, shots: Path = SHOTS
) -> ThemeMetrics:
    """Open one chapter page in ``theme`` ("light"/"dark"), shoot and measure each target."""
    from PIL import Image

    m = ThemeMetrics(page=name, theme=theme)
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    page.emulate_media(color_scheme=theme)
    page.goto((html / f"{name}.html").as_uri(), wait_until="load")
    page.wait_for_function(WIDGETS_READY_JS, timeout=15_000)
    m.active = page.evaluate("document.documentElement.dataset.theme || ''")
    folder = shots / "themes" / name.split("/")[-1]
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob(f"{theme}-*.png"):
        old.unlink()
    # the sticky header and the skip link would lie over a tall element's shot
    hide = page.add_style_tag(
        content=".bd-header, .bd-header-article, .skip-link { visibility: hidden !important; }"
    )
    for target in page.evaluate(TARGETS_JS):
        shot = folder / f"{theme}-{target['index']:02d}-{target['kind']}.png"
        element = page.locator(f"[data-theme-shot='{target['index']}']")
        png = element.screenshot(path=str(shot), animations="disabled")
        m.shots.append(str(shot.relative_to(ROOT)))
        img = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
        regions = [(target["kind"], target, 0.0, 0.0)]
        if target["texts"]:
            regions = [
                (repr(t["text"]), t, target["x"], target["y"]) for t in target["texts"]
            ]
        for what, r, x0, y0 in regions:
            top, left = int(r["y"] - y0), int(r["x"] - x0)
            crop = img[
                max(top, 0) : top + int(r["h"]) + 1,
                max(left, 0) : left + int(r["w"]) + 1,
            ]
            if crop.size == 0:
                continue
            ratio = contrast(crop)
            m.worst = min(m.worst, ratio)
            if ratio < MIN_CONTRAST:
                m.low_contrast.append(f"{shot.name} {what}: {ratio:.1f}")
    hide.evaluate("el => el.remove()")
    if (
        theme == "light"
    ):  # test_pages_browser.py shoots the light page (<chapter>-desktop.jpg)
        return m
    SHOTS.mkdir(parents=True, exist_ok=True)
    full = SHOTS / f"{name.replace('/', '_')}-desktop-{theme}.jpg"
    height = min(page.evaluate("document.documentElement.scrollHeight"), JPEG_MAX)
    page.screenshot(
        path=str(full),
        full_page=True,
        clip=dict(x=0, y=0, width=WIDTH, height=height),
        type="jpeg",
        quality=60,
    )
    return m


def widget_differences(html: Path, name: str, page) -> list[tuple[str, float]]:
    """Each widget of a chapter page shot in the light and the dark theme: the mean
    difference of the two shots' pixels (0-255). A widget draws its own white card, so the
    theme should leave it alone: a rule of the theme reaching into it (a frame, a dimmed
    image, a text colour) shows as a difference."""
    from PIL import Image

    shots: dict[str, list[np.ndarray]] = {}
    for theme in ("light", "dark"):
        page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
        page.emulate_media(color_scheme=theme)
        page.goto((html / f"{name}.html").as_uri(), wait_until="load")
        page.wait_for_function(WIDGETS_READY_JS, timeout=15_000)
        widgets = page.locator("div.course-widget .cw")
        for i in range(widgets.count()):
            png = widgets.nth(i).screenshot(animations="disabled")
            img = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=float)
            # inside its rounded border: the corners show the page's own ground
            shots.setdefault(f"widget {i}", []).append(img[8:-8, 8:-8])
    out = []
    for key, (light, dark) in shots.items():
        if light.shape != dark.shape:
            out.append((f"{key} (its size changes)", 255.0))
        else:
            out.append((key, float(np.abs(light - dark).mean())))
    return out


def main(argv: list[str] | None = None) -> None:
    import page_metrics
    from widget_browser import offline_page

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html", nargs="?", default=str(ROOT / "_build" / "html"))
    parser.add_argument("--theme", choices=("light", "dark"), action="append")
    args = parser.parse_args(argv)
    html = Path(args.html).resolve()
    with offline_page() as browser:
        for name in page_metrics.chapters():
            if not (html / f"{name}.html").is_file():
                continue
            for theme in args.theme or ["light", "dark"]:
                m = measure(html, name, browser.page, theme)
                print(
                    f"{name} {theme} ({m.active}): {len(m.shots)} shots, worst {m.worst:.1f}"
                )
                for line in m.low_contrast:
                    print(f"    - {line}")


if __name__ == "__main__":
    main()

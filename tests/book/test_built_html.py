"""Checks on the built book (run by `make book-check` after `jupyter-book build`).

The book must work offline: no page may load a script, stylesheet, font, image or frame from another
host; MathJax is served from the book itself; widgets render from data and script inside their page
(``COURSE_WIDGET_MODE=html``), so no page carries ipywidgets manager state that nothing could
render.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from widget_browser import BOOK_HTML

ROOT = Path(__file__).resolve().parents[2]
HTML = BOOK_HTML
LOADING = {  # tag -> attributes whose URL the browser fetches by itself
    "script": ("src",),
    "img": ("src", "srcset"),
    "iframe": ("src",),
    "source": ("src", "srcset"),
    "audio": ("src",),
    "video": ("src", "poster"),
    "embed": ("src",),
    "object": ("data",),
}
LINK_LOADS = {"stylesheet", "preload", "modulepreload", "icon", "prefetch", "manifest"}
REMOTE = re.compile(r"^\s*(https?:)?//", re.I)


class Loads(HTMLParser):
    """Collects every URL a page loads without a click."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        for name in LOADING.get(tag, ()):
            if values.get(name):
                self.urls.append((tag, values[name]))
        if tag == "link" and LINK_LOADS & set(values.get("rel", "").lower().split()):
            self.urls.append((tag, values.get("href", "")))


def chapters() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [c["file"] for part in toc["parts"] for c in part["chapters"]]
    return [f for f in files if f.startswith("notebooks/")]


def pages() -> list[Path]:
    if not (HTML / "index.html").is_file():
        pytest.fail(
            f"no built book at {HTML}: run `make book-check` (or `make book`) first"
        )
    return sorted(HTML.rglob("*.html"))


def test_every_chapter_was_built():
    pages()
    for chapter in chapters():
        assert (HTML / f"{chapter}.html").is_file(), (
            f"{chapter} is in _toc.yml but was not built"
        )


def test_no_page_loads_anything_from_another_host():
    offenders = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        parser = Loads()
        parser.feed(text)
        offenders += [
            f"{page.relative_to(HTML)}: <{t}> {u}"
            for t, u in parser.urls
            if REMOTE.match(u)
        ]
        offenders += [
            f"{page.relative_to(HTML)}: @import {m}"
            for m in re.findall(
                r"@import\s+(?:url\()?['\"]?(?:https?:)?//[^'\")]+", text
            )
        ]
    assert not offenders, "pages load from other hosts:\n" + "\n".join(offenders)


def test_mathjax_is_served_locally():
    for page in pages():
        text = page.read_text(encoding="utf-8")
        for src in re.findall(r'src="([^"]*mathjax[^"]*)"', text, re.I):
            local = (page.parent / src.split("?")[0]).resolve()
            assert local.is_file(), (
                f"{page.name} loads MathJax from {src}, which is not in the build"
            )
    assert (HTML / "_static" / "mathjax" / "tex-chtml.js").is_file()


def test_no_widget_manager_state_is_left_unrenderable():
    for page in pages():
        text = page.read_text(encoding="utf-8")
        assert "application/vnd.jupyter.widget-state+json" not in text, (
            f"{page.name} embeds ipywidgets state but the book loads no widget manager: build with "
            "COURSE_WIDGET_MODE=html and use course_lib.runtime.progress_bar for progress bars"
        )


def test_widgets_carry_their_data_and_script():
    found = 0
    for chapter in chapters():
        text = (HTML / f"{chapter}.html").read_text(encoding="utf-8")
        for block in re.findall(r'<div[^>]*data-course-widget="([^"]+)"', text):
            found += 1
            assert (
                f'data-course-widget-data="{block}"' in text
                or "application/json" in text
            )
        if "data-course-widget=" in text:
            assert "render" in text and "createObjectURL" in text, (
                f"{chapter}: widget script missing"
            )
    assert found >= 1, (
        "no chapter page holds a course widget: the widget pattern is not exercised"
    )


def test_chapters_have_colab_buttons_and_no_errors():
    """Each chapter's Colab button opens the notebook written from the page's source
    (``notebooks/NN_name.ipynb`` on the configured repository's branch), not the ``.md``."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    repo = config["repository"]["url"].removeprefix("https://github.com/")
    branch = config["repository"].get("branch", "main")
    for chapter in chapters():
        text = (HTML / f"{chapter}.html").read_text(encoding="utf-8")
        urls = set(
            re.findall(r"https://colab\.research\.google\.com/[^\"'\s<>]+", text)
        )
        path = f"{chapter}.ipynb"
        assert urls == {
            f"https://colab.research.google.com/github/{repo}/blob/{branch}/{path}"
        }, f"{chapter}: {urls}"
        assert (ROOT / path).is_file() and (ROOT / path).with_suffix(".md").is_file()
        assert "Traceback (most recent call last)" not in text, (
            f"{chapter} shows a traceback"
        )

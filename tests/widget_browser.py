"""The harness of the widget browser tests: headless Chromium, offline, from file://.

Needs Debian's ``chromium`` (``apt-get install chromium``) and the Python ``playwright``
package driving that same binary (no browser download). Missing either is a failure,
not a skip: the book's widgets are only known to work if this runs.

``write_widget_page`` writes widgets' html-mode bundles into one standalone page;
``BOOK_HTML`` is where the built book is; ``offline_page`` opens a Playwright page that
lets only file:, blob: and data: URLs (plus the URL prefixes it is given, e.g. a local
JupyterLab) through and records every request, every blocked one, every WebSocket and every
error; ``assert_offline``, the end of every browser test, checks that nothing left the
machine and no page error happened.
Imported by the tests as a plain module (``from widget_browser import ...``).
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
# The built book the page tests read (tests/book): ``make book-check`` builds it here.
BOOK_HTML = pathlib.Path(
    os.environ.get(
        "COURSE_BOOK_HTML",
        pathlib.Path(__file__).resolve().parents[1] / "_build" / "html",
    )
)
FLAGS = [  # Playwright starts Chromium headless itself: it gets FLAGS[1:]
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
LOCAL_SCHEMES = ("file", "blob", "data")


def chromium() -> str:
    """The path of Debian's Chromium, or a test failure saying how to install it."""
    path = shutil.which("chromium") or (CHROMIUM if shutil.which(CHROMIUM) else None)
    if path is None:
        pytest.fail(
            "headless Chromium is needed for the widget browser tests: "
            "apt-get install -y chromium (Debian's package, /usr/bin/chromium)"
        )
    return path


def write_widget_page(path: pathlib.Path, *widgets: Any) -> str:
    """Write the widgets' html-mode bundles into one standalone page; return its file:// URL.

    The widgets must have been built with ``COURSE_WIDGET_MODE=html``.
    """
    body = "\n".join(w._repr_mimebundle_()["text/html"] for w in widgets)
    path.write_text(
        '<!doctype html><html><head><meta charset="utf-8"><title>t</title></head>'
        f"<body>{body}</body></html>",
        encoding="utf-8",
    )
    return path.as_uri()


@dataclass
class OfflinePage:
    """A Playwright page and what it did: every request, the blocked ones, the errors."""

    page: Any
    requests: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    websockets: list[str] = field(default_factory=list)


@contextlib.contextmanager
def offline_page(allow: tuple[str, ...] = ()) -> Iterator[OfflinePage]:
    """A new page in headless Chromium that cannot reach the network; closed on exit.

    Requests to anything but file:, blob: and data: URLs, or URLs starting with one of the
    prefixes in ``allow`` (such as ``"http://127.0.0.1:8888/"``), are aborted and listed in
    ``blocked``; uncaught page errors and console errors are listed in ``errors``. WebSockets
    are not routed (Playwright's route does not see them); their URLs are listed in
    ``websockets`` for the caller to check.
    """
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the browser test needs playwright: pip install playwright==1.65.2")
    executable = chromium()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, args=FLAGS[1:])
        try:
            out = OfflinePage(browser.new_page())

            def route(r):
                out.requests.append(r.request.url)
                url = r.request.url
                if url.split(":", 1)[0] in LOCAL_SCHEMES or url.startswith(allow):
                    r.continue_()
                else:
                    out.blocked.append(r.request.url)
                    r.abort()

            out.page.route("**/*", route)
            out.page.on("pageerror", lambda e: out.errors.append(str(e)))
            out.page.on("websocket", lambda ws: out.websockets.append(ws.url))
            out.page.on(
                "console",
                lambda m: out.errors.append(m.text) if m.type == "error" else None,
            )
            yield out
        finally:
            browser.close()


def assert_offline(
    browser: OfflinePage, allow: tuple[str, ...] = (), *, websockets: bool = False
) -> None:
    """The end of every browser test: nothing left the machine, no page errors.

    No request was blocked; every request went to a file:, blob: or data: URL or to one of
    the ``allow`` prefixes; every WebSocket went to an allowed server (with
    ``websockets=True`` at least one did: the kernel's connection); no page or console
    error.
    """
    assert browser.blocked == [], f"requests left the machine: {browser.blocked}"
    stray = [
        u
        for u in browser.requests
        if u.split(":", 1)[0] not in LOCAL_SCHEMES and not u.startswith(allow)
    ]
    assert stray == [], f"requests outside file:, blob:, data: and {allow}: {stray}"
    ws_allow = tuple(prefix.replace("http", "ws", 1) for prefix in allow)
    stray_ws = [u for u in browser.websockets if not u.startswith(ws_allow)]
    assert stray_ws == [], f"WebSockets to other servers: {stray_ws}"
    if websockets:
        assert browser.websockets, "no WebSocket was opened: the kernel never connected"
    assert browser.errors == [], f"page errors: {browser.errors}"


CONTROLS = "input, button, select, textarea, [tabindex]"
_UNSUPPRESSED = """(root, selector) => [...root.querySelectorAll(selector)]
  .filter((e) => !e.hasAttribute("data-lm-suppress-shortcuts")).map((e) => e.outerHTML)"""


def unsuppressed_controls(where: Any) -> list[str]:
    """The controls in ``where`` (a Playwright page, or a locator for one widget's root)
    that lack ``data-lm-suppress-shortcuts``, as HTML: without it JupyterLab takes their
    arrow keys for its own shortcuts. Every widget test asserts this is empty."""
    if hasattr(where, "eval_on_selector_all"):  # a page: the whole document
        where = where.locator(":root")
    return where.evaluate(_UNSUPPRESSED, CONTROLS)

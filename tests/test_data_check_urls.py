"""``python -m course_lib.data check-urls`` against a local HTTP server on 127.0.0.1: a file as
pinned, a missing file, a changed size and a redirect each give their own clear line; a
server that refuses HEAD is asked for one byte instead; nothing is downloaded."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from course_lib.data import __main__ as cli
from course_lib.data import check_urls
from course_lib.data.check_urls import Target, check, check_all
from course_lib.data.registry import DATASETS, Dataset, FileSpec

BODY = b"x" * 1000


class Handler(BaseHTTPRequestHandler):
    served: list[tuple[str, str, int]] = []  # (method, path, body bytes sent)

    def log_message(self, *args):  # keep pytest's output clean
        pass

    def _answer(self, method: str) -> None:
        path = self.path
        if path == "/missing":
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if path == "/moved":
            self.send_response(302)
            self.send_header("Location", "/file")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if path == "/no-head" and method == "HEAD":
            self.send_response(405)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = BODY + (b"y" if path == "/bigger" else b"")
        if method == "GET" and self.headers.get("Range") == "bytes=0-0":
            self.send_response(206)
            self.send_header("Content-Range", f"bytes 0-0/{len(body)}")
            self.send_header("Content-Length", "1")
            self.end_headers()
            self.wfile.write(body[:1])
            Handler.served.append((method, path, 1))
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if method == "GET":
            self.wfile.write(body)
        Handler.served.append((method, path, len(body) if method == "GET" else 0))

    def do_HEAD(self):  # noqa: N802
        self._answer("HEAD")

    def do_GET(self):  # noqa: N802
        self._answer("GET")


@pytest.fixture(scope="module")
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def ask(server: str, path: str, size: int | None = 1000):
    return check(Target(f"demo{path}", server + path, size), timeout=5)


def test_a_file_as_pinned_is_ok(server):
    answer = ask(server, "/file")
    assert answer.ok and answer.line() == "ok          demo/file  1,000 bytes"


def test_a_missing_file(server):
    answer = ask(server, "/missing")
    assert answer.status == "MISSING"
    assert answer.line() == f"MISSING     demo/missing: HTTP 404 at {server}/missing"


def test_a_changed_size(server):
    answer = ask(server, "/bigger")
    assert answer.status == "SIZE"
    assert "1,001 bytes at" in answer.line() and answer.line().endswith("pinned 1,000")


def test_a_redirect_is_reported_not_followed(server):
    answer = ask(server, "/moved")
    assert answer.status == "MOVED"
    assert "HTTP 302 to /file (a pin never redirects)" in answer.line()


def test_head_refused_then_one_byte_is_asked_for_and_nothing_downloaded(server):
    Handler.served.clear()
    assert ask(server, "/no-head").ok
    assert ask(server, "/bigger").status == "SIZE"
    assert all(sent <= 1 for _, _, sent in Handler.served), Handler.served


def test_an_unpinned_size_only_checks_presence(server):
    assert ask(
        server, "/bigger", size=None
    ).ok  # a zip member's pin is not the zip's size


def test_nothing_listening():
    answer = check(Target("demo/closed", "http://127.0.0.1:9/x", 10), timeout=2)
    assert answer.status == "UNREACHABLE" and "http://127.0.0.1:9/x" in answer.line()


def test_the_answers_keep_the_targets_order(server):
    found = [Target(p, server + p, 1000) for p in ("/missing", "/file", "/bigger")]
    assert [a.status for a in check_all(found, workers=3)] == ["MISSING", "ok", "SIZE"]


def test_every_pin_of_the_course_becomes_a_target():
    found = check_urls.targets()
    labels = {t.label for t in found}
    for ds in DATASETS.values():
        if ds.name != "fsdd":
            assert {f"{ds.name}/{n}" for n in ds.files} <= labels
    assert sum(t.label.startswith("fsdd/recordings/") for t in found) == 3000
    member = next(t for t in found if t.label == "tatoeba_eng_fra/fra.txt")
    assert member.bytes is None  # only the archive's presence can be checked
    assert all(t.url.startswith("https://") for t in found)


def test_the_command_line_prints_a_line_a_file_and_exits_1(server, monkeypatch, capsys):
    demo = Dataset(
        name="demo",
        title="demo",
        files=(
            FileSpec("file", server + "/file", "0" * 64, 1000),
            FileSpec("missing", server + "/missing", "0" * 64, 1000),
        ),
        licence="none",
        citation="none",
        homepage="http://127.0.0.1/",
    )
    monkeypatch.setattr(check_urls, "DATASETS", {"demo": demo})
    monkeypatch.setattr(cli, "get_dataset", lambda name: demo)
    assert cli.main(["check-urls", "demo"]) == 1
    out, err = capsys.readouterr()
    assert "ok          demo/file  1,000 bytes" in out
    assert f"MISSING     demo/missing: HTTP 404 at {server}/missing" in err
    assert "2 URLs asked, 1 not as pinned." in out

"""Writes that cannot half-happen or collide: the results store and the data cache.

Real processes throughout: a writer killed in the middle of its write (SIGKILL, SIGTERM),
two writers recording into one chapter at the same instant, a file-size limit set with
``RLIMIT_FSIZE``. After each, the Results page (``results_report.results_markdown``,
what ``results.md`` shows) is built from what is on disk.
"""

import fcntl
import importlib
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from course_lib import results
from course_lib.data import CacheWriteError, FileSpec, UnknownNameError, read_conllu
from course_lib.results_report import results_markdown

ROOT = Path(__file__).resolve().parents[1]
fetch_mod = importlib.import_module("course_lib.data.fetch")


def _run(code: str, env: dict, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter with ``env`` added to the environment."""
    full = {**os.environ, "COURSE_PROFILE": "smoke", "PYTHONPATH": str(ROOT), **env}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=full,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


# A record() whose write stops half-way: the process kills itself mid-write.
KILL_RECORD = """
import os, signal
from course_lib import results
real = os.fdopen
class Half:
    def __init__(self, handle): self.handle = handle
    def __enter__(self): return self
    def __exit__(self, *exc): self.handle.close()
    def write(self, text):
        self.handle.write(text[: len(text) // 2]); self.handle.flush()
        os.kill(os.getpid(), signal.{sig})
os.fdopen = lambda fd, *a, **kw: Half(real(fd, *a, **kw))
results.record("ch01", "curve", list(range(5000)), glue=False)
"""

# A download whose write stops half-way: the opener kills the process on its 3rd read.
KILL_FETCH = """
import io, os, signal, sys
from course_lib.data.fetch import fetch_spec
from course_lib.data import FileSpec
spec = FileSpec.for_file(sys.argv[1])
class Stream(io.BytesIO):
    reads = 0
    def read(self, n=-1):
        Stream.reads += 1
        if Stream.reads == 3:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().read(10_000)
fetch_spec("toy", spec, __import__("pathlib").Path(sys.argv[2]),
           opener=lambda url, timeout: Stream(open(sys.argv[1], "rb").read()))
"""


@pytest.mark.parametrize("sig", ["SIGKILL", "SIGTERM"])
def test_a_writer_killed_mid_write_leaves_the_results_and_the_page_whole(
    tmp_path, monkeypatch, sig
):
    monkeypatch.setenv("COURSE_RESULTS_DIR", str(tmp_path))
    monkeypatch.setenv("COURSE_PROFILE", "smoke")
    results.record("ch01", "acc", 0.9, glue=False)
    before = (tmp_path / "ch01.json").read_bytes()
    done = _run(KILL_RECORD.format(sig=sig), {"COURSE_RESULTS_DIR": str(tmp_path)})
    assert done.returncode == -getattr(signal, sig), done.stderr
    (leftover,) = tmp_path.glob(".ch01.*.tmp")  # the half-written temporary file
    with pytest.raises(json.JSONDecodeError):
        json.loads(leftover.read_text())
    assert (tmp_path / "ch01.json").read_bytes() == before  # the results are whole
    assert results.recorded_chapters() == ["ch01"]  # a leftover is never a chapter
    page = results_markdown(ROOT)
    assert "| PPMI-SVD, WordSim-353 Spearman ρ | *missing* |" in page
    # the next record removes the leftover and keeps what was there
    results.record("ch01", "later", 1, glue=False)
    assert not list(tmp_path.glob(".ch01.*"))
    assert results.load("ch01") == {"acc": 0.9, "later": 1}


def test_leftovers_of_older_versions_are_not_chapters_and_are_removed(
    tmp_path, monkeypatch
):
    """The sweep's R18b: ``.ch01.<random>.json``, half-written, listed as a chapter."""
    monkeypatch.setenv("COURSE_RESULTS_DIR", str(tmp_path))
    (tmp_path / ".ch01.1fk3rzie.json").write_text('{"curve": [1, 2, ')
    assert results.recorded_chapters() == []
    assert "**1. " in results_markdown(ROOT)
    results.record("ch02", "x", 1, glue=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ch02.json"]


def test_a_download_killed_mid_write_leaves_no_cache_file_and_is_cleaned_up(
    tmp_path, monkeypatch
):
    upstream = tmp_path / "toy.txt"
    upstream.write_bytes(b"the cat sat on the mat\n" * 2000)
    dest = tmp_path / "cache" / "toy" / "toy.txt"
    full = {**os.environ, "PYTHONPATH": str(ROOT)}
    killed = subprocess.run(
        [sys.executable, "-c", KILL_FETCH, str(upstream), str(dest)],
        env=full,
        capture_output=True,
        timeout=120,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    (leftover,) = dest.parent.glob(".toy.txt.*.part")
    assert 0 < leftover.stat().st_size < upstream.stat().st_size
    assert not dest.exists()  # a cache file is there whole or not at all
    spec = FileSpec.for_file(upstream)
    assert fetch_mod.fetch_spec("toy", spec, dest).read_bytes() == upstream.read_bytes()
    assert not leftover.exists()  # its writer is dead: removed by the next write
    monkeypatch.setenv("COURSE_RESULTS_DIR", str(tmp_path / "results"))
    assert "No results were recorded" in results_markdown(ROOT)


def _record_many(barrier, folder: str, prefix: str, count: int) -> None:
    os.environ["COURSE_RESULTS_DIR"] = folder
    os.environ["COURSE_PROFILE"] = "smoke"
    barrier.wait(timeout=60)
    for i in range(count):
        results.record("ch05", f"{prefix}{i}", i, glue=False)


def test_two_processes_recording_into_one_chapter_keep_every_value(tmp_path):
    """The sweep's R23: 255 of 400 values were kept without a lock."""
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(2)
    count = 100
    writers = [
        ctx.Process(target=_record_many, args=(barrier, str(tmp_path), p, count))
        for p in ("a", "b")
    ]
    for w in writers:
        w.start()
    for w in writers:
        w.join(timeout=180)
    assert [w.exitcode for w in writers] == [0, 0]
    data = json.loads((tmp_path / "ch05.json").read_text())
    data.pop("_run")
    assert len(data) == 2 * count
    assert not list(tmp_path.glob(".ch05.*.tmp"))


def test_a_writer_held_too_long_is_named_not_waited_for_forever(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_RESULTS_DIR", str(tmp_path))
    monkeypatch.setattr(results, "LOCK_WAIT_S", 0.2)
    fd = os.open(tmp_path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(results.ResultsError, match="held the lock on"):
            results.record("ch01", "acc", 0.9, glue=False)
    finally:
        os.close(fd)
    results.record("ch01", "acc", 0.9, glue=False)


@pytest.mark.parametrize("where", ["results", "cache"])
def test_a_file_size_limit_names_the_setting_and_the_path(tmp_path, where):
    """The sweep's R22 and D29: EFBIG was a raw ``OSError: File too large``."""
    code = f"""
    import resource
    resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))
    from pathlib import Path
    from course_lib import results
    from course_lib.data import FileSpec
    from course_lib.data.fetch import fetch_spec
    try:
        if Path("{tmp_path}/up.txt").exists():
            fetch_spec("toy", FileSpec.for_file("{tmp_path}/up.txt"), Path("{tmp_path}/c/toy.txt"))
        else:
            results.record("ch01", "curve", list(range(10_000)), glue=False)
    except Exception as err:
        print(type(err).__name__, err)
    """
    if where == "cache":
        (tmp_path / "up.txt").write_bytes(b"x" * 50_000)
    env = {"COURSE_RESULTS_DIR": str(tmp_path / "r"), "COURSE_LIB_CACHE": str(tmp_path)}
    out = _run(code, env).stdout
    name, setting = {
        "results": ("ResultsFolderError", "COURSE_RESULTS_DIR"),
        "cache": ("CacheWriteError", "COURSE_LIB_CACHE"),
    }[where]
    assert out.startswith(f"{name} Cannot write"), out
    assert "File too large" in out and "ulimit -f" in out and setting in out
    assert not [p for p in tmp_path.rglob(".*") if p.suffix in (".tmp", ".part")]


def test_a_results_folder_that_is_a_file_names_the_setting(tmp_path, monkeypatch):
    """The sweep's R15 (R14, a read-only folder, is tested where not root)."""
    afile = tmp_path / "results"
    afile.write_text("not a folder")
    monkeypatch.setenv("COURSE_RESULTS_DIR", str(afile))
    with pytest.raises(results.ResultsFolderError) as info:
        results.record("ch01", "acc", 0.9, glue=False)
    assert "COURSE_RESULTS_DIR" in str(info.value) and str(afile) in str(info.value)
    assert isinstance(info.value, OSError)
    with pytest.raises(results.ResultsFolderError, match="must name a folder"):
        results.recorded_chapters()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_results_folder_names_the_setting(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_RESULTS_DIR", str(tmp_path))
    tmp_path.chmod(0o555)
    try:
        with pytest.raises(results.ResultsFolderError, match="make .* writable"):
            results.record("ch01", "acc", 0.9, glue=False)
    finally:
        tmp_path.chmod(0o755)


def test_a_cache_that_is_a_file_names_the_setting(tmp_path, monkeypatch):
    upstream = tmp_path / "toy.txt"
    upstream.write_bytes(b"abc\n" * 100)
    (tmp_path / "cache").write_text("not a folder")
    monkeypatch.setenv("COURSE_LIB_CACHE", str(tmp_path / "cache"))
    dest = fetch_mod.cache_dir() / "toy" / "toy.txt"
    with pytest.raises(CacheWriteError, match="COURSE_LIB_CACHE") as info:
        fetch_mod.fetch_spec("toy", FileSpec.for_file(upstream), dest)
    assert "\nFix: COURSE_LIB_CACHE must name a folder" in str(info.value)


def test_a_damaged_results_file_is_named_kept_and_shown_on_the_page(
    tmp_path, monkeypatch
):
    """The sweep's R16, R17: a JSONDecodeError that named no file."""
    monkeypatch.setenv("COURSE_RESULTS_DIR", str(tmp_path))
    damaged = tmp_path / "ch01.json"
    damaged.write_text('{\n "a": 1,\n "b" 2')
    for call in (
        lambda: results.record("ch01", "bleu", 21.3, glue=False),
        lambda: results.load("ch01"),
        lambda: results.run_info("ch01"),
    ):
        with pytest.raises(results.CorruptResultsError, match="not valid JSON") as info:
            call()
        assert str(damaged) in str(info.value) and "\nFix: delete it" in str(info.value)
    assert damaged.read_text() == '{\n "a": 1,\n "b" 2'
    ch01 = results_markdown(ROOT).split("**1. ")[1].split("\n\n**")[0]
    assert "Its results could not be read" in ch01 and "ch01.json" in ch01
    damaged.write_text("[1, 2]")
    with pytest.raises(results.CorruptResultsError, match="a JSON list"):
        results.load("ch01")


def test_read_conllu_takes_a_split_name_for_a_split(tmp_path, monkeypatch):
    """The sweep's D05: ``read_conllu("valid")`` was FileNotFoundError: 'valid'."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UnknownNameError, match="Did you mean 'dev'"):
        read_conllu("valid")
    with pytest.raises(FileNotFoundError, match="No CoNLL-U file at"):
        read_conllu("missing/file.conllu")
    with pytest.raises(IsADirectoryError, match="is a folder"):
        read_conllu(tmp_path)

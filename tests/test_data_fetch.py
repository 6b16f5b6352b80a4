"""fetch(): mirrors, cache, verified downloads, every error path, and the CLI.

All data here is generated in ``tmp_path`` and pinned on the fly; downloads use
``file://`` URLs or a fake opener, so nothing touches the network.
"""

import gzip
import hashlib
import importlib
import io
import os
import subprocess
import sys
import urllib.error
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from course_lib.data import (
    DATASETS,
    ChecksumError,
    CorruptFileError,
    Dataset,
    DataUnavailableError,
    FileSpec,
    TruncatedFileError,
    UnknownNameError,
    fetch,
    open_text,
)
from course_lib.data.__main__ import main

TEXT = b"the cat sat on the mat\n" * 200 + b"a last line\n"
NAME = "toy"
# The package re-exports the function fetch(), which hides the submodule attribute.
fetch_mod = importlib.import_module("course_lib.data.fetch")
REAL_URLOPEN = fetch_mod._urlopen  # serves file:// URLs without a network


def _no_download(url, timeout):
    raise AssertionError(f"unexpected download of {url}")


@pytest.fixture
def env(tmp_path, monkeypatch):
    """A toy data set whose pinned upstream is tmp/upstream/toy.txt (a file:// URL)."""
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    (upstream / "toy.txt").write_bytes(TEXT)
    (upstream / "toy.gz").write_bytes(gzip.compress(TEXT, mtime=0))
    specs = (
        FileSpec.for_file(upstream / "toy.txt"),
        FileSpec.for_file(upstream / "toy.gz"),
    )
    assert not specs[0].gzipped and specs[1].gzipped
    ds = Dataset(NAME, "Toy", specs, "CC0", "none", "https://example.org")
    monkeypatch.setitem(DATASETS, NAME, ds)
    mirror, cache = tmp_path / "mirror", tmp_path / "cache"
    (mirror / NAME).mkdir(parents=True)
    monkeypatch.setenv("COURSE_LIB_DATA", f"{tmp_path / 'absent'}:{mirror}")
    monkeypatch.setenv("COURSE_LIB_CACHE", str(cache))
    monkeypatch.setattr(fetch_mod, "_urlopen", _no_download)
    return {"upstream": upstream, "mirror": mirror / NAME, "cache": cache / NAME}


def _pin(filename="toy.txt", **changes):
    """Replace the toy file's pin (e.g. a wrong sha256 or size) in the registry."""
    ds = DATASETS[NAME]
    files = dict(ds.files)
    files[filename] = replace(files[filename], **changes)
    DATASETS[NAME] = replace(ds, files=files)  # monkeypatch.setitem restores it


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


# --- mirrors -----------------------------------------------------------------------


def test_plain_mirror_copy_is_returned_in_place(env):
    (env["mirror"] / "toy.txt").write_bytes(TEXT)
    assert fetch(NAME, "toy.txt") == env["mirror"] / "toy.txt"
    assert _leftovers(env["cache"]) == [".toy.txt.mirror"]  # the stamp, no copy


def test_a_verified_mirror_copy_is_hashed_again_only_when_it_changes(env, monkeypatch):
    fetch_mod = importlib.import_module("course_lib.data.fetch")  # not the function
    mirror = env["mirror"] / "toy.txt"
    mirror.write_bytes(TEXT)
    hashed = []
    consume = fetch_mod._consume
    monkeypatch.setattr(
        fetch_mod, "_consume", lambda *a: hashed.append(a[3]) or consume(*a)
    )
    for _ in range(3):
        fetch(NAME, "toy.txt")
    assert hashed == [str(mirror)]  # once, then the stamp
    mirror.write_bytes(TEXT[:-1] + b"?")  # same size, new content and mtime
    with pytest.raises(ChecksumError):
        fetch(NAME, "toy.txt")


def test_gz_mirror_copy_is_decompressed_into_the_cache(env):
    (env["mirror"] / "toy.txt.gz").write_bytes(gzip.compress(TEXT))
    path = fetch(NAME, "toy.txt")
    assert path == env["cache"] / "toy.txt" and path.read_bytes() == TEXT
    assert _leftovers(env["cache"]) == [".toy.txt.mirror", "toy.txt", "toy.txt.sha256"]
    inode = path.stat().st_ino
    assert fetch(NAME, "toy.txt") == path and path.stat().st_ino == inode  # kept


def test_gzip_upstream_is_returned_as_gz(env):
    (env["mirror"] / "toy.gz").write_bytes(gzip.compress(TEXT, mtime=0))
    path = fetch(NAME, "toy.gz")
    assert path == env["mirror"] / "toy.gz"
    with open_text(path) as f:
        assert f.read().encode() == TEXT


def test_first_mirror_wins(env, tmp_path, monkeypatch):
    other = tmp_path / "other" / NAME
    other.mkdir(parents=True)
    (other / "toy.txt").write_bytes(TEXT)
    (env["mirror"] / "toy.txt").write_bytes(TEXT)
    monkeypatch.setenv("COURSE_LIB_DATA", f"{other.parent}:{env['mirror'].parent}")
    assert fetch(NAME, "toy.txt") == other / "toy.txt"


def test_mirror_checksum_mismatch_names_both_hashes_and_the_fix(env):
    bad = TEXT.replace(b"cat", b"dog")
    (env["mirror"] / "toy.txt").write_bytes(bad)
    with pytest.raises(ChecksumError) as err:
        fetch(NAME, "toy.txt")
    msg = str(err.value)
    assert DATASETS[NAME].files["toy.txt"].sha256 in msg
    assert hashlib.sha256(bad).hexdigest() in msg
    assert str(env["mirror"] / "toy.txt") in msg and "Fix:" in msg


def test_mirror_truncated_plain_file(env):
    (env["mirror"] / "toy.txt").write_bytes(TEXT[:100])
    with pytest.raises(TruncatedFileError, match="truncated: 100 bytes"):
        fetch(NAME, "toy.txt")


def test_mirror_truncated_gz_leaves_nothing_in_the_cache(env):
    (env["mirror"] / "toy.txt.gz").write_bytes(gzip.compress(TEXT)[:-30])
    with pytest.raises(TruncatedFileError, match="toy.txt.gz"):
        fetch(NAME, "toy.txt")
    assert _leftovers(env["cache"]) == []


def test_mirror_corrupt_gz(env):
    (env["mirror"] / "toy.txt.gz").write_bytes(b"\x1f\x8b\x08\x00" + b"garbage" * 20)
    with pytest.raises(CorruptFileError, match="not a valid gzip"):
        fetch(NAME, "toy.txt")
    (env["mirror"] / "toy.txt.gz").write_bytes(b"not gzip at all")
    with pytest.raises(CorruptFileError):
        fetch(NAME, "toy.txt")
    assert _leftovers(env["cache"]) == []


# --- cache ---------------------------------------------------------------------------


def test_cache_hit_and_tampered_cache_copy(env):
    env["cache"].mkdir(parents=True)
    cached = env["cache"] / "toy.txt"
    cached.write_bytes(TEXT)
    assert fetch(NAME, "toy.txt") == cached  # verified, sidecar written
    assert (env["cache"] / "toy.txt.sha256").exists()
    cached.write_bytes(TEXT.replace(b"mat", b"hat"))  # same size, new mtime
    os.utime(cached, ns=(1, 1))
    with pytest.raises(ChecksumError, match="delete .*toy.txt and fetch again"):
        fetch(NAME, "toy.txt")


# --- downloads -----------------------------------------------------------------------


def test_download_from_file_url(env, monkeypatch):
    monkeypatch.setattr(fetch_mod, "_urlopen", REAL_URLOPEN)
    path = fetch(NAME, "toy.txt")
    assert path == env["cache"] / "toy.txt" and path.read_bytes() == TEXT
    assert _leftovers(env["cache"]) == ["toy.txt", "toy.txt.sha256"]


class _Stream(io.BytesIO):
    """A response that serves ``data`` and then raises ``fail`` (if given)."""

    def __init__(self, data, fail=None):
        super().__init__(data)
        self.fail = fail

    def read(self, n=-1):
        chunk = super().read(min(n, 64) if n > 0 else n)
        if not chunk and self.fail:
            raise self.fail
        return chunk


def _opener(data, fail=None):
    return lambda url, timeout: _Stream(data, fail)


@pytest.mark.parametrize(
    ("served", "error", "pattern"),
    [
        (TEXT.replace(b"cat", b"cow"), ChecksumError, "checksum mismatch"),
        (TEXT[:-5], TruncatedFileError, "truncated"),
        (TEXT + b"extra", ChecksumError, "larger than the pinned"),
    ],
)
def test_bad_download_leaves_no_file(env, served, error, pattern):
    with pytest.raises(error, match=pattern) as err:
        fetch(NAME, "toy.txt", opener=_opener(served))
    assert DATASETS[NAME].files["toy.txt"].url in str(err.value)
    assert _leftovers(env["cache"]) == []


def test_no_network_and_no_copy(env):
    def offline(url, timeout):
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")

    with pytest.raises(DataUnavailableError) as err:
        fetch(NAME, "toy.txt", opener=offline)
    msg = str(err.value)
    for part in (NAME, DATASETS[NAME].files["toy.txt"].url, "COURSE_LIB_DATA"):
        assert part in msg
    assert _leftovers(env["cache"]) == []


@pytest.mark.parametrize("fail", [ConnectionResetError("reset"), KeyboardInterrupt()])
def test_interrupted_download_leaves_no_partial_file(env, fail):
    expected = DataUnavailableError if isinstance(fail, OSError) else KeyboardInterrupt
    with pytest.raises(expected):
        fetch(NAME, "toy.txt", opener=_opener(TEXT[:1000], fail))
    assert _leftovers(env["cache"]) == []


def test_http_error_is_reported(env):
    def not_found(url, timeout):
        raise urllib.error.HTTPError(url, 404, "Not Found", None, None)

    with pytest.raises(DataUnavailableError, match="404"):
        fetch(NAME, "toy.txt", opener=not_found)


def test_zip_member_download(env, tmp_path):
    archive = tmp_path / "upstream" / "bundle.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("bundle/about.txt", TEXT)
    spec = FileSpec(
        "about.txt",
        archive.as_uri(),
        hashlib.sha256(TEXT).hexdigest(),
        len(TEXT),
        member="bundle/about.txt",
    )
    DATASETS[NAME] = replace(DATASETS[NAME], files=(spec,))
    path = fetch(NAME, "about.txt", opener=REAL_URLOPEN)
    assert path.read_bytes() == TEXT
    assert _leftovers(env["cache"]) == ["about.txt", "about.txt.sha256"]
    path.unlink()
    _pin("about.txt", member="bundle/missing.txt")
    with pytest.raises(CorruptFileError, match="missing.txt"):
        fetch(NAME, "about.txt", opener=REAL_URLOPEN)
    assert _leftovers(env["cache"]) == ["about.txt.sha256"]


# --- names ---------------------------------------------------------------------------


def test_unknown_names_suggest_a_close_match():
    with pytest.raises(UnknownNameError, match="Did you mean 'wikitext-2'") as err:
        fetch("wikitext2", "train.txt")
    assert "ud_english_ewt" in str(err.value)  # lists the known names
    with pytest.raises(UnknownNameError, match="Did you mean 'train.txt'"):
        fetch("wikitext-2", "train")
    assert isinstance(err.value, ValueError)


# --- verify and the command line -----------------------------------------------------


def test_verify_copy_and_find_copies(env):
    (env["mirror"] / "toy.txt.gz").write_bytes(gzip.compress(TEXT))
    fetch(NAME, "toy.txt")
    copies = fetch_mod.find_copies(NAME, "toy.txt")
    assert [kind for kind, _ in copies] == ["mirror", "cache"]
    for _, path in copies:
        fetch_mod.verify_copy(NAME, "toy.txt", path)
    (env["cache"] / "toy.txt").write_bytes(TEXT[:-1] + b"!")
    with pytest.raises(ChecksumError):
        fetch_mod.verify_copy(NAME, "toy.txt", env["cache"] / "toy.txt")


def test_cli_list_fetch_verify(env, capsys, monkeypatch):
    monkeypatch.setattr(fetch_mod, "_urlopen", REAL_URLOPEN)
    for name in list(DATASETS):
        if name != NAME:
            monkeypatch.delitem(DATASETS, name)
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "toy.txt" in out and "missing" in out and "CC0" in out
    assert main(["fetch", NAME]) == 0
    assert main(["verify"]) == 0
    assert "2 copies checked, 0 bad" in capsys.readouterr().out
    (env["cache"] / "toy.txt").write_bytes(TEXT.upper())
    assert main(["verify"]) == 1
    assert "MISMATCH" in capsys.readouterr().err
    assert main(["fetch", "toyy"]) == 2
    assert "Did you mean 'toy'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main([])
    assert exit_.value.code == 2


def test_cli_runs_as_a_module(tmp_path):
    environ = dict(os.environ, COURSE_LIB_DATA="", COURSE_LIB_CACHE=str(tmp_path))
    result = subprocess.run(
        [sys.executable, "-m", "course_lib.data", "list"],
        capture_output=True,
        text=True,
        env=environ,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "ud_english_ewt" in result.stdout and "multi30k_en_de" in result.stdout
    assert "download only" in result.stdout

"""The SST-2 reader on invented lines (no SST-2 text is committed) and through fetch."""

from __future__ import annotations

import gzip
import hashlib
import importlib
from dataclasses import replace

import pytest

from course_lib.data import DATASETS, DataError, FileSpec, UnknownNameError, read_sst2
from course_lib.data import sst2 as load_sst2

TEXT = "label\tsentence\n1\ta gorgeous , witty film .\n0\tit 's not good .\n"


def test_reads_labels_and_sentences(tmp_path):
    path = tmp_path / "dev.tsv"
    path.write_text(TEXT, encoding="utf-8")
    assert read_sst2(path) == [
        (1, "a gorgeous , witty film ."),
        (0, "it 's not good ."),
    ]


@pytest.mark.parametrize(
    "bad, line",
    [
        ("label\tsentence\n2\tbad label\n", 2),
        ("label\tsentence\n1\tok\n0 no tab\n", 3),
        ("label\tsentence\n1\t\n", 2),
        ("sentence only\n", 1),
    ],
)
def test_a_bad_line_names_file_and_line(tmp_path, bad, line):
    path = tmp_path / "train.tsv"
    path.write_text(bad, encoding="utf-8")
    with pytest.raises(DataError, match=rf"train\.tsv, line {line}:"):
        read_sst2(path)


def test_fetch_reads_a_gz_mirror_copy_and_checks_its_pin(tmp_path, monkeypatch):
    mirror = tmp_path / "mirror" / "sst2"
    mirror.mkdir(parents=True)
    (mirror / "dev.tsv.gz").write_bytes(gzip.compress(TEXT.encode(), mtime=0))
    monkeypatch.setenv("COURSE_LIB_DATA", str(tmp_path / "mirror"))
    monkeypatch.setenv("COURSE_LIB_CACHE", str(tmp_path / "cache"))
    fetch_mod = importlib.import_module("course_lib.data.fetch")

    def offline(url, timeout):
        raise AssertionError(f"unexpected download of {url}")

    monkeypatch.setattr(fetch_mod, "_urlopen", offline)
    ds = DATASETS["sst2"]
    digest = hashlib.sha256(TEXT.encode()).hexdigest()
    spec = FileSpec("dev.tsv", ds.files["dev.tsv"].url, digest, len(TEXT.encode()))
    monkeypatch.setitem(
        DATASETS, "sst2", replace(ds, files={**ds.files, "dev.tsv": spec})
    )
    assert load_sst2("dev")[1] == (0, "it 's not good .")
    with pytest.raises(UnknownNameError, match="choose one of train, dev, test"):
        load_sst2("validation")

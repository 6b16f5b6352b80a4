import json

import numpy as np
import pytest
import torch

from course_lib import results


def test_record_writes_json_and_prints_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_RESULTS_DIR", str(tmp_path))
    # None: a record as a cell's last line leaves no stray value on the page
    assert results.record("ch01", "acc", torch.tensor(0.5), glue=False) is None
    results.record("ch01", "table", {"a": np.float32(1.5), "b": [1, 2]}, glue=False)
    data = json.loads((tmp_path / "ch01.json").read_text())
    run = data.pop("_run")
    assert data == {"acc": 0.5, "table": {"a": 1.5, "b": [1, 2]}}
    assert results.load("ch01") == data
    assert results.run_info("ch01") == run and run["profile"] in ("smoke", "cpu", "gpu")
    assert results.run_info("ch02") is None
    assert results.recorded_chapters() == ["ch01"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_record_rejects_bad_names_and_values(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_RESULTS_DIR", str(tmp_path))
    with pytest.raises(ValueError):
        results.record("ch01", "not a name", 1)
    with pytest.raises(TypeError, match="JSON"):
        results.record("ch01", "obj", object(), glue=False)


def test_record_glues_for_myst_nb(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_RESULTS_DIR", str(tmp_path))
    glued = {}
    import myst_nb

    monkeypatch.setattr(
        myst_nb, "glue", lambda name, value, display: glued.update({name: value})
    )
    results.record("ch01", "x", 3)
    assert glued == {"ch01_x": 3}


def test_recorder_binds_the_chapter(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_RESULTS_DIR", str(tmp_path))
    calls = []
    monkeypatch.setattr(
        results, "record", lambda *a, **kw: calls.append((a, kw)) or a[2]
    )
    ch06 = results.recorder("ch06")
    assert ch06("speedup", 2.5) is None
    ch06("table", [1], glue=False)
    assert calls == [
        (("ch06", "speedup", 2.5), {"glue": True}),
        (("ch06", "table", [1]), {"glue": False}),
    ]
    assert ch06.__name__ == "ch06"


def test_recorder_writes_what_record_writes(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_RESULTS_DIR", str(tmp_path))
    rec = results.recorder("ch02", glue=False)
    assert rec("n", np.int64(3)) is None
    assert results.load("ch02") == {"n": 3}
    with pytest.raises(ValueError, match="chapter must be"):
        results.recorder("")
    with pytest.raises(ValueError, match="identifiers"):
        rec("not a name", 1)


def test_record_keeps_the_seed_and_the_examples(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_RESULTS_DIR", str(tmp_path))
    monkeypatch.setenv("COURSE_SEED", "2")
    results.record("ch03", "verdict", "ahead", glue=False)
    results.record("ch03", "sample", "the cat sat", glue=False, example=True)
    assert results.run_info("ch03")["seed"] == 2
    data = json.loads((tmp_path / "ch03.json").read_text())
    assert data["_examples"] == ["sample"]
    assert results.load("ch03") == {"verdict": "ahead", "sample": "the cat sat"}
    results.record("ch03", "sample", "a finding after all", glue=False)
    assert "_examples" not in json.loads((tmp_path / "ch03.json").read_text())

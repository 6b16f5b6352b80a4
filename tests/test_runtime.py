import random

import numpy as np
import pytest
import torch

from course_lib import runtime


def test_profile_default_and_override(monkeypatch):
    monkeypatch.delenv("COURSE_PROFILE", raising=False)
    expected = "gpu" if torch.cuda.is_available() else "cpu"
    assert runtime.profile() == expected
    monkeypatch.setenv("COURSE_PROFILE", "smoke")
    assert runtime.profile() == "smoke"


def test_profile_rejects_unknown(monkeypatch):
    monkeypatch.setenv("COURSE_PROFILE", "fast")
    with pytest.raises(ValueError, match="COURSE_PROFILE"):
        runtime.profile()


def test_pick_follows_profile(monkeypatch):
    monkeypatch.setenv("COURSE_PROFILE", "cpu")
    assert runtime.pick(smoke=1, cpu=2, gpu=3) == 2
    assert runtime.pick(smoke=1, cpu=2, gpu=3, profile_name="gpu") == 3
    with pytest.raises(ValueError):
        runtime.pick(smoke=1, cpu=2, gpu=3, profile_name="tpu")


def test_device_override(monkeypatch):
    monkeypatch.setenv("COURSE_DEVICE", "cpu")
    assert runtime.device() == torch.device("cpu")
    monkeypatch.setenv("COURSE_DEVICE", "nonsense")
    with pytest.raises(ValueError, match="COURSE_DEVICE"):
        runtime.device()


def test_seed_everything_repeats():
    runtime.seed_everything(7)
    a = (random.random(), np.random.rand(), torch.rand(3))
    runtime.seed_everything(7)
    b = (random.random(), np.random.rand(), torch.rand(3))
    assert a[0] == b[0] and a[1] == b[1] and torch.equal(a[2], b[2])
    with pytest.raises(ValueError):
        runtime.seed_everything(-1)


def test_one_thread_sets_one_cpu_thread_and_restores_the_count():
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        with runtime.one_thread():
            assert torch.get_num_threads() == 1
        with runtime.one_thread("cpu"):
            assert torch.get_num_threads() == 1
        with runtime.one_thread(
            "cuda"
        ):  # the GPU's work: the CPU threads are left alone
            assert torch.get_num_threads() == 2
        with pytest.raises(RuntimeError), runtime.one_thread():
            raise RuntimeError("restored even so")
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_a_gpu_check_keeps_the_gpu_sizes_and_cuts_the_work(monkeypatch):
    cfg = dict(d_model=256, steps=4000, enc=dict(layers=6, steps=300), lines=None)
    check = dict(steps=3, enc=dict(steps=2), lines=200)
    monkeypatch.setenv("COURSE_PROFILE", "gpu")
    monkeypatch.delenv("COURSE_GPU_CHECK", raising=False)
    assert not runtime.in_gpu_check()
    assert runtime.pick(smoke=0, cpu=1, gpu=cfg, gpu_check=check) == cfg
    monkeypatch.setenv("COURSE_GPU_CHECK", "1")
    assert runtime.in_gpu_check()
    assert runtime.pick(smoke=0, cpu=1, gpu=cfg, gpu_check=check) == dict(
        d_model=256, steps=3, enc=dict(layers=6, steps=2), lines=200
    )
    assert runtime.pick(smoke=0, cpu=1, gpu=7) == 7  # nothing to cut: the gpu value
    monkeypatch.setenv("COURSE_PROFILE", "cpu")  # a check changes the gpu profile only
    assert runtime.pick(smoke=0, cpu=1, gpu=cfg, gpu_check=check) == 1


def test_pick_reads_a_sizes_table_row_by_row(monkeypatch):
    table = {
        "epochs": (1, 5, 20, 2),
        "sizes": (dict(d=8), dict(d=64), dict(d=256, n=9)),
    }
    monkeypatch.delenv(runtime.GPU_CHECK_ENV, raising=False)
    rows = {name: runtime.pick(table, profile_name=name) for name in runtime.PROFILES}
    assert rows == {
        "smoke": {"epochs": 1, "sizes": {"d": 8}},
        "cpu": {"epochs": 5, "sizes": {"d": 64}},
        "gpu": {"epochs": 20, "sizes": {"d": 256, "n": 9}},
    }
    keywords = dict(smoke=rows["smoke"], cpu=rows["cpu"], gpu=rows["gpu"])
    monkeypatch.setenv(runtime.GPU_CHECK_ENV, "1")
    checked = runtime.pick(table, profile_name="gpu")
    assert checked == {"epochs": 2, "sizes": {"d": 256, "n": 9}}
    table["sizes"] += (
        dict(n=1),
    )  # a nested change is laid over the gpu value key by key
    assert runtime.pick(table, profile_name="gpu")["sizes"] == {"d": 256, "n": 1}
    assert (
        runtime.pick(**keywords, gpu_check={"epochs": 2}, profile_name="gpu") == checked
    )


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (({"epochs": (1, 5)},), {}, "the row 'epochs' must be a tuple"),
        (({"epochs": [1, 5, 20]},), {}, "the row 'epochs' must be a tuple"),
        (({"epochs": (1, 5, 20)},), {"cpu": 3}, "not both"),
        ((), {"smoke": 1, "cpu": 2}, "give smoke=, cpu= and gpu="),
    ],
)
def test_pick_says_what_is_wrong_with_a_table(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        runtime.pick(*args, **kwargs)

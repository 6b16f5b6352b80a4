"""The settings read from the environment: a value the run cannot use fails at once, clearly.

``COURSE_DEVICE`` naming a device this torch cannot use (the sweep's C08-C16) raises
:class:`SettingError` from ``device()``, naming the variable and the fix, before a model or
a results file sees it. CUDA and MPS are faked with monkeypatch, so this runs on any machine.
"""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib import results, runtime
from course_lib.runtime import SettingError


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("cuda:7", "CUDA"),
        ("cuda", "CUDA"),
        ("mps", "MPS"),
        ("meta", "'meta' is not available"),
        ("gpu", "not a torch device"),
        ("cuda:x", "not a torch device"),
    ],
)
def test_a_device_this_torch_cannot_use_is_refused_naming_the_setting(
    monkeypatch, no_gpu, value, why
):
    monkeypatch.setenv("COURSE_DEVICE", value)
    with pytest.raises(SettingError, match=why) as info:
        runtime.device()
    message = str(info.value)
    assert (
        f"COURSE_DEVICE={value!r}" in message and "\nFix: set COURSE_DEVICE" in message
    )
    assert isinstance(info.value, ValueError)  # what callers caught before


def test_cuda_7_with_one_gpu_lists_the_visible_devices(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setenv("COURSE_DEVICE", "cuda:7")
    with pytest.raises(SettingError, match=r"only 1 CUDA device\(s\) .*\(cuda:0\)"):
        runtime.device()
    monkeypatch.setenv("COURSE_DEVICE", "cuda:0")
    assert runtime.device() == torch.device("cuda:0")


def test_usable_devices_pass_and_the_default_is_unchanged(monkeypatch, no_gpu):
    monkeypatch.setenv("COURSE_DEVICE", " cpu ")
    assert runtime.device() == torch.device("cpu")
    monkeypatch.delenv("COURSE_DEVICE")
    assert runtime.device() == torch.device("cpu")


def test_record_refuses_to_store_an_unusable_device(tmp_path, monkeypatch, no_gpu):
    """C16: the results file never says a run used cuda:7 when it could not."""
    monkeypatch.setenv("COURSE_RESULTS_DIR", str(tmp_path))
    monkeypatch.setenv("COURSE_DEVICE", "cuda:7")
    with pytest.raises(SettingError, match="COURSE_DEVICE"):
        results.record("ch01", "acc", 0.9, glue=False)
    assert not list(tmp_path.glob("*.json"))


def test_profile_names_the_setting_and_the_fix(monkeypatch):
    monkeypatch.setenv("COURSE_PROFILE", "fast")
    with pytest.raises(SettingError, match="COURSE_PROFILE must be one of") as info:
        runtime.profile()
    assert "Fix:" in str(info.value)


DEVICE_NAMES = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["cpu", "cuda", "mps", "meta", "xpu", "cpu:0", " CPU", "cuda:-1"]),
    st.builds(
        "{}:{}".format,
        st.sampled_from(["cpu", "cuda", "mps"]),
        st.integers(-2, 20),
    ),
)


@settings(max_examples=150)
@given(DEVICE_NAMES)
def test_any_course_device_gives_a_usable_device_or_a_setting_error(value):
    """Property: whatever COURSE_DEVICE holds, device() returns a device a tensor can
    live on, or raises SettingError naming COURSE_DEVICE; nothing else."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("COURSE_DEVICE", value.replace("\x00", ""))
        try:
            chosen = runtime.device()
        except SettingError as err:
            assert "COURSE_DEVICE" in str(err)
        else:
            torch.zeros(1, device=chosen)

"""The FSDD reader (course_lib.data.fsdd): WAV decoding, downmix, splits, bad files."""

import importlib
import io
import tarfile
import wave
from dataclasses import replace

import numpy as np
import pytest

from course_lib.data import DATASETS, FileSpec, fsdd, read_wav, speaker_split


def _wav(samples, rate=8000, channels=1, width=2) -> bytes:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(np.asarray(samples, dtype="<i2" if width == 2 else np.uint8))
    return buf.getvalue()


def test_mono_16_bit_scaled_to_unit_range():
    audio, rate = read_wav(_wav([0, 16384, -32768, 32767]))
    assert rate == 8000 and audio.dtype == np.float32
    np.testing.assert_allclose(audio, [0, 0.5, -1, 32767 / 32768])


def test_stereo_is_downmixed_to_the_channel_mean():
    left, right = np.array([1000, 2000, -4000]), np.array([3000, 0, 4000])
    interleaved = np.stack([left, right], 1).reshape(-1)
    audio, _ = read_wav(_wav(interleaved, channels=2))
    np.testing.assert_allclose(audio, (left + right) / 2 / 32768)


def test_8_bit_is_unsigned():
    audio, _ = read_wav(_wav([128, 255, 0], width=1))
    np.testing.assert_allclose(audio, [0, 127 / 128, -1])


def test_bad_files_raise_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="16000 Hz; expected 8000"):
        read_wav(_wav([1, 2, 3], rate=16000))
    with pytest.raises(ValueError, match="empty recording"):
        read_wav(_wav([]))
    (tmp_path / "x.wav").write_bytes(b"not a wav")
    with pytest.raises(ValueError, match="not a PCM WAV"):
        read_wav(tmp_path / "x.wav")
    assert read_wav(_wav([1], rate=16000), expected_rate=None)[1] == 16000


@pytest.fixture
def tiny_archive(tmp_path, monkeypatch):
    """A two-speaker recordings.tar.gz installed as the pinned mirror copy."""
    mirror = tmp_path / "mirror" / "fsdd"
    mirror.mkdir(parents=True)
    path = mirror / "recordings.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for name in ["3_ann_0.wav", "3_ann_7.wav", "5_bob_4.wav", "5_bob_12.wav"]:
            data = _wav(np.arange(40) * 10)
            info = tarfile.TarInfo(f"recordings/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    monkeypatch.setenv("COURSE_LIB_DATA", str(tmp_path / "mirror"))
    monkeypatch.setenv("COURSE_LIB_CACHE", str(tmp_path / "cache"))
    spec = replace(FileSpec.for_file(path), gzipped=True)
    monkeypatch.setitem(
        DATASETS, "fsdd", replace(DATASETS["fsdd"], files={spec.name: spec})
    )
    fetch_mod = importlib.import_module("course_lib.data.fetch")
    monkeypatch.setattr(fetch_mod, "_urlopen", lambda url, t: 1 / 0)
    return path


def test_official_split_by_index(tiny_archive):
    test = fsdd("test")
    train = fsdd("train")
    assert [(r.digit, r.speaker, r.index) for r in test] == [
        (3, "ann", 0),
        (5, "bob", 4),
    ]
    assert sorted(r.index for r in train) == [7, 12]
    assert len(fsdd()) == 4 and test[0].seconds == 40 / 8000
    with pytest.raises(ValueError, match="split"):
        fsdd("dev")


def test_speaker_split(tiny_archive):
    rest, held = speaker_split(fsdd(), "bob")
    assert {r.speaker for r in rest} == {"ann"} and len(held) == 2
    with pytest.raises(ValueError, match="held_out"):
        speaker_split(fsdd(), "carol")


def test_real_mirror_counts():
    recordings = fsdd("test")  # the verified mirror copy (COURSE_LIB_DATA)
    assert len(recordings) == 300
    assert {r.sample_rate for r in recordings} == {8000}
    assert len({r.speaker for r in recordings}) == 6
    assert all(r.index < 5 and r.audio.size > 0 for r in recordings)

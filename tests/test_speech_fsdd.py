"""The FSDD reader (course_lib.data.fsdd): WAV decoding, downmix, splits, bad files."""

import hashlib
import importlib
import io
import os
import tarfile
import urllib.error
import wave
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from course_lib.data import (
    DATASETS,
    ChecksumError,
    DataUnavailableError,
    FileSpec,
    fsdd,
    read_wav,
    speaker_split,
)
from course_lib.data.registry import FSDD_RECORDINGS_URL

fsdd_mod = importlib.import_module("course_lib.data.fsdd")


def _mirror_entries():
    return [e for e in os.environ.get("COURSE_LIB_DATA", "").split(os.pathsep) if e]


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


# --- per-file download (no mirror, no cached archive) ----------------------------------

RAW_NAMES = ["3_ann_0.wav", "3_ann_7.wav", "5_bob_4.wav"]


class _Served(io.BytesIO):
    """A fake response: its bytes, or ``fail`` raised after the first read."""

    def __init__(self, data, fail=None):
        super().__init__(data)
        self.fail, self.reads = fail, 0

    def read(self, n=-1):
        self.reads += 1
        if self.fail is not None and self.reads > 1:
            raise self.fail
        return super().read(max(1, len(self.getvalue()) // 2) if self.fail else n)


@pytest.fixture
def upstream(tmp_path, monkeypatch):
    """Three WAVs served per file (a fake opener), their manifest, an empty mirror."""
    wavs = {n: _wav(np.arange(30 + i) * 7) for i, n in enumerate(RAW_NAMES)}
    manifest = tmp_path / "manifest.sha256"
    rows = [f"{hashlib.sha256(d).hexdigest()}  {len(d)}  {n}" for n, d in wavs.items()]
    manifest.write_text("# test manifest\n" + "\n".join(rows) + "\n")
    (tmp_path / "mirror").mkdir()
    monkeypatch.setenv("COURSE_LIB_DATA", str(tmp_path / "mirror"))
    monkeypatch.setenv("COURSE_LIB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("COURSE_PROGRESS", "0")
    fetch_mod = importlib.import_module("course_lib.data.fetch")
    monkeypatch.setattr(fetch_mod, "_urlopen", lambda url, t: 1 / 0)
    state = {"wavs": wavs, "urls": [], "bad": {}, "fail": None}

    def opener(url, timeout):
        state["urls"].append(url)
        name = url.rsplit("/", 1)[1]
        return _Served(state["bad"].get(name, wavs[name]), state["fail"])

    state["opener"] = opener
    state["manifest"] = manifest
    state["folder"] = tmp_path / "cache" / "fsdd" / "recordings"
    return state


def _files(folder):
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_download_verify_and_read(upstream):
    recs = fsdd("test", manifest=upstream["manifest"], opener=upstream["opener"])
    assert [(r.digit, r.speaker, r.index) for r in recs] == [
        (3, "ann", 0),
        (5, "bob", 4),
    ]
    assert upstream["urls"] == [FSDD_RECORDINGS_URL + n for n in RAW_NAMES]
    assert FSDD_RECORDINGS_URL.startswith("https://raw.githubusercontent.com/")
    assert [n for n in _files(upstream["folder"]) if n.endswith(".wav")] == RAW_NAMES
    assert not [n for n in _files(upstream["folder"]) if n.endswith(".part")]
    np.testing.assert_allclose(recs[0].audio * 32768, np.arange(30) * 7)


def test_cached_files_are_not_downloaded_again(upstream):
    fsdd(manifest=upstream["manifest"], opener=upstream["opener"])
    (upstream["folder"] / RAW_NAMES[1]).unlink()
    upstream["urls"].clear()
    assert len(fsdd(manifest=upstream["manifest"], opener=upstream["opener"])) == 3
    assert upstream["urls"] == [FSDD_RECORDINGS_URL + RAW_NAMES[1]]


def test_corrupted_download_is_rejected_and_leaves_no_file(upstream):
    good = upstream["wavs"][RAW_NAMES[1]]
    upstream["bad"][RAW_NAMES[1]] = good[:-1] + bytes([good[-1] ^ 1])
    with pytest.raises(ChecksumError) as err:
        fsdd(manifest=upstream["manifest"], opener=upstream["opener"])
    msg = str(err.value)
    for part in (
        RAW_NAMES[1],
        hashlib.sha256(good).hexdigest(),
        hashlib.sha256(upstream["bad"][RAW_NAMES[1]]).hexdigest(),
        "Fix:",
    ):
        assert part in msg
    assert RAW_NAMES[1] not in _files(upstream["folder"])
    assert not [n for n in _files(upstream["folder"]) if n.endswith(".part")]


@pytest.mark.parametrize("fail", [ConnectionResetError("reset"), KeyboardInterrupt()])
def test_interrupted_download_leaves_nothing_half_written(upstream, fail):
    upstream["fail"] = fail
    expected = DataUnavailableError if isinstance(fail, OSError) else KeyboardInterrupt
    with pytest.raises(expected):
        fsdd(manifest=upstream["manifest"], opener=upstream["opener"])
    assert _files(upstream["folder"]) == []


def test_no_network_names_the_dataset_url_and_mirror(upstream):
    def offline(url, timeout):
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")

    with pytest.raises(DataUnavailableError) as err:
        fsdd(manifest=upstream["manifest"], opener=offline)
    msg = str(err.value)
    url = FSDD_RECORDINGS_URL + RAW_NAMES[0]
    for part in ("fsdd", url, "COURSE_LIB_DATA", "fsdd/recordings.tar.gz"):
        assert part in msg
    assert _files(upstream["folder"]) == []


def test_shipped_manifest_pins_every_recording():
    specs = fsdd_mod.recording_specs()
    assert len(specs) == 3000 and len({s.name for s in specs}) == 3000
    assert all(s.url == FSDD_RECORDINGS_URL + s.name for s in specs)
    assert all(fsdd_mod._parse(s.name) and s.bytes > 44 for s in specs)
    shared = [Path(e) / "fsdd" / "MANIFEST.sha256" for e in _mirror_entries()]
    for path in filter(Path.is_file, shared):
        rows = dict(reversed(line.split()) for line in path.read_text().splitlines())
        assert {s.name: s.sha256 for s in specs} == rows


def test_cli_fetch_downloads_the_wavs_without_a_mirror(upstream, monkeypatch, capsys):
    from course_lib.data.__main__ import main

    fetch_mod = importlib.import_module("course_lib.data.fetch")
    monkeypatch.setattr(fetch_mod, "_urlopen", upstream["opener"])
    monkeypatch.setattr(fsdd_mod, "MANIFEST", upstream["manifest"])
    assert main(["fetch", "fsdd"]) == 0
    assert str(upstream["folder"]) in capsys.readouterr().out
    assert [n for n in _files(upstream["folder"]) if n.endswith(".wav")] == RAW_NAMES


def test_cli_list_and_verify_see_the_cached_wavs(upstream, monkeypatch, capsys):
    from course_lib.data.__main__ import main

    monkeypatch.setattr(fsdd_mod, "MANIFEST", upstream["manifest"])
    fsdd(opener=upstream["opener"])
    assert main(["list"]) == 0
    assert "3 of 3,000 in the cache" in capsys.readouterr().out
    assert main(["verify"]) == 0
    assert "3 copies checked, 0 bad." in capsys.readouterr().out
    wav = upstream["folder"] / RAW_NAMES[2]
    wav.write_bytes(wav.read_bytes()[:-2] + b"xx")
    assert main(["verify"]) == 1
    err = capsys.readouterr().err
    assert "MISMATCH" in err and RAW_NAMES[2] in err

"""The Free Spoken Digit Dataset (FSDD): 3,000 recordings of the digits 0-9. Chapter 10.

Six speakers each say every digit 50 times (mono 16-bit WAV at 8 kHz, file names
``{digit}_{speaker}_{index}.wav``). The official split puts indices 0-4 in the test set
and 5-49 in the training set, so every speaker is in both halves; a held-out speaker
(:func:`speaker_split`) measures what the official split cannot: a new voice.

WAV files are read with the standard library's :mod:`wave`. Some upstream releases held
stereo files: :func:`read_wav` averages the channels (a downmix). A sample rate other
than 8 kHz or an empty recording raises ``ValueError``.
"""

from __future__ import annotations

import io
import re
import tarfile
import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from course_lib.data.fetch import fetch

__all__ = ["FSDD_RATE", "Recording", "fsdd", "read_wav", "speaker_split"]

FSDD_RATE = 8000
_NAME = re.compile(r"(?:.*/)?(\d)_([a-z]+)_(\d+)\.wav$")


@dataclass(frozen=True)
class Recording:
    """One recording: its digit, speaker, index (0-49) and samples (N,) in [-1, 1]."""

    digit: int
    speaker: str
    index: int
    audio: np.ndarray
    sample_rate: int = FSDD_RATE

    @property
    def seconds(self) -> float:
        return len(self.audio) / self.sample_rate


def read_wav(
    source: str | Path | bytes, expected_rate: int | None = FSDD_RATE
) -> tuple[np.ndarray, int]:
    """Read a PCM WAV (8- or 16-bit, mono or multi-channel) as float32 in [-1, 1].

    source: a path or the file's bytes. Channels are averaged (a stereo file becomes
    mono). expected_rate: the sample rate required (None accepts any).
    Returns (samples (N,), sample_rate).
    """
    name = "<bytes>" if isinstance(source, bytes) else str(source)
    raw = source if isinstance(source, bytes) else Path(source).read_bytes()
    try:
        with wave.open(io.BytesIO(raw)) as w:
            channels, width, rate = w.getnchannels(), w.getsampwidth(), w.getframerate()
            pcm = w.readframes(w.getnframes())
    except (wave.Error, EOFError) as err:
        raise ValueError(f"{name} is not a PCM WAV file: {err}") from err
    if width == 2:
        samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
    elif width == 1:  # 8-bit WAV is unsigned
        samples = (np.frombuffer(pcm, dtype=np.uint8).astype(np.float32) - 128) / 128
    else:
        raise ValueError(f"{name}: {8 * width}-bit samples; only 8 and 16 bit are read")
    if samples.size == 0:
        raise ValueError(f"{name} is an empty recording (0 samples)")
    audio = samples.reshape(-1, channels).mean(axis=1)  # (N,) downmix
    if expected_rate is not None and rate != expected_rate:
        raise ValueError(
            f"{name} is sampled at {rate} Hz; expected {expected_rate} Hz (resample it)"
        )
    return audio.astype(np.float32), rate


def _parse(member: str) -> tuple[int, str, int]:
    match = _NAME.match(member)
    if not match:
        raise ValueError(f"{member!r} is not named {{digit}}_{{speaker}}_{{index}}.wav")
    return int(match[1]), match[2], int(match[3])


def fsdd(split: str = "all", *, archive: str | Path | None = None) -> list[Recording]:
    """The FSDD recordings of one official split: ``"train"`` (index 5-49), ``"test"``
    (index 0-4) or ``"all"``, sorted by (speaker, digit, index).

    archive: a ``recordings.tar.gz`` to read (default: the verified, pinned copy from
    :func:`course_lib.data.fetch`, mirror first).
    """
    if split not in ("all", "train", "test"):
        raise ValueError(f"split must be 'all', 'train' or 'test'; got {split!r}")
    path = archive if archive is not None else fetch("fsdd", "recordings.tar.gz")
    out = []
    with tarfile.open(path, "r:gz") as tar:
        for member in tar:
            if not member.isfile() or not member.name.endswith(".wav"):
                continue
            digit, speaker, index = _parse(member.name)
            if (split == "test") != (index < 5) and split != "all":
                continue
            audio, rate = read_wav(tar.extractfile(member).read())
            out.append(Recording(digit, speaker, index, audio, rate))
    return sorted(out, key=lambda r: (r.speaker, r.digit, r.index))


def speaker_split(
    recordings: list[Recording], held_out: str
) -> tuple[list[Recording], list[Recording]]:
    """(recordings of the other speakers, recordings of ``held_out``)."""
    speakers = sorted({r.speaker for r in recordings})
    if held_out not in speakers:
        raise ValueError(f"held_out must be one of {speakers}; got {held_out!r}")
    return (
        [r for r in recordings if r.speaker != held_out],
        [r for r in recordings if r.speaker == held_out],
    )

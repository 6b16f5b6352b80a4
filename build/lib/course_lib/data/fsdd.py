"""The Free Spoken Digit Dataset (FSDD): 3,000 recordings of the digits 0-9. Chapter 10.

Six speakers each say every digit 50 times (mono 16-bit WAV at 8 kHz, file names
``{digit}_{speaker}_{index}.wav``). The official split puts indices 0-4 in the test set
and 5-49 in the training set, so every speaker is in both halves; a held-out speaker
(:func:`speaker_split`) measures what the official split cannot: a new voice.

WAV files are read with the standard library's :mod:`wave`. Some upstream releases held
stereo files: :func:`read_wav` averages the channels (a downmix). A sample rate other
than 8 kHz or an empty recording raises ``ValueError``.

Where the data comes from: the archive ``recordings.tar.gz`` when a mirror
(``COURSE_LIB_DATA``) or the cache holds it (the mirror's packing, verified by its pin);
otherwise each WAV is downloaded from the upstream repository at the pinned commit into
``<cache>/fsdd/recordings/``, verified against the manifest shipped with the package
(``fsdd_manifest.sha256``: sha256, size and name of each file; the recordings are
CC BY-SA 4.0, Jackson et al. and the FSDD contributors).
"""

from __future__ import annotations

import io
import re
import tarfile
import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from course_lib.data.fetch import Opener, cache_dir, fetch, fetch_spec, find_copies
from course_lib.data.registry import FSDD_RECORDINGS_URL, FileSpec

__all__ = [
    "FSDD_RATE",
    "Recording",
    "cached_recordings",
    "fetch_recordings",
    "fsdd",
    "read_wav",
    "speaker_split",
]

FSDD_RATE = 8000
MANIFEST = Path(__file__).with_name("fsdd_manifest.sha256")
_ARCHIVE = "recordings.tar.gz"
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


def fsdd(
    split: str = "all",
    *,
    archive: str | Path | None = None,
    manifest: str | Path | None = None,
    opener: Opener | None = None,
) -> list[Recording]:
    """The FSDD recordings of one official split: ``"train"`` (index 5-49), ``"test"``
    (index 0-4) or ``"all"``, sorted by (speaker, digit, index).

    archive: a ``recordings.tar.gz`` to read (default: the verified, pinned copy from
    :func:`course_lib.data.fetch` when a mirror or the cache has one; else the WAVs are
    fetched one by one by :func:`fetch_recordings`). manifest, opener: passed to it.
    """
    if split not in ("all", "train", "test"):
        raise ValueError(f"split must be 'all', 'train' or 'test'; got {split!r}")
    if archive is None and find_copies("fsdd", _ARCHIVE):
        archive = fetch("fsdd", _ARCHIVE)
    if archive is not None:
        pairs = _archive_wavs(archive)
    else:
        folder = fetch_recordings(manifest=manifest, opener=opener)
        pairs = (
            (s.name, (folder / s.name).read_bytes()) for s in recording_specs(manifest)
        )
    out = []
    for name, data in pairs:
        digit, speaker, index = _parse(name)
        if (split == "test") != (index < 5) and split != "all":
            continue
        audio, rate = read_wav(data)
        out.append(Recording(digit, speaker, index, audio, rate))
    return sorted(out, key=lambda r: (r.speaker, r.digit, r.index))


def _archive_wavs(path: str | Path):
    """(member name, bytes) of every WAV in a ``recordings.tar.gz``."""
    with tarfile.open(path, "r:gz") as tar:
        for member in tar:
            if member.isfile() and member.name.endswith(".wav"):
                yield member.name, tar.extractfile(member).read()


def recording_specs(manifest: str | Path | None = None) -> list[FileSpec]:
    """One pin per WAV from a manifest of ``sha256  bytes  name`` lines (``#`` comments)."""
    path = Path(manifest) if manifest is not None else MANIFEST
    specs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            digest, size, name = line.split()
            specs.append(FileSpec(name, FSDD_RECORDINGS_URL + name, digest, int(size)))
    return specs


def fetch_recordings(
    *, manifest: str | Path | None = None, opener: Opener | None = None
) -> Path:
    """Download every WAV of the manifest into ``<cache>/fsdd/recordings/``, verified.

    Files already there and verified are kept; each download goes to a temporary file
    renamed only when its sha256 and size match (see :func:`course_lib.data.fetch`).
    manifest: default the one shipped with the package. opener: ``(url, timeout) ->
    stream``, default urllib. Returns the folder. Raises ``ChecksumError`` /
    ``TruncatedFileError`` for a bad file, ``DataUnavailableError`` offline.
    """
    from course_lib.runtime import progress_bar  # imported here: keeps imports light

    folder = cache_dir() / "fsdd" / "recordings"
    specs = recording_specs(manifest)
    for spec in progress_bar(specs, desc="FSDD recordings", unit="file"):
        fetch_spec(
            "fsdd", spec, folder / spec.name, opener=opener, mirror_file=_ARCHIVE
        )
    return folder


def cached_recordings(
    manifest: str | Path | None = None,
) -> list[tuple[FileSpec, Path]]:
    """(pin, path) of each manifest WAV present in ``<cache>/fsdd/recordings/``."""
    folder = cache_dir() / "fsdd" / "recordings"
    pairs = [(spec, folder / spec.name) for spec in recording_specs(manifest)]
    return [(spec, path) for spec, path in pairs if path.is_file()]


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

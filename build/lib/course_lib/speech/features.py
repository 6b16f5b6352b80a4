"""Audio as a sequence: framing, windows, the STFT and log-mel spectrograms. Chapter 10.

*Sequence Models*, week 3 (speech recognition); the HTK mel scale, m = 2595 log10(1 + f/700)
(Young et al., *The HTK Book*). The STFT is ``torch.stft``; the mel filterbank is written
by hand (torchaudio is not used: its wheel does not import beside CPU torch 2.13).

Shape legend: N samples, L frame length, T frames, F = n_fft // 2 + 1 frequency bins,
M mel bands.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

__all__ = [
    "SAMPLE_RATE",
    "frames",
    "hz_to_mel",
    "log_mel",
    "mel_filterbank",
    "mel_to_hz",
    "power_spectrogram",
    "window",
]

SAMPLE_RATE = 8000  # FSDD's rate, and the rate every function here expects by default


def _check_wave(x: Tensor, name: str = "waveform") -> None:
    if not isinstance(x, Tensor) or not x.is_floating_point():
        raise TypeError(
            f"{name} must be a floating-point tensor; got {type(x).__name__}"
        )
    if x.dim() not in (1, 2):
        raise ValueError(f"{name} must be (N,) or (B, N); got {tuple(x.shape)}")
    if x.size(-1) == 0:
        raise ValueError(f"{name} is empty (0 samples): nothing to analyse")


def _check_framing(x: Tensor, frame_length: int, hop: int) -> None:
    _check_wave(x)
    if frame_length < 1 or hop < 1:
        raise ValueError(
            f"frame_length and hop must be >= 1; got {frame_length}, {hop}"
        )
    if x.size(-1) < frame_length:
        raise ValueError(
            f"the waveform has {x.size(-1)} samples, fewer than one frame "
            f"({frame_length}); pad it first"
        )


def frames(x: Tensor, frame_length: int, hop: int) -> Tensor:
    """Cut a waveform into overlapping frames, x_t[n] = x[t·hop + n].

    x: (N,) or (B, N), N >= frame_length. Returns (T, L) or (B, T, L) with
    T = 1 + (N - L) // hop (a partial last frame is dropped).
    """
    _check_framing(x, frame_length, hop)
    return x.unfold(-1, frame_length, hop)  # (..., T, L)


def window(name: str, length: int, *, device=None, dtype=torch.float32) -> Tensor:
    """A periodic analysis window: ``"hann"`` 0.5 − 0.5 cos(2πn/L), ``"hamming"``
    0.54 − 0.46 cos(2πn/L), or ``"rect"``. Returns (L,)."""
    n = torch.arange(length, device=device, dtype=dtype)
    if name == "hann":
        return 0.5 - 0.5 * torch.cos(2 * math.pi * n / length)
    if name == "hamming":
        return 0.54 - 0.46 * torch.cos(2 * math.pi * n / length)
    if name == "rect":
        return torch.ones(length, device=device, dtype=dtype)
    raise ValueError(f"window must be 'hann', 'hamming' or 'rect'; got {name!r}")


def _check_stft(x: Tensor, n_fft: int) -> None:
    _check_wave(x)
    if x.size(-1) < n_fft:
        raise ValueError(
            f"the waveform has {x.size(-1)} samples, fewer than n_fft={n_fft}"
        )


def power_spectrogram(
    x: Tensor, n_fft: int = 256, hop: int = 80, window_name: str = "hann"
) -> Tensor:
    """|STFT|², X_t[k] = Σ_n w[n] x[t·hop + n] e^{−2πikn/n_fft}, with ``torch.stft``.

    x: (N,) or (B, N), no centre padding (frames as :func:`frames` cuts them).
    Returns (T, F) or (B, T, F), F = n_fft // 2 + 1.
    """
    _check_stft(x, n_fft)
    w = window(window_name, n_fft, device=x.device, dtype=x.dtype)  # (L,)
    spec = torch.stft(
        x, n_fft, hop_length=hop, window=w, center=False, return_complex=True
    )  # (..., F, T)
    return spec.abs().square().transpose(-1, -2)  # (..., T, F)


def hz_to_mel(f: Tensor | float) -> Tensor:
    """The HTK mel scale, m = 2595 log10(1 + f / 700)."""
    return 2595.0 * torch.log10(1.0 + torch.as_tensor(f, dtype=torch.float64) / 700.0)


def mel_to_hz(m: Tensor | float) -> Tensor:
    """The inverse of :func:`hz_to_mel`, f = 700 (10^{m/2595} − 1)."""
    return 700.0 * (10.0 ** (torch.as_tensor(m, dtype=torch.float64) / 2595.0) - 1.0)


def _check_mel(n_mels: int, f_min: float, f_max: float, sample_rate: int) -> None:
    if n_mels < 1 or not 0 <= f_min < f_max <= sample_rate / 2:
        raise ValueError(
            f"need n_mels >= 1 and 0 <= f_min < f_max <= sample_rate / 2; got n_mels="
            f"{n_mels}, f_min={f_min}, f_max={f_max}, sample_rate={sample_rate}"
        )


def mel_filterbank(
    n_mels: int = 40,
    n_fft: int = 256,
    sample_rate: int = SAMPLE_RATE,
    f_min: float = 0.0,
    f_max: float | None = None,
    *,
    dtype: torch.dtype = torch.float32,
) -> Tensor:
    """Triangular HTK mel filters, unnormalised (peak 1), as
    ``librosa.filters.mel(htk=True, norm=None)``.

    M + 2 points equally spaced in mel between f_min and f_max give the edges: filter m
    rises from f_{m} to its centre f_{m+1} and falls to f_{m+2}. Returns (M, F) in
    ``dtype``.
    """
    f_max = sample_rate / 2 if f_max is None else f_max
    _check_mel(n_mels, f_min, f_max, sample_rate)
    bins = torch.linspace(
        0, sample_rate / 2, n_fft // 2 + 1, dtype=torch.float64
    )  # (F,)
    lo, hi = hz_to_mel(f_min).item(), hz_to_mel(f_max).item()
    mels = torch.linspace(lo, hi, n_mels + 2, dtype=torch.float64)  # (M + 2,)
    edges = mel_to_hz(mels)  # (M + 2,) in Hz
    left, centre, right = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    rising = (bins - left) / (centre - left)  # (M, F)
    falling = (right - bins) / (right - centre)  # (M, F)
    return rising.minimum(falling).clamp(min=0).to(dtype)  # (M, F)


def _check_rate(sample_rate: int) -> None:
    if sample_rate != SAMPLE_RATE:
        raise ValueError(
            f"the features are set up for {SAMPLE_RATE} Hz audio (FSDD); got "
            f"sample_rate={sample_rate}: resample first"
        )


def log_mel(
    x: Tensor,
    sample_rate: int = SAMPLE_RATE,
    *,
    n_fft: int = 256,
    hop: int = 80,
    n_mels: int = 40,
    eps: float = 1e-6,
) -> Tensor:
    """Log-mel spectrogram, log(|STFT|² Wᵀ + eps): 32 ms frames every 10 ms at 8 kHz.

    x: (N,) or (B, N) at ``sample_rate``. Returns (T, M) or (B, T, M).
    """
    _check_rate(sample_rate)
    power = power_spectrogram(x, n_fft, hop)  # (..., T, F)
    fb = mel_filterbank(n_mels, n_fft, sample_rate).to(x.device, x.dtype)  # (M, F)
    return torch.log(power @ fb.T + eps)  # (..., T, M)

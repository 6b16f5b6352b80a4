"""Log-mel features (course_lib.speech.features) against scipy and closed forms."""

import numpy as np
import pytest
import scipy.signal
import torch

from course_lib.speech.features import (
    frames,
    hz_to_mel,
    log_mel,
    mel_filterbank,
    mel_to_hz,
    power_spectrogram,
    window,
)


def test_frames_shape_and_content():
    x = torch.arange(10.0)
    f = frames(x, 4, 3)
    assert f.shape == (3, 4)
    assert f[2].tolist() == [6.0, 7.0, 8.0, 9.0]


def test_window_matches_scipy_periodic():
    for name in ("hann", "hamming"):
        ours = window(name, 64, dtype=torch.float64).numpy()
        np.testing.assert_allclose(ours, scipy.signal.get_window(name, 64), atol=1e-12)


def test_stft_matches_scipy_and_direct_dft():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(2000)
    n_fft, hop = 256, 80
    ours = power_spectrogram(torch.from_numpy(x), n_fft, hop).numpy()  # (T, F)
    w = scipy.signal.get_window("hann", n_fft)
    _, _, Z = scipy.signal.stft(
        x,
        window=w,
        nperseg=n_fft,
        noverlap=n_fft - hop,
        detrend=False,
        boundary=None,
        padded=False,
        scaling="spectrum",
    )
    ref = np.abs(Z * w.sum()).T ** 2  # scipy scales by 1 / sum(w)
    np.testing.assert_allclose(ours, ref, rtol=1e-9, atol=1e-9)
    fr = frames(torch.from_numpy(x), n_fft, hop).numpy() * w  # (T, L)
    k, n = np.arange(n_fft // 2 + 1)[:, None], np.arange(n_fft)[None]
    dft = fr @ np.exp(-2j * np.pi * k * n / n_fft).T
    np.testing.assert_allclose(ours, np.abs(dft) ** 2, rtol=1e-9, atol=1e-8)


def test_mel_scale_round_trip_and_anchor():
    f = torch.tensor([0.0, 700.0, 1000.0, 4000.0])
    torch.testing.assert_close(mel_to_hz(hz_to_mel(f)), f.double())
    assert hz_to_mel(1000.0).item() == pytest.approx(999.99, abs=0.01)  # ~1000 mel


def test_filterbank_closed_form_properties():
    M, n_fft, sr = 20, 512, 8000
    fb = mel_filterbank(M, n_fft, sr, dtype=torch.float64)  # (M, F)
    assert fb.shape == (M, n_fft // 2 + 1)
    assert (fb >= 0).all() and (fb <= 1 + 1e-9).all()
    bins = torch.linspace(0, sr / 2, n_fft // 2 + 1, dtype=torch.float64)
    centres = bins[fb.argmax(1)]
    edges = mel_to_hz(
        torch.linspace(0, hz_to_mel(sr / 2).item(), M + 2, dtype=torch.float64)
    )
    # each peak sits within one bin of its mel-spaced centre
    assert (centres - edges[1:-1]).abs().max() <= sr / n_fft
    # neighbouring triangles cross-fade: between the first and last centre they sum to 1
    inside = (bins >= edges[1]) & (bins <= edges[-2])
    torch.testing.assert_close(
        fb[:, inside].sum(0), torch.ones(int(inside.sum()), dtype=torch.float64)
    )
    # the centres are equally spaced in mel
    d = torch.diff(hz_to_mel(edges))
    torch.testing.assert_close(d, d[0].expand_as(d))


def test_log_mel_shape_and_errors():
    x = torch.randn(2, 8000)
    assert log_mel(x).shape == (2, 1 + (8000 - 256) // 80, 40)
    with pytest.raises(ValueError, match="8000 Hz"):
        log_mel(x, sample_rate=16000)
    with pytest.raises(ValueError, match="empty"):
        log_mel(torch.zeros(0))
    with pytest.raises(TypeError, match="floating"):
        log_mel(torch.zeros(300, dtype=torch.long))
    with pytest.raises(ValueError, match="fewer than n_fft"):
        log_mel(torch.zeros(100))

"""Sinusoidal encodings vs the closed form; shifts as rotations; learned tables (Chapter 8)."""

from __future__ import annotations

import math

import pytest
import torch

from course_lib.transformer import (
    LearnedPositionalEncoding,
    SinusoidalPositionalEncoding,
    shift_matrix,
    sinusoidal_encoding,
    sinusoidal_steps,
    wavelengths,
)


def test_sinusoidal_matches_closed_form():
    T, D = 50, 16
    pe = sinusoidal_encoding(T, D, dtype=torch.float64)
    for t in range(T):
        for i in range(D // 2):
            angle = t / 10000 ** (2 * i / D)
            assert pe[t, 2 * i].item() == pytest.approx(math.sin(angle), abs=1e-12)
            assert pe[t, 2 * i + 1].item() == pytest.approx(math.cos(angle), abs=1e-12)


@pytest.mark.parametrize(
    ("T", "D", "offset", "base"),
    [(4, 6, 0, 10000.0), (1, 2, 0, 10000.0), (7, 16, 3, 100.0), (12, 8, 500, 10000.0)],
)
def test_sinusoidal_steps_against_a_double_loop(T, D, offset, base):
    steps = sinusoidal_steps(T, D, base=base, offset=offset)
    shapes = {name: tuple(value.shape) for name, value in steps._asdict().items()}
    half = (T, D // 2)
    assert shapes == dict(
        positions=(T, 1),
        omega=(1, D // 2),
        angles=half,
        sin=half,
        cos=half,
        table=(T, D),
    )
    assert all(value.dtype == torch.float64 for value in steps)
    loop = torch.zeros(T, D, dtype=torch.float64)
    for row, t in enumerate(range(offset, offset + T)):
        for i in range(D // 2):
            angle = t / base ** (2 * i / D)
            assert steps.angles[row, i].item() == pytest.approx(angle, rel=1e-14)
            loop[row, 2 * i], loop[row, 2 * i + 1] = math.sin(angle), math.cos(angle)
    torch.testing.assert_close(steps.table, loop, rtol=0, atol=1e-12)
    assert torch.equal(steps.table[:, 0::2], steps.sin)  # interleaved: even columns sin
    assert torch.equal(steps.table[:, 1::2], steps.cos)  # odd columns cos
    assert torch.equal(steps.angles, steps.positions * steps.omega)
    encoding = sinusoidal_encoding(T, D, base=base, offset=offset, dtype=torch.float64)
    assert torch.equal(steps.table, encoding)
    assert torch.equal(
        steps.table.float(), sinusoidal_encoding(T, D, base=base, offset=offset)
    )


def test_sinusoidal_steps_checks_its_inputs():
    with pytest.raises(ValueError, match="length and offset"):
        sinusoidal_steps(-1, 4)
    with pytest.raises(ValueError, match="even int"):
        sinusoidal_steps(4, 5)
    assert sinusoidal_steps(0, 4).table.shape == (0, 4)


def test_offset_and_other_base():
    full = sinusoidal_encoding(30, 8, base=100.0, dtype=torch.float64)
    part = sinusoidal_encoding(10, 8, base=100.0, offset=20, dtype=torch.float64)
    torch.testing.assert_close(full[20:], part)


def test_shift_is_a_linear_map_independent_of_position():
    D = 32
    pe = sinusoidal_encoding(120, D, dtype=torch.float64)
    for k in (1, 5, 17):
        M = shift_matrix(k, D)
        torch.testing.assert_close(pe[:-k] @ M.T, pe[k:], rtol=1e-9, atol=1e-10)
        torch.testing.assert_close(M @ M.T, torch.eye(D, dtype=torch.float64))


def test_wavelengths_run_from_two_pi_to_two_pi_base():
    w = wavelengths(16)
    assert w[0].item() == pytest.approx(2 * math.pi)
    assert (w[1:] > w[:-1]).all()
    assert w[-1].item() < 2 * math.pi * 10000


def test_sinusoidal_module_any_length_and_scaling():
    module = SinusoidalPositionalEncoding(8)
    x = torch.zeros(2, 5000, 8)
    out = module(x)
    assert out.shape == (2, 5000, 8)
    torch.testing.assert_close(out[0], sinusoidal_encoding(5000, 8))
    ones = module(torch.ones(1, 3, 8))
    torch.testing.assert_close(ones[0] - math.sqrt(8), sinusoidal_encoding(3, 8))


def test_learned_table_stops_at_its_length():
    module = LearnedPositionalEncoding(10, 8)
    assert module(torch.zeros(2, 10, 8)).shape == (2, 10, 8)
    with pytest.raises(ValueError, match="max_len=10"):
        module(torch.zeros(2, 11, 8))
    with pytest.raises(ValueError, match="max_len=10"):
        module(torch.zeros(1, 1, 8), offset=10)


@pytest.mark.parametrize("d_model", [7, 0, -2])
def test_bad_d_model(d_model):
    with pytest.raises(ValueError, match="even int"):
        sinusoidal_encoding(4, d_model)


def test_bad_input_shape():
    with pytest.raises(ValueError, match=r"\(B, T, 8\)"):
        SinusoidalPositionalEncoding(8)(torch.zeros(5, 8))


def test_the_sinusoidal_module_takes_a_device():
    module = SinusoidalPositionalEncoding(8, device="meta")
    assert module.encoding(3).device.type == "meta"
    assert module.encoding(3, device="cpu").device.type == "cpu"
    x = torch.zeros(1, 3, 8)
    assert module(x).device.type == "cpu"  # forward follows x

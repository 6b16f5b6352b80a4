"""Position representations: sinusoidal and learned (CS224N lecture 8). Chapter 8.

Self-attention is a function of a *set*: permute the tokens and the outputs permute with
them. Adding a vector p_t to the embedding of the token at position t tells the model
where it is (Vaswani et al., 2017, section 3.5):

    PE(t, 2i) = sin(t / base^(2i/D)),   PE(t, 2i+1) = cos(t / base^(2i/D)),   base = 10000.

Each pair (2i, 2i+1) is a point on a circle turning with angular frequency
ω_i = base^(-2i/D), so PE(t + k) = M_k PE(t) with M_k block-diagonal rotations that do
not depend on t (``shift_matrix``). The table has no maximum length. A learned table
(``LearnedPositionalEncoding``) has one row per position up to ``max_len`` and nothing past it.

Shape legend: B batch, T length, D model width (d_model).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch
from torch import Tensor, nn

__all__ = [
    "LearnedPositionalEncoding",
    "frequencies",
    "SinusoidalPositionalEncoding",
    "shift_matrix",
    "SinusoidSteps",
    "sinusoidal_encoding",
    "sinusoidal_steps",
    "wavelengths",
]


def _check(d_model: int, base: float) -> None:
    if not isinstance(d_model, int) or d_model < 2 or d_model % 2:
        raise ValueError(f"d_model must be an even int >= 2; got {d_model!r}")
    if base <= 1:
        raise ValueError(f"base must be > 1; got {base}")


def frequencies(
    d_model: int, base: float = 10000.0, device: torch.device | str | None = None
) -> Tensor:
    """ω_i = base^(-2i/D) for i = 0 … D/2 − 1: (D/2,), float64."""
    _check(d_model, base)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64, device=device)  # (D/2,)
    return base ** (-two_i / d_model)  # (D/2,)


def wavelengths(d_model: int, base: float = 10000.0) -> Tensor:
    """The wavelength 2π / ω_i of each sin/cos pair, from 2π up to 2π·base: (D/2,)."""
    return 2 * math.pi / frequencies(d_model, base)  # (D/2,)


def _check_positions(length: int, offset: int) -> None:
    if length < 0 or offset < 0:
        raise ValueError(f"length and offset must be >= 0; got {length}, {offset}")


class SinusoidSteps(NamedTuple):
    """What ``sinusoidal_steps`` computes on the way to the table, in that order."""

    positions: Tensor  # (T, 1) float64: t = offset … offset + T − 1, a column
    omega: Tensor  # (1, D/2) float64: ω_i = base^(-2i/D), a row
    angles: Tensor  # (T, D/2): t·ω_i, the column times the row, broadcast
    sin: Tensor  # (T, D/2): sin(t·ω_i), the table's even columns 2i
    cos: Tensor  # (T, D/2): cos(t·ω_i), the table's odd columns 2i + 1
    table: Tensor  # (T, D): sin and cos interleaved, float64


def sinusoidal_steps(
    length: int,
    d_model: int,
    *,
    base: float = 10000.0,
    offset: int = 0,
    device: torch.device | str | None = None,
) -> SinusoidSteps:
    """The table of Vaswani et al. (2017, §3.5) in steps, by broadcasting.

    PE(t, 2i) = sin(t ω_i), PE(t, 2i+1) = cos(t ω_i): a (T, 1) column of positions
    times a (1, D/2) row of frequencies is the (T, D/2) grid of every t·ω_i, each size-1
    axis repeated to the other's length. Sin and cos are interleaved, not concatenated:
    column 2i is sin(t ω_i), column 2i + 1 its cos. In float64.
    """
    _check_positions(length, offset)
    t = torch.arange(offset, offset + length, dtype=torch.float64, device=device)
    positions = t[:, None]  # (T,) -> (T, 1)
    omega = frequencies(d_model, base, device)[None, :]  # (D/2,) -> (1, D/2)
    angles = positions * omega  # (T, 1) * (1, D/2) -> (T, D/2)
    sin, cos = angles.sin(), angles.cos()  # (T, D/2) each
    pairs = torch.stack([sin, cos], dim=-1)  # (T, D/2, 2): [sin, cos] of each i
    table = pairs.reshape(length, d_model)  # (T, D): columns sin_0, cos_0, sin_1, …
    return SinusoidSteps(positions, omega, angles, sin, cos, table)


def sinusoidal_encoding(
    length: int,
    d_model: int,
    *,
    base: float = 10000.0,
    offset: int = 0,
    dtype: torch.dtype = torch.float32,
    device: torch.device | str | None = None,
) -> Tensor:
    """The sinusoidal table of Vaswani et al. (2017, §3.5): (T, D), rows t = offset … offset+T−1.

    PE(t, 2i) = sin(t ω_i), PE(t, 2i+1) = cos(t ω_i), ω_i = base^(-2i/D). Computed in
    float64 and cast, so long positions stay accurate (the steps: ``sinusoidal_steps``).
    """
    steps = sinusoidal_steps(length, d_model, base=base, offset=offset, device=device)
    return steps.table.to(dtype)  # (T, D), sin/cos interleaved


def shift_matrix(k: int, d_model: int, *, base: float = 10000.0) -> Tensor:
    """M_k with PE(t + k) = M_k PE(t) for every t: (D, D) float64, block-diagonal.

    From sin(a + b) = sin a cos b + cos a sin b and cos(a + b) = cos a cos b − sin a sin b
    with a = tω_i, b = kω_i: each 2 × 2 block is [[cos kω_i, sin kω_i], [−sin kω_i, cos kω_i]].
    """
    kw = k * frequencies(d_model, base)  # (D/2,)
    c, s = kw.cos(), kw.sin()  # (D/2,)
    blocks = torch.stack([torch.stack([c, s], -1), torch.stack([-s, c], -1)], -2)
    return torch.block_diag(*blocks)  # (D, D)


class SinusoidalPositionalEncoding(nn.Module):
    """x·√D + PE(t), then dropout: the fixed encoding, for any length. Chapter 8.

    Scaling the embeddings by √D (Vaswani §3.4) keeps them on the scale of the encodings.
    ``offset`` is the position of x's first row (decoding one token at a time with a cache).
    Nothing is stored: the table is computed for the positions asked for, on ``device``
    (the device of x in ``forward``; the module's ``device`` for ``encoding`` by default,
    which ``.to()`` leaves alone: the module has no parameters or buffers to move).
    """

    def __init__(
        self,
        d_model: int,
        *,
        dropout: float = 0.0,
        base: float = 10000.0,
        device: torch.device | str | None = None,
    ) -> None:
        super().__init__()
        _check(d_model, base)
        self.d_model, self.base = d_model, base
        self.device = torch.device(device) if device is not None else None
        self.dropout = nn.Dropout(dropout)

    def encoding(
        self, length: int, offset: int = 0, device: torch.device | str | None = None
    ) -> Tensor:
        """The table for positions offset … offset + length − 1: (T, D)."""
        return sinusoidal_encoding(
            length,
            self.d_model,
            base=self.base,
            offset=offset,
            device=self.device if device is None else device,
        )

    def forward(self, x: Tensor, offset: int = 0) -> Tensor:
        """x: (B, T, D) embeddings, batch first -> (B, T, D)."""
        if x.dim() != 3 or x.size(-1) != self.d_model:
            raise ValueError(f"x must be (B, T, {self.d_model}); got {tuple(x.shape)}")
        pe = self.encoding(x.size(1), offset, x.device).to(x.dtype)  # (T, D)
        return self.dropout(x * math.sqrt(self.d_model) + pe)  # (B, T, D)


class LearnedPositionalEncoding(nn.Module):
    """x·√D + P[t], P a learned (max_len, D) table, then dropout. Chapter 8.

    Flexible (each position learns its own vector) but it stops at ``max_len``: a longer
    input raises a ``ValueError`` naming the maximum, where an unchecked ``nn.Embedding``
    lookup would fail with an index error deep inside.
    """

    def __init__(
        self,
        max_len: int,
        d_model: int,
        *,
        dropout: float = 0.0,
        device: torch.device | str | None = None,
    ) -> None:
        super().__init__()
        if max_len < 1 or d_model < 1:
            raise ValueError(
                f"max_len and d_model must be >= 1; got {max_len}, {d_model}"
            )
        self.max_len, self.d_model = max_len, d_model
        self.table = nn.Embedding(max_len, d_model, device=device)
        nn.init.normal_(self.table.weight, std=0.02)
        self.dropout = nn.Dropout(dropout)

    def encoding(
        self, length: int, offset: int = 0, device: torch.device | str | None = None
    ) -> Tensor:
        """Rows offset … offset + length − 1 of the table: (T, D)."""
        if offset + length > self.max_len:
            raise ValueError(
                f"positions up to {offset + length - 1} requested, but the learned table "
                f"has max_len={self.max_len} (positions 0 … {self.max_len - 1}); "
                "use a sinusoidal encoding or train with a longer table"
            )
        where = self.table.weight.device
        t = torch.arange(offset, offset + length, device=where)  # (T,)
        pe = self.table(t)  # (T, D)
        return pe if device is None else pe.to(device)  # (T, D)

    def forward(self, x: Tensor, offset: int = 0) -> Tensor:
        """x: (B, T, D) embeddings, batch first -> (B, T, D)."""
        if x.dim() != 3 or x.size(-1) != self.d_model:
            raise ValueError(f"x must be (B, T, {self.d_model}); got {tuple(x.shape)}")
        pe = self.encoding(x.size(1), offset)  # (T, D)
        return self.dropout(x * math.sqrt(self.d_model) + pe)  # (B, T, D)

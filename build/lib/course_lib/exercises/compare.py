"""Compare a learner's answer with the reference's, and say *how* they differ.

``difference(expected, received)`` returns ``None`` when the two agree (within a tolerance for
floating-point values) and otherwise one sentence naming the first difference: the index and the
two values, and, where it recognises one, the pattern (transposed, sign flipped, off by a
constant factor, NaN where a number was expected, a wrong length). Used by ``check``. Chapter-free.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch
from torch import Tensor

MAX_SHOWN = 24  # values shown in full for a small tensor; larger ones by shape


def show(value: Any) -> str:
    """A short readable form of an input or output: small tensors in full, rounded."""
    if isinstance(value, Tensor):
        kind = f"tensor {tuple(value.shape)} {str(value.dtype).replace('torch.', '')}"
        if value.numel() <= MAX_SHOWN:
            data = value.detach().cpu()
            data = data.double().round(decimals=4) if data.is_floating_point() else data
            return f"{kind} {data.tolist()}"
        return kind
    if isinstance(value, np.ndarray):
        return show(torch.from_numpy(value))
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (list, tuple)) and len(value) > MAX_SHOWN:
        return (
            f"{type(value).__name__} of {len(value)} items, starting {show(value[:6])}"
        )
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."


def _as_tensor(value: Any) -> Tensor | None:
    if isinstance(value, Tensor):
        return value.detach().cpu()
    if isinstance(value, np.ndarray) and value.dtype != object:
        return torch.from_numpy(value)
    if isinstance(value, (bool, int, float, np.generic)):
        return torch.tensor(value)
    return None


def _close(a: Tensor, b: Tensor, rtol: float, atol: float) -> bool:
    if a.shape != b.shape:
        return False
    if a.dtype == torch.bool or b.dtype == torch.bool:
        return a.dtype == b.dtype and bool((a == b).all())
    return torch.allclose(a.double(), b.double(), rtol=rtol, atol=atol, equal_nan=True)


def _pattern(exp: Tensor, got: Tensor, rtol: float, atol: float) -> str:
    """A name for a recognisable difference between two tensors, or ''."""
    if exp.dim() == 2 and got.shape == exp.T.shape and _close(exp.T, got, rtol, atol):
        return (
            " It is the transpose of the expected value: check the order of a product."
        )
    if exp.dim() >= 1 and exp.dim() == got.dim() and exp.shape[:-1] == got.shape[:-1]:
        d = got.size(-1) - exp.size(-1)
        if d:
            return f" The last axis has {abs(d)} {'more' if d > 0 else 'fewer'} items."
    if exp.shape != got.shape or exp.dtype == torch.bool:
        return ""
    e, g = exp.double(), got.double()
    if bool(torch.isnan(g).any()) and not bool(torch.isnan(e).any()):
        return " It contains NaN where a number is expected (a 0/0 or log 0?)."
    if bool(torch.isinf(g).any()) and not bool(torch.isinf(e).any()):
        return " It contains inf where a finite number is expected."
    if e.abs().max() > atol and _close(-e, g, rtol, atol):
        return " It is the expected value with its sign flipped."
    big = e.abs() > 1e-8
    if int(big.sum()) > 1:
        ratio = g[big] / e[big]
        r0 = ratio.flatten()[0]
        if torch.allclose(ratio, r0.expand_as(ratio), rtol=1e-6) and abs(r0 - 1) > 1e-6:
            return f" It is the expected value times {float(r0):.4g}: a missing or extra factor."
    return ""


def _tensor_difference(
    exp: Tensor, got: Tensor, rtol: float, atol: float, where: str
) -> str | None:
    if _close(exp, got, rtol, atol):
        return None
    if exp.shape != got.shape:
        return (
            f"{where}shape {tuple(got.shape)} where {tuple(exp.shape)} is expected."
            + _pattern(exp, got, rtol, atol)
        )
    if (exp.dtype == torch.bool) != (got.dtype == torch.bool):
        return f"{where}dtype {got.dtype} where {exp.dtype} is expected."
    if exp.dtype == torch.bool:
        bad = exp != got
    else:
        e, g = exp.double(), got.double()
        bad = ~torch.isclose(e, g, rtol=rtol, atol=atol, equal_nan=True)
    if exp.dim() == 0:
        return (
            f"{where}expected {show(exp.item())}, received {show(got.item())}."
            + _pattern(exp, got, rtol, atol)
        )
    first = tuple(int(i) for i in bad.nonzero()[0])
    return (
        f"{where}{int(bad.sum())} of {exp.numel()} values differ; the first at index "
        f"{list(first)}: "
        f"expected {show(exp[first].item())}, received {show(got[first].item())}."
        + _pattern(exp, got, rtol, atol)
    )


def difference(
    expected: Any,
    received: Any,
    *,
    rtol: float = 1e-5,
    atol: float = 1e-7,
    where: str = "",
) -> str | None:
    """None when ``received`` agrees with ``expected``, else a sentence naming the difference.

    Tensors, NumPy arrays and numbers compare within ``rtol``/``atol`` (NaN equals NaN);
    sequences item by item, mappings key by key; anything else with ``==``.
    """
    exp_t = _as_tensor(expected)
    if exp_t is not None:
        got_t = _as_tensor(received)
        if got_t is None:
            try:
                got_t = torch.as_tensor(received)
            except (TypeError, ValueError, RuntimeError):
                return f"{where}a {type(received).__name__} where a number or tensor is expected."
        if isinstance(expected, float) and isinstance(received, float):
            if math.isinf(expected) and expected == received:
                return None
        return _tensor_difference(exp_t, got_t, rtol, atol, where)
    if isinstance(expected, Mapping):
        if not isinstance(received, Mapping):
            return f"{where}a {type(received).__name__} where a dict is expected."
        if set(expected) != set(received):
            return (
                f"{where}keys {sorted(received)} where {sorted(expected)} are expected."
            )
        for key in expected:
            found = difference(
                expected[key],
                received[key],
                rtol=rtol,
                atol=atol,
                where=f"{where}[{key!r}]: ",
            )
            if found:
                return found
        return None
    if isinstance(expected, Sequence) and not isinstance(expected, str):
        if isinstance(received, (Tensor, np.ndarray)):
            received = received.tolist()
        if not isinstance(received, Sequence) or isinstance(received, str):
            return f"{where}a {type(received).__name__} where a list is expected."
        if len(received) != len(expected):
            d = len(received) - len(expected)
            return (
                f"{where}{len(received)} items where {len(expected)} are expected "
                f"({abs(d)} {'too many' if d > 0 else 'missing'}; an off-by-one in a range?)."
            )
        for i, (e, g) in enumerate(zip(expected, received)):
            found = difference(e, g, rtol=rtol, atol=atol, where=f"{where}item {i}: ")
            if found:
                return found
        return None
    if expected == received:
        return None
    return f"{where}expected {show(expected)}, received {show(received)}."

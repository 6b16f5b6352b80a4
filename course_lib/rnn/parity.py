r"""Our recurrent nets against torch's fused modules: parity and speed. Chapter 6.

CS224N lecture 6 builds the LSTM and the GRU from their equations; ``torch.nn.LSTM`` and
``torch.nn.GRU`` compute the same functions in one fused call. Two measurements compare them,
used by the chapter, the tests (``tests/rnn_parity.py``) and ``benchmarks/rnn_speed.py``:

- :func:`torch_parity`: with copied weights, in float64, from the same random initial state,
  the largest absolute difference of the outputs, the final states and every gradient;
- :func:`seconds_per_pass`: the median time of one forward and backward pass.

Shape legend: B batch, T time, D input width, H hidden width.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import torch
from torch import Tensor, nn

from course_lib.rnn.cell import TORCH_PARAMETERS
from course_lib.rnn.stacked import RecurrentNet, load_torch_weights
from course_lib.runtime import run_seed

__all__ = ["TORCH_MODULES", "seconds_per_pass", "torch_parity"]

TORCH_MODULES: dict[str, type[nn.RNNBase]] = {"lstm": nn.LSTM, "gru": nn.GRU}


def _flat(state: Tensor | tuple[Tensor, ...]) -> tuple[Tensor, ...]:
    """A final state as a tuple: (h_n,) or (h_n, c_n)."""
    return state if isinstance(state, tuple) else (state,)


def _gap(a: Tensor, b: Tensor) -> float:
    return (a - b).abs().max().item()


def torch_parity(
    kind: str,
    B: int = 3,
    T: int = 11,
    D: int = 5,
    H: int = 7,
    *,
    seed: int = 0,
    device: torch.device | str | None = None,
) -> dict[str, float]:
    """Largest |ours − torch| of a one-layer ``RecurrentNet`` of our ``kind`` cell.

    kind: ``"lstm"`` or ``"gru"``. Both nets get torch's initial weights (copied with
    ``load_torch_weights``), one random input x (B, T, D) and initial state (1, B, H) each,
    in float64; the loss Σ w ⊙ output + Σ h_T (w random) is back-propagated through both.
    Returns the gaps {"output", "state", "input_grad", "weight_ih", "weight_hh",
    "bias_ih", "bias_hh"}: rounding (about 1e-15) when the cell is right.
    """
    if kind not in TORCH_MODULES:
        raise ValueError(f"kind must be one of {list(TORCH_MODULES)}; got {kind!r}")
    if min(B, T, D, H) < 1:
        raise ValueError(f"B, T, D, H must be >= 1; got {(B, T, D, H)}")
    torch.manual_seed(run_seed(seed))
    kw = dict(dtype=torch.float64, device=device)
    ref = TORCH_MODULES[kind](D, H, batch_first=True, **kw)
    ours = load_torch_weights(RecurrentNet(kind, D, H, **kw), ref)
    x = torch.randn(B, T, D, **kw)  # (B, T, D)
    state = tuple(torch.randn(1, B, H, **kw) for _ in range(ours.state_size))
    state = state if len(state) > 1 else state[0]  # each (1, B, H)
    x_ref, x_ours = x.clone().requires_grad_(), x.clone().requires_grad_()
    out_ref, s_ref = ref(x_ref, state)  # (B, T, H)
    out, s = ours(x_ours, state=state)  # (B, T, H)
    w = torch.randn_like(out)  # (B, T, H)
    ((out_ref * w).sum() + _flat(s_ref)[-1].sum()).backward()
    ((out * w).sum() + _flat(s)[-1].sum()).backward()
    gaps = {
        "output": _gap(out, out_ref),
        "state": max(_gap(a, b) for a, b in zip(_flat(s), _flat(s_ref), strict=True)),
        "input_grad": _gap(x_ours.grad, x_ref.grad),
    }
    for name in TORCH_PARAMETERS:
        ours_grad = getattr(ours.cells[0], name).grad
        gaps[name] = _gap(ours_grad, getattr(ref, f"{name}_l0").grad)
    return gaps


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def seconds_per_pass(
    module: nn.Module,
    x: Tensor,
    *,
    repeats: int = 3,
    warmup: int = 1,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """Median seconds of one forward + backward pass of ``module`` on x (B, T, D).

    ``module(x)`` returns (outputs, state), as ``torch.nn.LSTM`` and ``RecurrentNet`` do;
    the pass back-propagates Σ outputs. ``warmup`` passes run first, untimed (allocations,
    kernel selection); on CUDA each pass is synchronised before the clock is read.
    ``clock``: wall time by default; ``time.process_time`` counts this process's CPU
    seconds only, which other jobs on a shared CPU do not inflate.
    """
    if not isinstance(repeats, int) or repeats < 1 or warmup < 0:
        raise ValueError(
            f"repeats must be an int >= 1 and warmup >= 0; got {repeats}, {warmup}"
        )
    times = []
    for i in range(warmup + repeats):
        _sync(x.device)
        start = clock()
        module(x)[0].sum().backward()
        _sync(x.device)
        if i >= warmup:
            times.append(clock() - start)
    return sorted(times)[len(times) // 2]

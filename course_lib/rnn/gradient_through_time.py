r"""Gradients through time: ∂L/∂h_t for every step t, and the Jacobian products behind them.

Chapter 6 (CS224N lecture 6; Bengio et al., 1994; Pascanu et al., 2013). For a vanilla RNN,
h_t = tanh(W_h h_{t−1} + W_x x_t + b), the chain rule through k steps is a product of Jacobians,

    ∂h_t/∂h_{t−k} = ∏_{j=t−k+1}^{t} diag(1 − h_j²) W_h,     ‖∂h_t/∂h_{t−k}‖ ≤ (σ_max(W_h))^k,

so the gradient from a loss at step T to step T − k shrinks geometrically when the largest
singular value σ_max(W_h) is below 1 (tanh' ≤ 1 only makes it smaller) and may grow when it is
above 1. The LSTM's cell state has the additive path C_t = F_t ⊙ C_{t−1} + …, whose Jacobian is
diag(F_t) plus gate terms: with forget gates near 1 the gradient survives many steps.

``hidden_state_gradients`` runs any cell of ``course_lib.rnn`` step by step and returns
``{"t = 1": ∂L/∂h_1, …, "t = T": ∂L/∂h_T}`` for a loss at the last step: the input of
``course_lib.widgets.rnn_gradient_flow`` (a ``GradientFlowExplorer``). ``random_rnn_gradients``
draws a cell with a given recurrent-weight scale; ``trained_rnn_gradients`` takes a trained
``LongRangeClassifier``; ``jacobian_norms`` gives ‖∂h_T/∂h_{T−k}‖₂ for every k.
``input_gradient_norms`` gives ‖∂L/∂x_{T−k}‖₂ for every k, the same measure for every cell,
and ``initial_input_gradient_norms`` draws it for a cell at its own initialisation.
This module imports no widgets.

Shape legend: B batch, T time, D input width, H hidden width, C classes.
"""

from __future__ import annotations

import copy
import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from course_lib.rnn.long_range import LongRangeClassifier, long_range_batch
from course_lib.rnn.rnn_cell import RNNCell
from course_lib.rnn.stacked import CELLS, RecurrentNet, load_torch_weights
from course_lib.runtime import run_seed

__all__ = [
    "hidden_state_gradients",
    "initial_input_gradient_norms",
    "input_gradient_norms",
    "jacobian_norms",
    "random_rnn_gradients",
    "scale_recurrent_weights",
    "trained_input_gradients",
    "trained_rnn_gradients",
]


def hidden_state_gradients(
    cell: nn.Module, x: Tensor, readout: nn.Module, labels: Tensor
) -> dict[str, Tensor]:
    """∂L/∂h_t for t = 1..T, L = mean cross-entropy of ``readout(h_T)`` against ``labels``.

    x: (B, T, D) inputs; the state starts at zero. ∂L/∂h_t is the *total* gradient reaching
    h_t (through h_{t+1}, and for an LSTM through C_{t+1} too), as back-propagation through
    time computes it. Returns ``{"t = 1": (B, H), …}``, input side first.
    """
    _check_batch(x)
    state = cell.init_state(x.size(0), device=x.device, dtype=x.dtype)
    hs = []
    with torch.enable_grad():
        for t in range(x.size(1)):
            h, state = cell(x[:, t], state)  # (B, H)
            h.retain_grad()
            hs.append(h)
        loss = F.cross_entropy(readout(h), labels)  # ()
        grads = torch.autograd.grad(loss, hs)
    return {f"t = {t}": g.detach() for t, g in enumerate(grads, start=1)}


def _check_batch(x: Tensor) -> None:
    """The inputs of the gradient measures: a batch of sequences (B, T, D), T >= 1."""
    if x.dim() != 3 or x.size(1) < 1:
        raise ValueError(f"x must be (B, T, D) with T >= 1; got {tuple(x.shape)}")


def scale_recurrent_weights(
    cell: nn.Module, scale: float, *, seed: int = 0
) -> nn.Module:
    """Redraw each (H, H) block of the recurrent weights W_h as W ~ N(0, scale²/H), in place.

    W_h is ``cell.weight_hh`` (kH, H), or ``RNNCell.W_hh``ᵀ (the lecture's column form of
    Chapter 5's row-vector weight). With scale s a random W_h has σ_max ≈ 2s (and spectral
    radius ≈ s), so s sets how fast the vanilla RNN's gradient vanishes or explodes.
    Returns the cell.
    """
    if not scale > 0:
        raise ValueError(f"scale must be positive; got {scale}")
    H = cell.hidden_size
    gen = torch.Generator().manual_seed(run_seed(seed))
    with torch.no_grad():
        W_h = cell.W_hh.T if isinstance(cell, RNNCell) else cell.weight_hh  # (kH, H)
        W = torch.randn(W_h.shape, generator=gen, dtype=torch.float64)  # (kH, H)
        W_h.copy_(W * scale / math.sqrt(H))
    return cell


def _add_keep_gate_bias(cell: nn.Module, kind: str, bias: float) -> None:
    """Add ``bias`` to the gate that keeps the old state (LSTM forget gate, GRU z_t; the
    simplified GRU's Γ_u gets −bias); the vanilla RNN has no gate and is left alone."""
    if not bias or kind == "rnn":
        return
    H, sign = cell.hidden_size, -1.0 if kind == "simple_gru" else 1.0
    block = slice(0, H) if kind == "simple_gru" else slice(H, 2 * H)
    with torch.no_grad():
        cell.bias_ih[block] += sign * bias


def _random_cell_setup(
    kind: str,
    length: int,
    hidden: int,
    inputs: int,
    batch: int,
    n_classes: int,
    seed: int,
) -> tuple[Tensor, Tensor, nn.Module, nn.Module]:
    """The seeded float64 inputs x (B, T, D), labels (B,), readout and ``kind`` cell shared
    by the random-cell gradient measures (the same draws for every kind and length)."""
    if kind not in CELLS:
        raise ValueError(f"kind must be one of {list(CELLS)}; got {kind!r}")
    if not isinstance(length, int) or length < 1:
        raise ValueError(f"length must be a positive int; got {length!r}")
    gen = torch.Generator().manual_seed(run_seed(seed))
    x = torch.randn(batch, length, inputs, generator=gen, dtype=torch.float64)
    labels = torch.randint(n_classes, (batch,), generator=gen)  # (B,)
    torch.manual_seed(run_seed(seed))
    readout = nn.Linear(hidden, n_classes, dtype=torch.float64)
    cell = CELLS[kind](inputs, hidden, dtype=torch.float64)
    return x, labels, readout, cell


def random_rnn_gradients(
    kind: str,
    length: int,
    scale: float = 1.0,
    gate_bias: float = 0.0,
    *,
    hidden: int = 32,
    inputs: int = 8,
    batch: int = 16,
    n_classes: int = 4,
    seed: int = 0,
    device: torch.device | str | None = None,
) -> dict[str, Tensor]:
    """``hidden_state_gradients`` of a random ``kind`` cell (``"rnn"``, ``"lstm"``, ``"gru"``,
    ``"simple_gru"``) over ``length`` steps, W_h drawn by ``scale_recurrent_weights(scale)``.

    gate_bias: added to the bias of the gate that keeps the old state (LSTM forget gate, GRU
    z_t; subtracted from the simplified GRU's Γ_u); ignored by the vanilla RNN. A forget bias of
    1 or more (Gers et al., 2000; Jozefowicz et al., 2015) starts the LSTM remembering.

    Float64; the same seed gives the same inputs, labels and readout for every kind and
    length (inputs x ~ N(0, 1), (B, T, D)), so settings differ only in what the controls change.
    """
    x, labels, readout, cell = _random_cell_setup(
        kind, length, hidden, inputs, batch, n_classes, seed
    )
    scale_recurrent_weights(cell, scale, seed=seed)
    _add_keep_gate_bias(cell, kind, gate_bias)
    return hidden_state_gradients(
        cell.to(device), x.to(device), readout.to(device), labels.to(device)
    )


def trained_rnn_gradients(
    model: LongRangeClassifier,
    length: int,
    *,
    batch: int = 16,
    seed: int = 0,
    device: torch.device | str | None = None,
) -> dict[str, Tensor]:
    """``hidden_state_gradients`` of a trained ``LongRangeClassifier`` on its own task.

    The fused module's weights are copied into a from-scratch cell (float64) so every h_t can
    be reached; the batch has distances uniform on 1..length−1.
    """
    cell, readout, x, labels = _on_its_task(model, length, batch, seed, None, device)
    return hidden_state_gradients(cell, x, readout, labels)


def trained_input_gradients(
    model: LongRangeClassifier,
    length: int,
    *,
    distance: int | None = None,
    batch: int = 16,
    seed: int = 0,
    device: torch.device | str | None = None,
) -> Tensor:
    """``input_gradient_norms`` of a trained ``LongRangeClassifier`` on its own task:
    ‖∂L/∂x_{T−k}‖ for k = 0..length−1, (length,), in float64, on the same copy as
    ``trained_rnn_gradients``; ``distance``: the batch's one distance (None: log-uniform)."""
    cell, readout, x, labels = _on_its_task(
        model, length, batch, seed, distance, device
    )
    return input_gradient_norms(cell, x, readout, labels)


def _on_its_task(model, length, batch, seed, distance, device):
    """A trained model's recurrence copied into a from-scratch cell and its readout, both
    float64 (the model is left as is), and a seeded batch of its task: embedded inputs
    (B, T, E) and labels (B,)."""
    rnn = model.rnn
    net = RecurrentNet(model.cell, rnn.input_size, rnn.hidden_size, dtype=torch.float64)
    load_torch_weights(net, copy.deepcopy(rnn).double().cpu())
    readout = nn.Linear(rnn.hidden_size, model.n_classes, dtype=torch.float64)
    readout.load_state_dict(model.out.state_dict())
    gen = torch.Generator().manual_seed(run_seed(seed))
    tokens, labels, _ = long_range_batch(
        batch,
        length,
        n_classes=model.n_classes,
        distance=distance,
        generator=gen,
        device=device,
    )
    x = model.embedding(tokens).detach().double()  # (B, T, E)
    return net.cells[0].to(device), readout.to(device), x, labels


def _check_tanh_sequence(cell: RNNCell, x: Tensor) -> None:
    """jacobian_norms' inputs: a tanh RNNCell and one sequence (T, D)."""
    if not isinstance(cell, RNNCell) or cell.nonlinearity != "tanh":
        raise TypeError(
            f"jacobian_norms needs a tanh RNNCell; got {type(cell).__name__}"
        )
    if x.dim() != 2:
        raise ValueError(f"x must be one sequence (T, D); got {tuple(x.shape)}")


def jacobian_norms(cell: RNNCell, x: Tensor) -> Tensor:
    """‖∂h_T/∂h_{T−k}‖₂ (largest singular value) for k = 0..T−1, one sequence x (T, D).

    Built from the lecture's product: ∂h_t/∂h_{t−1} = diag(1 − h_t²) W_h, multiplied
    from the last step backwards. Returns a (T,) tensor; entry k is the norm after k
    factors (k = 0: I).
    """
    _check_tanh_sequence(cell, x)
    with torch.no_grad():
        (h,) = cell.init_state(1, device=x.device, dtype=x.dtype)
        hs = []
        for t in range(x.size(0)):
            h, _ = cell(x[t : t + 1], (h,))  # (1, H)
            hs.append(h[0])
        H = cell.hidden_size
        J = torch.eye(H, dtype=x.dtype, device=x.device)  # (H, H)
        norms = [torch.linalg.matrix_norm(J, ord=2)]
        W_h = cell.W_hh.T  # (H, H)  the lecture's column form
        for h_t in reversed(hs[1:]):
            J = J @ ((1 - h_t**2)[:, None] * W_h)  # (H, H)
            norms.append(torch.linalg.matrix_norm(J, ord=2))
    return torch.stack(norms)  # (T,)


def input_gradient_norms(
    cell: nn.Module, x: Tensor, readout: nn.Module, labels: Tensor
) -> Tensor:
    """‖∂L/∂x_{T−k}‖₂ for k = 0..T−1: how much the loss at the last step still
    responds to the input k steps back; L = mean cross-entropy of ``readout(h_T)``.

    The same measure for every cell (an LSTM's state is (h, c), a GRU's h alone): the
    gradient that back-propagation through time delivers to the input, so to its
    embedding and to the weights' products with it (CS224N lecture 6). x: (B, T, D),
    the state starts at zero; the norm is over the batch and the features.
    Returns (T,), k = 0 first.
    """
    _check_batch(x)
    with torch.enable_grad():
        x = x.detach().requires_grad_()  # (B, T, D), a leaf of its own
        state = cell.init_state(x.size(0), device=x.device, dtype=x.dtype)  # (B, H)s
        for t in range(x.size(1)):
            h, state = cell(x[:, t], state)  # (B, H)
        loss = F.cross_entropy(readout(h), labels)  # ()
        (g,) = torch.autograd.grad(loss, x)  # (B, T, D)
    return g.square().sum(dim=(0, 2)).sqrt().flip(0).detach()  # (T,)


def initial_input_gradient_norms(
    kind: str,
    length: int,
    gate_bias: float = 0.0,
    *,
    hidden: int = 32,
    inputs: int = 8,
    batch: int = 16,
    n_classes: int = 4,
    seed: int = 0,
) -> Tensor:
    """``input_gradient_norms`` of a ``kind`` cell at its own initialisation, U(−1/√H, 1/√H)
    for every weight (torch's), with ``gate_bias`` added to the keep gate as in
    ``random_rnn_gradients`` (an LSTM forget bias of 1: Jozefowicz et al., 2015).

    Float64 on the CPU; the same seed gives the same inputs x ~ N(0, 1) (B, T, D), labels,
    readout and draw of the weights for every kind. Returns (T,), entry k for x_{T−k}.
    """
    x, labels, readout, cell = _random_cell_setup(
        kind, length, hidden, inputs, batch, n_classes, seed
    )
    _add_keep_gate_bias(cell, kind, gate_bias)
    return input_gradient_norms(cell, x, readout, labels)

r"""The interface every recurrent cell of ``course_lib.rnn`` shares. Chapters 5 and 6.

A *cell* is one time step of a recurrent network (CS224N lectures 5 and 6). The vanilla
``RNNCell`` (Chapter 5), ``LSTMCell`` and the GRUs (Chapter 6) all have:

- ``input_size`` D, ``hidden_size`` H and ``state_size``, the number of (B, H) tensors in
  the state (1: ``(h,)``; the LSTM's 2: ``(h, c)``);
- ``init_state(batch, device=, dtype=)``, the zero state;
- ``forward(x, state) -> (h, state)``, x: (B, D), h: (B, H), the state a tuple of (B, H);
- ``load_torch_parameters(params)``, which copies one layer and direction of
  ``torch.nn.RNN/LSTM/GRU`` (``params`` from :func:`torch_parameters`), so a from-scratch
  cell can be checked against torch with the same weights.

The wrappers of ``course_lib.rnn.stacked`` (deep, bidirectional, padded) rely on nothing
else. Every parameter starts U(−1/√H, 1/√H), as in torch's recurrent modules.
:class:`TorchLayoutCell` stores the parameters as torch does (``weight_ih`` (kH, D),
``weight_hh`` (kH, H), ``bias_ih`` and ``bias_hh`` (kH,), k gate blocks); the vanilla cell
keeps the lecture's row-vector names instead (``course_lib.rnn.rnn_cell``).

Shape legend: B batch, D input width, H hidden width, k gate blocks.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

__all__ = [
    "TORCH_PARAMETERS",
    "RecurrentCell",
    "TorchLayoutCell",
    "check_step_inputs",
    "torch_parameters",
]

TORCH_PARAMETERS = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")


def torch_parameters(
    module: nn.RNNBase, layer: int = 0, reverse: bool = False
) -> dict[str, Tensor | None]:
    """One layer and direction of a ``torch.nn.RNN/LSTM/GRU``: ``{"weight_ih": ..., ...}``.

    torch names them ``weight_ih_l{layer}`` (``_reverse`` for the backward direction); a
    module built with ``bias=False`` gives None for the biases.
    """
    suffix = f"_l{layer}" + ("_reverse" if reverse else "")
    return {name: getattr(module, name + suffix, None) for name in TORCH_PARAMETERS}


def check_step_inputs(cell: nn.Module, x: Tensor, state: tuple[Tensor, ...]) -> None:
    """Raise ValueError/TypeError unless x is (B, D) and the state holds (B, H) tensors."""
    if not isinstance(x, Tensor):
        raise TypeError(f"x must be a tensor (B, D); got {type(x).__name__}")
    if x.dim() != 2 or x.size(1) != cell.input_size:
        raise ValueError(
            f"x must have shape (B, {cell.input_size}) = (batch, input_size); "
            f"got {tuple(x.shape)}"
        )
    if not isinstance(state, tuple) or len(state) != cell.state_size:
        raise TypeError(
            f"{type(cell).__name__} needs a state tuple of {cell.state_size} tensor(s) "
            f"(B, H); got {type(state).__name__}"
            + (f" of length {len(state)}" if isinstance(state, tuple) else "")
        )
    for s in state:
        if s.shape != (x.size(0), cell.hidden_size):
            raise ValueError(
                f"state tensors must have shape (B, H) = ({x.size(0)}, "
                f"{cell.hidden_size}) to match x; got {tuple(s.shape)}"
            )


class RecurrentCell(nn.Module):
    """What every cell shares: checked sizes, the zero state, torch's initialisation.

    Subclasses create their parameters, then call :meth:`reset_parameters`, and define
    ``forward(x, state) -> (h, state)`` and ``load_torch_parameters``.
    """

    state_size = 1

    def __init__(self, input_size: int, hidden_size: int) -> None:
        super().__init__()
        if not (isinstance(input_size, int) and isinstance(hidden_size, int)):
            raise TypeError(
                f"input_size and hidden_size must be ints; got "
                f"{type(input_size).__name__}, {type(hidden_size).__name__}"
            )
        if input_size < 1 or hidden_size < 1:
            raise ValueError(
                f"input_size and hidden_size must be >= 1; got {input_size}, {hidden_size}"
            )
        self.input_size, self.hidden_size = input_size, hidden_size

    def reset_parameters(self) -> None:
        """Draw every parameter from U(−1/√H, 1/√H), in order, as ``torch.nn.RNN`` does."""
        bound = 1.0 / math.sqrt(self.hidden_size)
        for p in self.parameters():
            nn.init.uniform_(p, -bound, bound)

    def init_state(
        self,
        batch: int,
        *,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> tuple[Tensor, ...]:
        """The zero state: ``state_size`` tensors (B, H) (``(h_0,)``; LSTM ``(h_0, c_0)``)."""
        dtype = dtype or next(self.parameters()).dtype
        return tuple(
            torch.zeros(batch, self.hidden_size, device=device, dtype=dtype)  # (B, H)
            for _ in range(self.state_size)
        )

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}"


class TorchLayoutCell(RecurrentCell):
    """A cell with torch's parameters: ``weight_ih`` (kH, D), ``weight_hh`` (kH, H) and
    ``bias_ih``, ``bias_hh`` (kH,) (None with ``bias=False``); k = ``n_blocks`` gate blocks.

    torch's weights copy over by name (:meth:`load_torch_parameters`). Chapter 6.
    """

    n_blocks = 1

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        *,
        bias: bool = True,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__(input_size, hidden_size)
        kw = {"device": device, "dtype": dtype}
        kH = self.n_blocks * hidden_size
        self.weight_ih = nn.Parameter(torch.empty(kH, input_size, **kw))
        self.weight_hh = nn.Parameter(torch.empty(kH, hidden_size, **kw))
        self.bias_ih = nn.Parameter(torch.empty(kH, **kw)) if bias else None
        self.bias_hh = nn.Parameter(torch.empty(kH, **kw)) if bias else None
        self.reset_parameters()

    def projections(self, x: Tensor, h: Tensor) -> tuple[Tensor, Tensor]:
        """The gate pre-activations from x (B, D) and from h (B, H), biases included."""
        gi = x @ self.weight_ih.T  # (B, kH)
        gh = h @ self.weight_hh.T  # (B, kH)
        if self.bias_ih is not None:
            gi, gh = gi + self.bias_ih, gh + self.bias_hh  # (B, kH), (B, kH)
        return gi, gh

    def load_torch_parameters(
        self, params: dict[str, Tensor | None]
    ) -> TorchLayoutCell:
        """Copy ``torch_parameters(module, layer, reverse)`` in, name by name; returns self."""
        with torch.no_grad():
            for name in TORCH_PARAMETERS:
                ours, theirs = getattr(self, name), params[name]
                if (theirs is None) != (ours is None):
                    raise ValueError("one has biases and the other not")
                if ours is not None:
                    if ours.shape != theirs.shape:
                        raise ValueError(
                            f"{name} must have shape {tuple(ours.shape)}; "
                            f"got {tuple(theirs.shape)}"
                        )
                    ours.copy_(theirs)
        return self

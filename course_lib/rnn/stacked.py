r"""Deep (stacked) and bidirectional recurrent networks around any cell, with padding. Chapter 6.

CS224N lecture 6: a **bidirectional** RNN runs one RNN left to right and another right to left
and concatenates their states, h_t = [→h_t; ←h_t], so the representation of "Teddy" in
"Teddy bears are on sale" sees the words after it; a **deep** (stacked) RNN feeds the hidden
states of layer l as the inputs of layer l + 1 (Graves et al., 2013). ``RecurrentNet`` wraps
any cell with the interface of ``course_lib.rnn.cell`` (Chapter 5's ``RNNCell``,
``LSTMCell``, ``GRUCell``, ``SimplifiedGRUCell``) and returns what ``torch.nn.RNN/LSTM/GRU``
with ``batch_first=True`` return, the same numbers once ``load_torch_weights`` has copied a
torch module's weights.

Padding: a batch of sequences of different lengths is a (B, T, D) tensor plus ``lengths``
(B,). At a padded step the state is carried over unchanged (a mask), the output is zero, and
the backward direction reverses each sequence within its own length, so padded and unpadded
batches give the same outputs for the real tokens, as ``pack_padded_sequence`` does for torch.

Shape legend: B batch, T time, D input width, H hidden width, L layers, K directions (1 or 2).
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from course_lib.data.batching import length_mask
from course_lib.rnn.cell import torch_parameters
from course_lib.rnn.gru import GRUCell, SimplifiedGRUCell
from course_lib.rnn.lstm import LSTMCell
from course_lib.rnn.rnn_cell import RNNCell

__all__ = [
    "CELLS",
    "RecurrentNet",
    "load_torch_weights",
    "reverse_padded",
    "run_direction",
]

CELLS: dict[str, type[nn.Module]] = {
    "rnn": RNNCell,
    "lstm": LSTMCell,
    "gru": GRUCell,
    "simple_gru": SimplifiedGRUCell,
}


def reverse_padded(x: Tensor, lengths: Tensor) -> Tensor:
    """Reverse each sequence of ``x`` (B, T, ...) within its own length; padding stays put.

    Applying it twice gives ``x`` back. lengths: (B,) ints in 1..T.
    """
    B, T = x.shape[:2]
    t = torch.arange(T, device=x.device).expand(B, T)  # (B, T)
    L = lengths.to(x.device).view(B, 1)  # (B, 1)
    index = torch.where(t < L, L - 1 - t, t)  # (B, T)
    index = index.view(B, T, *([1] * (x.dim() - 2))).expand_as(x)  # (B, T, ...)
    return x.gather(1, index)  # (B, T, ...)


def run_direction(
    cell: nn.Module,
    x: Tensor,
    state: tuple[Tensor, ...],
    mask: Tensor | None = None,
) -> tuple[Tensor, tuple[Tensor, ...]]:
    """Run ``cell`` left to right over x (B, T, D) from ``state`` (tuple of (B, H)).

    mask: (B, T) bool, False at padding: there the state is carried over and the output is 0.
    Returns the outputs (B, T, H) and the final state (the state after each sequence's last
    real token).
    """
    outputs = []
    for t in range(x.size(1)):
        h, new = cell(x[:, t], state)  # (B, H), tuple of (B, H)
        if mask is not None:
            m = mask[:, t, None]  # (B, 1)
            state = tuple(torch.where(m, n, s) for n, s in zip(new, state))
            h = h * m  # (B, H)  zero at padding, as pad_packed_sequence gives
        else:
            state = new
        outputs.append(h)
    return torch.stack(outputs, dim=1), state  # (B, T, H)


class RecurrentNet(nn.Module):
    """A deep and/or bidirectional RNN over any cell, batch first, as ``torch.nn.LSTM`` etc.

    cell: ``"rnn"``, ``"lstm"``, ``"gru"``, ``"simple_gru"`` or a cell class. Layer l > 1 reads
    the K·H outputs of layer l − 1 (with ``dropout`` between layers while training).
    ``cells[l * K + k]`` is layer l, direction k (0 forward, 1 backward): torch's order.
    """

    def __init__(
        self,
        cell: str | type[nn.Module],
        input_size: int,
        hidden_size: int,
        *,
        num_layers: int = 1,
        bidirectional: bool = False,
        dropout: float = 0.0,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        if isinstance(cell, str):
            if cell not in CELLS:
                raise ValueError(f"cell must be one of {list(CELLS)}; got {cell!r}")
            cell = CELLS[cell]
        if not isinstance(num_layers, int) or num_layers < 1:
            raise ValueError(f"num_layers must be an int >= 1; got {num_layers!r}")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1); got {dropout}")
        self.input_size, self.hidden_size = input_size, hidden_size
        self.num_layers, self.bidirectional = num_layers, bool(bidirectional)
        self.num_directions = 2 if bidirectional else 1
        self.dropout = dropout
        K = self.num_directions
        self.cells = nn.ModuleList(
            cell(
                input_size if l == 0 else K * hidden_size,
                hidden_size,
                device=device,
                dtype=dtype,
            )
            for l in range(num_layers)
            for _ in range(K)
        )
        self.state_size = self.cells[0].state_size

    def _initial_state(
        self, state: Tensor | tuple[Tensor, ...] | None, x: Tensor
    ) -> list[tuple[Tensor, ...]]:
        """Per cell, its (B, H) state tuple, from torch's (L·K, B, H) layout."""
        B, LK = x.size(0), self.num_layers * self.num_directions
        if state is None:
            return [c.init_state(B, device=x.device, dtype=x.dtype) for c in self.cells]
        parts = (state,) if isinstance(state, Tensor) else tuple(state)
        if len(parts) != self.state_size:
            raise ValueError(
                f"state must be {self.state_size} tensor(s) (L·K, B, H), as torch takes "
                f"them (LSTM: (h_0, c_0)); got {len(parts)}"
            )
        for p in parts:
            if p.shape != (LK, B, self.hidden_size):
                raise ValueError(
                    f"each initial state tensor must have shape (L·K, B, H) = "
                    f"({LK}, {B}, {self.hidden_size}); got {tuple(p.shape)}"
                )
        return [tuple(p[i] for p in parts) for i in range(LK)]

    def forward(
        self,
        x: Tensor,
        lengths: Tensor | None = None,
        state: Tensor | tuple[Tensor, ...] | None = None,
    ) -> tuple[Tensor, Tensor | tuple[Tensor, ...]]:
        """Run every layer and direction over x (B, T, D).

        lengths: (B,) the real length of each sequence (1..T); None = all T.
        state: the initial state as torch takes it, (L·K, B, H) (LSTM: a pair), or None = 0.
        Returns the top layer's outputs (B, T, K·H), zero at padding, and the final state in
        torch's layout (L·K, B, H) (LSTM: the pair (h_n, c_n)).
        """
        lengths, mask = self._check_inputs(x, lengths)  # (B,), (B, T) bool or None
        states = self._initial_state(state, x)  # per cell: a tuple of (B, H)
        K, h, finals = self.num_directions, x, []
        for l in range(self.num_layers):
            outs = []
            for i in range(l * K, (l + 1) * K):  # layer l's cells: →, then ←
                out, last = self._direction(i, h, states[i], lengths, mask)  # (B,T,H)
                outs.append(out)
                finals.append(last)
            h = torch.cat(outs, dim=-1)  # (B, T, K·H)  h_t = [→h_t; ←h_t]
            if l < self.num_layers - 1:
                h = self._between_layers(h)  # (B, T, K·H)  the next layer's input
        return h, self._torch_layout(finals)  # (B, T, K·H), (L·K, B, H) each

    def _check_inputs(
        self, x: Tensor, lengths: Tensor | None
    ) -> tuple[Tensor | None, Tensor | None]:
        """x must be (B >= 1, T >= 1, D); lengths (B,) in 1..T. Returns lengths as a
        tensor on x's device and the padding mask (B, T), True at real tokens (None
        without lengths)."""
        if not isinstance(x, Tensor) or x.dim() != 3:
            raise ValueError(
                f"x must be a (B, T, D) tensor (batch first); got "
                f"{tuple(x.shape) if isinstance(x, Tensor) else type(x).__name__}"
            )
        B, T, D = x.shape
        if T == 0 or B == 0:
            raise ValueError(
                f"x has shape {tuple(x.shape)}: an empty batch or sequences of length 0 "
                "have nothing to run; drop empty sequences before batching"
            )
        if D != self.input_size:
            raise ValueError(f"x must have D = {self.input_size}; got {D}")
        if lengths is None:
            return None, None
        lengths = torch.as_tensor(lengths, device=x.device)
        if lengths.shape != (B,):
            raise ValueError(
                f"lengths must have shape (B,) = ({B},); got {tuple(lengths.shape)}"
            )
        if lengths.min() < 1 or lengths.max() > T:
            raise ValueError(
                f"lengths must lie in 1..T = 1..{T} (sequences of length 0 cannot "
                f"be run); got min {int(lengths.min())}, max {int(lengths.max())}"
            )
        return lengths, length_mask(lengths, T)  # (B, T)

    def _direction(
        self,
        i: int,
        x: Tensor,
        state: tuple[Tensor, ...],
        lengths: Tensor | None,
        mask: Tensor | None,
    ) -> tuple[Tensor, tuple[Tensor, ...]]:
        """Run ``cells[i]`` over x (B, T, D). A backward cell (i odd when bidirectional)
        reads each sequence reversed within its length and reverses its outputs back."""
        backward = i % self.num_directions == 1
        if backward:
            x = self._reverse(x, lengths)  # (B, T, D)
        out, final = run_direction(self.cells[i], x, state, mask)  # (B, T, H)
        return (self._reverse(out, lengths) if backward else out), final

    @staticmethod
    def _reverse(x: Tensor, lengths: Tensor | None) -> Tensor:
        """Reverse time within each sequence's length (all T without lengths)."""
        return x.flip(1) if lengths is None else reverse_padded(x, lengths)

    def _between_layers(self, h: Tensor) -> Tensor:
        """Dropout between layers, while training only (as torch's ``dropout``)."""
        if self.dropout and self.training:
            return nn.functional.dropout(h, self.dropout)
        return h

    def _torch_layout(
        self, finals: list[tuple[Tensor, ...]]
    ) -> Tensor | tuple[Tensor, ...]:
        """Per-cell final states -> torch's (L·K, B, H) (LSTM: the pair (h_n, c_n))."""
        stacked = tuple(
            torch.stack([f[j] for f in finals]) for j in range(self.state_size)
        )  # each (L·K, B, H)
        return stacked[0] if self.state_size == 1 else stacked


_TORCH_CELLS = {nn.RNN: RNNCell, nn.LSTM: LSTMCell, nn.GRU: GRUCell}


def load_torch_weights(net: RecurrentNet, module: nn.RNNBase) -> RecurrentNet:
    """Copy the weights of ``torch.nn.RNN/LSTM/GRU`` into ``net`` (same sizes); returns net.

    torch names them ``weight_ih_l{l}{_reverse}`` etc.; ``cells[l·K + k]`` copies its own
    (``load_torch_parameters``: by name, or transposed for Chapter 5's ``RNNCell``).
    """
    want = _TORCH_CELLS.get(type(module))
    if want is None or not isinstance(net.cells[0], want):
        raise TypeError(
            f"cannot copy a {type(module).__name__} into a RecurrentNet of "
            f"{type(net.cells[0]).__name__}; the pairs are RNN/RNNCell (tanh), "
            "LSTM/LSTMCell, GRU/GRUCell"
        )
    if getattr(module, "nonlinearity", "tanh") != "tanh" or module.proj_size:
        raise ValueError("only tanh RNNs and LSTMs without proj_size can be copied")
    sizes = (module.input_size, module.hidden_size, module.num_layers)
    if sizes != (net.input_size, net.hidden_size, net.num_layers) or (
        module.bidirectional != net.bidirectional
    ):
        raise ValueError(
            f"sizes differ: torch (input, hidden, layers, bidirectional) = "
            f"{(*sizes, module.bidirectional)}, ours "
            f"{(net.input_size, net.hidden_size, net.num_layers, net.bidirectional)}"
        )
    if not module.batch_first:
        raise ValueError(
            "RecurrentNet is batch first: build the torch module with batch_first=True"
        )
    for l in range(net.num_layers):
        for k in range(net.num_directions):
            cell = net.cells[l * net.num_directions + k]
            cell.load_torch_parameters(torch_parameters(module, l, reverse=k == 1))
    return net

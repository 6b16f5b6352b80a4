r"""A deep RNN with non-recurrent layers on its output path. Chapter 6.

*Sequence Models* week 1 (deep RNNs) stacks L recurrent layers, layer l reading layer
l − 1's activations at the same step,

    a^{[l]<t>} = g(W_a^{[l]} [a^{[l]<t−1>}, a^{[l−1]<t>}] + b_a^{[l]}),   a^{[0]<t>} = x^{<t>},

and then, at every step, puts layers that are **not connected across time** between the
top state a^{[L]<t>} and the output ŷ^{<t>}: a feed-forward network applied to each step
on its own, z^{[k]<t>} = tanh(W^{[k]} z^{[k−1]<t>} + b^{[k]}), z^{[0]<t>} = a^{[L]<t>},
ŷ^{<t>} = W_y z^{[K]<t>} + b_y. Recurrent layers are few (3 is already deep for an RNN,
since each is one more pass of T sequential steps); the feed-forward ones add depth
without adding sequential steps, because all T steps go through them in one batched
matrix product.

The recurrent stack is :class:`~course_lib.rnn.stacked.RecurrentNet` (our cells) or, with
``fused=True``, the same-sized ``torch.nn.LSTM/GRU/RNN`` (packed for padded batches): the
two give the same numbers once ``load_torch_weights`` has copied the weights.

Shape legend: B batch, T time, D input width, H hidden width, K directions (1 or 2),
F feed-forward width, O output width.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from course_lib.rnn.stacked import RecurrentNet

__all__ = ["DeepRNN"]

_FUSED = {"rnn": nn.RNN, "lstm": nn.LSTM, "gru": nn.GRU}


class DeepRNN(nn.Module):
    """Stacked recurrent layers, then feed-forward layers per step: logits (B, T, O).

    ``DeepRNN(cell, input_size, hidden_size, output_size, *, num_layers=2, head_layers=1,
    head_width=None, bidirectional=False, dropout=0.0, fused=False, device=None,
    dtype=None)``. cell: ``"rnn"``, ``"lstm"``, ``"gru"`` (or, unfused,
    ``"simple_gru"``). ``num_layers`` recurrent layers of width H (K·H outputs), then
    ``head_layers`` tanh layers of width ``head_width`` (default K·H), then a linear map to
    ``output_size``. Chapter 6 (*Sequence Models*' deep RNN figure).
    """

    def __init__(
        self,
        cell: str,
        input_size: int,
        hidden_size: int,
        output_size: int,
        *,
        num_layers: int = 2,
        head_layers: int = 1,
        head_width: int | None = None,
        bidirectional: bool = False,
        dropout: float = 0.0,
        fused: bool = False,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        self._check_sizes(cell, fused, output_size, head_layers, head_width)
        kw = {"device": device, "dtype": dtype}
        sizes = {"num_layers": num_layers, "bidirectional": bidirectional}
        sizes["dropout"] = dropout
        if fused:
            self.recurrent = _FUSED[cell](
                input_size, hidden_size, batch_first=True, **sizes, **kw
            )
        else:
            self.recurrent = RecurrentNet(cell, input_size, hidden_size, **sizes, **kw)
        self.fused = bool(fused)
        width = (2 if bidirectional else 1) * hidden_size  # K·H
        layers: list[nn.Module] = []
        for _ in range(head_layers):
            layers += [nn.Linear(width, head_width or width, **kw), nn.Tanh()]
            width = head_width or width
        self.head = nn.Sequential(*layers)  # identity when head_layers = 0
        self.out = nn.Linear(width, output_size, **kw)

    @staticmethod
    def _check_sizes(cell, fused, output_size, head_layers, head_width) -> None:
        if fused and cell not in _FUSED:
            raise ValueError(f"fused cell must be one of {list(_FUSED)}; got {cell!r}")
        if not isinstance(output_size, int) or output_size < 1:
            raise ValueError(f"output_size must be an int >= 1; got {output_size!r}")
        if not isinstance(head_layers, int) or head_layers < 0:
            raise ValueError(f"head_layers must be an int >= 0; got {head_layers!r}")
        if not (head_width is None or isinstance(head_width, int) and head_width >= 1):
            raise ValueError(
                f"head_width must be None or an int >= 1; got {head_width}"
            )

    def forward(self, x: Tensor, lengths: Tensor | None = None) -> Tensor:
        """x (B, T, D), lengths (B,) or None -> ŷ (B, T, O) at every step.

        The top states a^{[L]<t>} are zero at padding, so are their head outputs' inputs;
        read ŷ only at real steps (for one label per sequence, at step ``lengths − 1``).
        """
        a = self.top_states(x, lengths)  # (B, T, K·H)  a^{[L]<t>}
        z = self.head(a)  # (B, T, F)  per step, no connection across time
        return self.out(z)  # (B, T, O)  ŷ^{<t>}

    def top_states(self, x: Tensor, lengths: Tensor | None = None) -> Tensor:
        """The recurrent stack's top layer a^{[L]<t>}: (B, T, K·H), zero at padding."""
        if not self.fused:
            return self.recurrent(x, lengths)[0]  # (B, T, K·H)
        if not isinstance(x, Tensor) or x.dim() != 3:
            raise ValueError(
                f"x must be a (B, T, D) tensor; got {tuple(getattr(x, 'shape', ()))}"
            )
        if lengths is None:
            return self.recurrent(x)[0]  # (B, T, K·H)
        packed = pack_padded_sequence(
            x, torch.as_tensor(lengths).cpu(), batch_first=True, enforce_sorted=False
        )
        out, _ = self.recurrent(packed)
        a, _ = pad_packed_sequence(out, batch_first=True, total_length=x.size(1))
        return a  # (B, T, K·H)

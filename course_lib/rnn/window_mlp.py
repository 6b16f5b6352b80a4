r"""A fixed-window MLP on a sequence: it sees only the last w tokens. Chapter 6.

CS224N lecture 5 (and *Sequence Models*, week 1, "why not a standard network?"): a
feed-forward network has a fixed input size, so a sequence of any length T must be cut to
a fixed window, here its last w tokens (a shorter one is padded on the left), and every
position of the window gets its own block of the first weight matrix:

    e = [e_{T−w+1}; …; e_T] ∈ ℝ^{wE},   h = tanh(W e + b_1) ∈ ℝ^H,   logits = U h + b_2

(the fixed-window language model of Bengio et al., 2003, ``course_lib.lm.fixed_window``,
and Chapter 3's window classifier, with C classes for output). Two limits follow. Nothing
before the window reaches the logits, whatever the training. And W has w·E·H weights,
so the parameters grow linearly with w: (C+2)·E + w·E·H + H + H·C + C in all
(:func:`window_mlp_params`), where a recurrent network reuses one set of weights at every
step and reads any length with the same count. Its interface is the one of
``course_lib.rnn.long_range.LongRangeClassifier``: tokens (B, T) → logits (B, C), so the
long-range task's ``accuracy_by_distance`` measures both.

Shape legend: B batch, T time (sequence length), w window, E embedding width,
H hidden width, C classes.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

__all__ = ["WindowMLP", "window_mlp_params"]


def window_mlp_params(window: int, *, n_classes: int, embed: int, hidden: int) -> int:
    """The parameter count of a :class:`WindowMLP`: (C+2)·E + w·E·H + H + H·C + C."""
    C, E, H = n_classes, embed, hidden
    return (C + 2) * E + window * E * H + H + H * C + C


class WindowMLP(nn.Module):
    """logits = U tanh(W [e_{T−w+1}; …; e_T] + b_1) + b_2, on the last w tokens only.

    Tokens 0..C−1 are symbols, C the long-range task's marker and C+1 the padding put on
    the left of a sequence shorter than w.
    """

    def __init__(
        self,
        window: int,
        *,
        n_classes: int = 8,
        embed: int = 16,
        hidden: int = 64,
        device: torch.device | str | None = None,
    ) -> None:
        super().__init__()
        for name, value in (("window", window), ("n_classes", n_classes)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an int >= 1; got {value!r}")
        self.window, self.n_classes, self.pad_id = window, n_classes, n_classes + 1
        self.embedding = nn.Embedding(n_classes + 2, embed, device=device)
        self.W = nn.Linear(window * embed, hidden, device=device)
        self.U = nn.Linear(hidden, n_classes, device=device)

    def forward(self, tokens: Tensor) -> Tensor:
        """tokens: (B, T) ids, any T >= 1. Returns the class logits (B, C)."""
        _check_tokens(tokens)
        left = self.window - tokens.size(1)  # < 0 cuts the oldest tokens, > 0 pads
        x = F.pad(tokens, (left, 0), value=self.pad_id)  # (B, w)  the last w tokens
        e = self.embedding(x).flatten(1)  # (B, w·E)  the concatenated window
        h = torch.tanh(self.W(e))  # (B, H)
        return self.U(h)  # (B, C)


def _check_tokens(tokens: Tensor) -> None:
    if tokens.dim() != 2 or tokens.size(1) == 0:
        raise ValueError(
            f"tokens must be (B, T) with T >= 1; got {tuple(tokens.shape)}"
        )

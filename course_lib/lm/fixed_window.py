r"""The fixed-window neural language model (Bengio et al., 2003). Chapter 5.

CS224N lecture 5: the last n-1 words x^{(t-n+2)}, …, x^{(t)} are embedded and concatenated,
e = [e^{(t-n+2)}; …; e^{(t)}], then h = f(W e + b_1) and ŷ = softmax(U h + b_2).
It fixes the n-gram model's sparsity (similar words get similar embeddings, so an unseen
window still gets a sensible distribution) and its size (no table of counts). It does
not fix the window: nothing outside the n-1 words is seen, and each position has its
own block of W, so what is learnt about a word at one position is not shared with the
others. The RNN removes both limits.

Shape legend: B batch, W = n-1 window, E embedding width, H hidden width, V vocabulary,
M positions.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from course_lib.decoding.protocol import select_rows
from course_lib.lm.output import SoftmaxOutput
from course_lib.training import evaluating


@dataclass(frozen=True)
class FixedWindowConfig:
    """Sizes of a :class:`FixedWindowLM`: V, the window n-1, E, H, the output layer."""

    vocab_size: int
    window: int = 4
    d_embed: int = 64
    d_hidden: int = 128
    dropout: float = 0.0
    cutoffs: tuple[int, ...] | None = None


class FixedWindowLM(nn.Module):
    """ŷ = softmax(U tanh(W [e_1; …; e_{n-1}] + b_1) + b_2) (Bengio et al., 2003). Ch. 5."""

    def __init__(
        self, config: FixedWindowConfig, *, device: torch.device | str | None = None
    ):
        super().__init__()
        if config.window < 1:
            raise ValueError(f"window must be >= 1, got {config.window}")
        self.config = config
        self.embed = nn.Embedding(config.vocab_size, config.d_embed, device=device)
        self.W = nn.Linear(
            config.window * config.d_embed, config.d_hidden, device=device
        )
        self.drop = nn.Dropout(config.dropout)
        self.out = SoftmaxOutput(
            config.d_hidden, config.vocab_size, config.cutoffs, device=device
        )

    def features(self, x: Tensor) -> Tensor:
        """x: (B, W) the previous n-1 token ids -> h (B, H)."""
        if x.dim() != 2 or x.size(1) != self.config.window:
            raise ValueError(
                f"x must be (B, W={self.config.window}), got {tuple(x.shape)}"
            )
        e = self.drop(self.embed(x)).flatten(1)  # (B, W·E)
        return self.drop(torch.tanh(self.W(e)))  # (B, H)

    def forward(self, x: Tensor, y: Tensor) -> Tensor:
        """Mean cross-entropy of the next tokens y (B,) given windows x (B, W)."""
        return self.out.nll(self.features(x), y)  # ()

    def step(self, tokens: Tensor, state: Tensor | None = None):
        """Decoding protocol (:mod:`course_lib.decoding`): tokens (N,) -> log ŷ (N, V) and
        the new window (N, W) of the last n-1 ids (at the start, the token repeated)."""
        W = self.config.window
        if state is None:
            window = tokens[:, None].expand(-1, W)  # (N, W)
        else:
            window = torch.cat([state[:, 1:], tokens[:, None]], dim=1)  # (N, W)
        return self.out.log_prob(self.features(window)), window  # (N, V)

    def reorder(self, state: Tensor | None, rows: Tensor) -> Tensor | None:
        """Decoding protocol: keep, repeat or drop rows (N',) of the windows."""
        return select_rows(state, rows)


def make_windows(ids: Tensor, window: int, pad_id: int) -> tuple[Tensor, Tensor]:
    """Every position of a stream (M,) with its previous ``window`` ids: (M, W), (M,).

    Positions near the start are padded on the left with ``pad_id`` (e.g. ``<eos>``,
    the token that ends the line before the stream).
    """
    ids = torch.as_tensor(ids, dtype=torch.long)  # (M,)
    if ids.dim() != 1 or ids.numel() == 0:
        raise ValueError(f"ids must be a non-empty 1-D stream, got {tuple(ids.shape)}")
    padded = torch.cat([ids.new_full((window,), pad_id), ids])  # (M + W,)
    x = padded.unfold(0, window, 1)[:-1]  # (M, W)
    return x, ids  # (M, W), (M,)


@torch.no_grad()
def evaluate_windows(
    model: FixedWindowLM, x: Tensor, y: Tensor, batch_size: int = 4096
) -> float:
    """Mean cross-entropy (nats per token) of y (M,) given windows x (M, W)."""
    device = model.embed.weight.device
    total = 0.0
    with evaluating(model):
        for i in range(0, y.numel(), batch_size):
            xb, yb = x[i : i + batch_size].to(device), y[i : i + batch_size].to(device)
            total += float(model(xb, yb)) * yb.numel()
    return total / y.numel()

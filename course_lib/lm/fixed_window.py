r"""The fixed-window neural language model (Bengio et al., 2003). Chapter 5.

CS224N lecture 5: the last n-1 words x^{(t-n+2)}, …, x^{(t)} are embedded and concatenated,
e = [e^{(t-n+2)}; …; e^{(t)}], then h = f(W e + b_1) and ŷ = softmax(U h + b_2).
It fixes the n-gram model's sparsity (similar words get similar embeddings, so an unseen
window still gets a sensible distribution) and its size (no table of counts). It does
not fix the window: nothing outside the n-1 words is seen, and each position has its
own block of W, so what is learnt about a word at one position is not shared with the
others. The RNN removes both limits.

*Sequence Models* (week 2, "learning word embeddings") trains the same model for its
embeddings rather than its predictions, and lists other contexts to predict a target word
from: the last 4 words, 4 words on each side, the last word, or one nearby word (the
skip-gram idea). :func:`context_windows` builds each of them (Chapter 1).

Shape legend: B batch, W = n-1 window, E embedding width, H hidden width, V vocabulary,
M positions.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from course_lib.data.windows import context_at
from course_lib.decoding.protocol import select_rows
from course_lib.lm.output import SoftmaxOutput
from course_lib.runtime import run_seed
from course_lib.training import evaluating


@dataclass(frozen=True)
class FixedWindowConfig:
    """Sizes of a :class:`FixedWindowLM`: V, the window n-1, E, H, the output layer.

    ``embed_std``: the initial embeddings' standard deviation (None: ``nn.Embedding``'s
    N(0, 1)); a small one, such as 0.01, lets them move far from their random start in a
    short run, which matters when the embeddings are what the model is trained for.
    """

    vocab_size: int
    window: int = 4
    d_embed: int = 64
    d_hidden: int = 128
    dropout: float = 0.0
    cutoffs: tuple[int, ...] | None = None
    embed_std: float | None = None


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
        if config.embed_std is not None:
            nn.init.normal_(self.embed.weight, std=config.embed_std)
        self.W = nn.Linear(
            config.window * config.d_embed, config.d_hidden, device=device
        )
        self.drop = nn.Dropout(config.dropout)
        self.out = SoftmaxOutput(
            config.d_hidden, config.vocab_size, config.cutoffs, device=device
        )

    def _check_windows(self, x: Tensor) -> None:
        """Raise ValueError unless x is (B, W) with W the configured window."""
        if x.dim() != 2 or x.size(1) != self.config.window:
            raise ValueError(
                f"x must be (B, W={self.config.window}), got {tuple(x.shape)}"
            )

    def features(self, x: Tensor) -> Tensor:
        """x: (B, W) the previous n-1 token ids -> h (B, H)."""
        self._check_windows(x)
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
    x, _ = context_at(ids, torch.arange(-window, 0), pad_id)  # (M, W)
    return x, ids  # (M, W), (M,)


CONTEXT_KINDS = ("left", "both", "nearby")


def _check_context(kind: str, n: int, reach: int) -> None:
    if kind not in CONTEXT_KINDS:
        raise ValueError(f"kind must be one of {CONTEXT_KINDS}, got {kind!r}")
    for name, value in (("n", n), ("reach", reach)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be an int >= 1, got {value!r}")


def context_windows(
    ids: Tensor, kind: str, n: int, *, pad_id: int, reach: int = 5, seed: int = 0
) -> tuple[Tensor, Tensor]:
    """The context of every target word of a stream (M,), as *Sequence Models* lists.

    ``kind="left"``: the last n words (``make_windows``; n = 4 or 1 in the lecture);
    ``"both"``: n words on the left, then n on the right (W = 2n); ``"nearby"``: n
    words each drawn at a uniform offset in -reach..-1, 1..reach (seeded; n = 1 is
    skip-gram's context, seen from the target). Positions past either end of the stream
    hold ``pad_id``. Returns the contexts (M, W) and the targets (M,). Chapter 1.
    """
    _check_context_windows(ids, kind, n, reach)
    ids = torch.as_tensor(ids, dtype=torch.long)  # (M,)
    if kind == "left":
        return make_windows(ids, n, pad_id)  # (M, n), (M,)
    if kind == "both":
        offsets = torch.cat([torch.arange(-n, 0), torch.arange(1, n + 1)])  # (2n,)
    else:
        g = torch.Generator().manual_seed(run_seed(seed))
        draw = torch.randint(0, 2 * reach, (ids.numel(), n), generator=g)  # (M, n)
        offsets = draw - reach + (draw >= reach).long()  # (M, n) in ±1..reach
    x, _ = context_at(ids, offsets, pad_id)  # (M, W)
    return x, ids  # (M, W), (M,)


def _check_context_windows(ids: Tensor, kind: str, n: int, reach: int) -> None:
    _check_context(kind, n, reach)
    ids = torch.as_tensor(ids, dtype=torch.long)  # (M,)
    if ids.dim() != 1 or ids.numel() == 0:
        raise ValueError(f"ids must be a non-empty 1-D stream, got {tuple(ids.shape)}")


@torch.no_grad()
def window_log_probs(
    model: FixedWindowLM, x: Tensor, y: Tensor, batch_size: int = 4096
) -> Tensor:
    """log P(y_i | x_i) of every position, (M,), for windows x (M, W) and next tokens y
    (M,), scored ``batch_size`` positions at a time in eval mode (the mode is restored):
    the items a paired bootstrap over test lines resamples."""
    device = model.embed.weight.device
    out = []
    with evaluating(model):
        for i in range(0, y.numel(), batch_size):
            xb, yb = x[i : i + batch_size].to(device), y[i : i + batch_size].to(device)
            out.append(model.out.target_log_prob(model.features(xb), yb))  # (b,)
    return torch.cat(out)  # (M,)


def evaluate_windows(
    model: FixedWindowLM, x: Tensor, y: Tensor, batch_size: int = 4096
) -> float:
    """Mean cross-entropy (nats per token) of y (M,) given windows x (M, W)."""
    return -float(window_log_probs(model, x, y, batch_size).double().mean())

r"""Next-token pretraining data and perplexity per token and per word. Chapter 9.

CS224N lectures 5 and 9. A token stream x_1 … x_N (the BPE ids of a corpus) is cut into
blocks of T + 1 tokens; the model predicts positions 2 … T + 1 of each block from the
ones before. Perplexity is exp of the mean negative log-likelihood,

    PPL_token = exp(NLL / N_tokens),        PPL_word = exp(NLL / N_words),

where NLL = -Σ log P(x_t | x_<t) in nats is the *total* over the scored tokens. A subword
model predicts more tokens than there are words, so only the per-word number stands beside
a word-level model's perplexity on the same text (Chapter 5's Kneser–Ney and LSTM).

Shape legend: N stream length, B blocks in a batch, T block length.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

from course_lib.training import evaluating

__all__ = ["LMScore", "eval_blocks", "random_blocks", "score_stream"]


def _check_stream(ids: Tensor, block_len: int) -> None:
    if not isinstance(ids, Tensor) or ids.dim() != 1:
        raise ValueError(f"ids must be a 1-D tensor of token ids; got {ids!r:.60}")
    if not isinstance(block_len, int) or block_len < 2:
        raise ValueError(f"block_len must be an int >= 2; got {block_len!r}")
    if ids.numel() < block_len:
        raise ValueError(
            f"the stream has {ids.numel()} tokens, fewer than one block of {block_len}"
        )


def random_blocks(
    ids: Tensor, block_len: int, batch_size: int, *, generator: torch.Generator
) -> Tensor:
    """A batch of ``batch_size`` blocks of ``block_len`` tokens at random offsets: (B, T)."""
    _check_stream(ids, block_len)
    starts = torch.randint(
        0, ids.numel() - block_len + 1, (batch_size,), generator=generator
    )  # (B,)
    offsets = torch.arange(block_len)  # (T,)
    return ids[starts[:, None] + offsets[None, :]]  # (B, T)


def eval_blocks(ids: Tensor, block_len: int) -> Tensor:
    """Consecutive blocks that overlap by one token: (n, T); every token after the first
    is predicted exactly once (the last, shorter block is dropped)."""
    _check_stream(ids, block_len)
    n = (ids.numel() - 1) // (block_len - 1)
    starts = torch.arange(n) * (block_len - 1)  # (n,)
    return ids[starts[:, None] + torch.arange(block_len)[None, :]]  # (n, T)


@dataclass(frozen=True)
class LMScore:
    """Total NLL (nats) over the scored tokens, and both perplexities."""

    nll: float
    n_tokens: int
    n_words: int

    @property
    def per_token(self) -> float:
        """exp(NLL / N_tokens)."""
        return math.exp(self.nll / self.n_tokens)

    @property
    def per_word(self) -> float:
        """exp(NLL / N_words): comparable with a word-level model on the same text."""
        return math.exp(self.nll / self.n_words)


@torch.no_grad()
def score_stream(
    model: torch.nn.Module,
    ids: Tensor,
    *,
    block_len: int,
    n_words: int,
    batch_size: int = 32,
    device: torch.device | str | None = None,
) -> LMScore:
    """Total NLL of a stream under ``model`` (a :class:`~course_lib.pretraining.GPT`).

    ids: (N,) the tokenized text; n_words: how many words that text holds (the
    denominator of the per-word perplexity, e.g. WikiText-2 tokens with ``<eos>``).
    The words of the part the blocks leave out are discounted in proportion.
    """
    if not isinstance(n_words, int) or n_words < 1:
        raise ValueError(f"n_words must be a positive int; got {n_words!r}")
    blocks = eval_blocks(ids, block_len)  # (n, T)
    total = 0.0
    with evaluating(model):
        for i in range(0, blocks.size(0), batch_size):
            batch = blocks[i : i + batch_size].to(device)  # (B, T)
            total += float(model.loss(batch, reduction="sum"))
    scored = blocks.size(0) * (block_len - 1)
    words = max(1, round(n_words * scored / (ids.numel() - 1)))
    return LMScore(total, scored, words)

r"""Does a language model copy from its context? The repeated-random-tokens test. Chapter 9.

Olsson et al. (2022), "In-context Learning and Induction Heads": a sequence of n random
tokens followed by the same n tokens again. The first copy cannot be predicted (each token
is drawn uniformly), so its loss is about log V or worse; a model with an *induction head*
(attend to the token after the earlier occurrence of the current token, and copy it)
predicts the second copy from the first, and its loss there falls towards zero. The
difference

    copy gain = NLL(first copy) − NLL(second copy)     (nats per token)

measures the copying circuit that prefix tuning would need to steer (Chapter 9's dates).

Shape legend: B rows, n tokens per copy, V vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from course_lib.pretraining.common import at_least_float32
from course_lib.training import evaluating

__all__ = ["CopyLosses", "copy_losses", "repeated_tokens"]


def repeated_tokens(
    rows: int, n: int, *, vocab_size: int, low: int = 0, generator: torch.Generator
) -> Tensor:
    """``rows`` sequences of ``n`` uniform token ids in [low, vocab_size), each followed
    by itself: (B, 2n)."""
    if not isinstance(n, int) or n < 2:
        raise ValueError(f"n must be an int >= 2 (tokens per copy); got {n!r}")
    if not 0 <= low < vocab_size:
        raise ValueError(f"need 0 <= low < vocab_size; got low={low}, V={vocab_size}")
    seq = torch.randint(low, vocab_size, (rows, n), generator=generator)  # (B, n)
    return torch.cat([seq, seq], dim=1)  # (B, 2n)


@dataclass(frozen=True)
class CopyLosses:
    """Mean NLL (nats per token) of the two copies' predictable tokens."""

    first: float
    second: float

    @property
    def gain(self) -> float:
        """NLL(first copy) − NLL(second copy): near 0 for a model that does not copy."""
        return self.first - self.second


@torch.no_grad()
def copy_losses(model: nn.Module, tokens: Tensor) -> CopyLosses:
    """NLL of tokens 2 … n of the first copy and of tokens 2 … n of the second copy.

    tokens: (B, 2n) from :func:`repeated_tokens`; ``model(tokens).logits`` is (B, 2n, V).
    The first token of each copy is left out: nothing before it predicts it.
    """
    if tokens.dim() != 2 or tokens.size(1) % 2 or tokens.size(1) < 4:
        raise ValueError(
            f"tokens must be (B, 2n) with n >= 2, two equal halves; got "
            f"{tuple(tokens.shape)}"
        )
    n = tokens.size(1) // 2
    if not torch.equal(tokens[:, :n], tokens[:, n:]):
        raise ValueError("the second half of tokens must repeat the first")
    with evaluating(model):
        logp = at_least_float32(model(tokens).logits).log_softmax(-1)  # (B, 2n, V)
    nll = -logp[:, :-1].gather(-1, tokens[:, 1:, None])[..., 0]  # (B, 2n − 1)
    # nll[:, t] is the loss of token t + 1: first copy t + 1 ∈ 1…n−1, second n+1…2n−1
    return CopyLosses(nll[:, : n - 1].mean().item(), nll[:, n:].mean().item())

r"""The output layer of a neural LM: ŷ = softmax(U h + b_2), full or adaptive. Chapter 5.

CS224N lecture 5 ends every neural LM with ŷ^{(t)} = softmax(U h^{(t)} + b_2) ∈ ℝ^V and
the loss J^{(t)} = -log ŷ^{(t)}_{x_{t+1}}. With V = 33,278 words that product dominates the
cost of training on a CPU, so :class:`SoftmaxOutput` can instead use PyTorch's adaptive
softmax (Grave et al., 2017, ``nn.AdaptiveLogSoftmaxWithLoss``): frequent words in a head
softmax, rare ones in smaller tail clusters. It is still an exact, normalised
distribution over all V words, so perplexities stay comparable.

Shape legend: N positions, H feature width, V vocabulary.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn
from torch.nn import functional as F


class SoftmaxOutput(nn.Module):
    """softmax(U h + b_2) over V words; ``cutoffs`` (e.g. ``(2000, 10000)``) makes it adaptive.

    Words must be indexed by descending frequency for the adaptive form to help (as
    :class:`course_lib.data.vocab.Vocab` does). Chapter 5.
    """

    def __init__(
        self,
        d_hidden: int,
        vocab_size: int,
        cutoffs: Sequence[int] | None = None,
        *,
        device: torch.device | str | None = None,
    ) -> None:
        super().__init__()
        self.vocab_size = vocab_size
        if cutoffs:
            cutoffs = list(cutoffs)
            if (
                sorted(cutoffs) != cutoffs
                or cutoffs[-1] >= vocab_size
                or cutoffs[0] < 1
            ):
                raise ValueError(
                    f"cutoffs must increase within (0, V={vocab_size}), got {cutoffs}"
                )
            self.adaptive = nn.AdaptiveLogSoftmaxWithLoss(
                d_hidden, vocab_size, cutoffs, div_value=4.0, device=device
            )
            self.linear = None
        else:
            self.adaptive = None
            self.linear = nn.Linear(d_hidden, vocab_size, device=device)

    def nll(self, h: Tensor, y: Tensor) -> Tensor:
        """Mean -log ŷ_y over positions: h (N, H), y (N,) -> scalar."""
        if self.adaptive is not None:
            return self.adaptive(h, y).loss
        return F.cross_entropy(self.linear(h), y)  # (N, V) logits inside

    def target_log_prob(self, h: Tensor, y: Tensor) -> Tensor:
        """log ŷ_y of each position's target only: h (N, H), y (N,) -> (N,).

        The adaptive form computes only the clusters the targets fall in, far less than
        :meth:`log_prob` over all V words.
        """
        if self.adaptive is not None:
            return self.adaptive(h, y).output  # (N,)
        return -F.cross_entropy(self.linear(h), y, reduction="none")  # (N,)

    def log_prob(self, h: Tensor) -> Tensor:
        """log ŷ over all V words: h (N, H) -> (N, V)."""
        if self.adaptive is not None:
            return self.adaptive.log_prob(h)  # (N, V)
        return self.linear(h).log_softmax(-1)  # (N, V)

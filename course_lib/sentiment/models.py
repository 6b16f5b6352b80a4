r"""The two SST-2 baselines: averaged word vectors and a many-to-one BiLSTM.

- Averaged word vectors: h = (1/T) Σ_t e_{w_t}, ŷ = softmax(W h + b) (the "VecAvg"
  baseline of Socher et al., 2013). Word order is lost, so "not good" averages "not" and
  "good" and is often read as positive.
- Many-to-one BiLSTM: the forward LSTM's last state and the backward LSTM's first state,
  [h→_T ; h←_1], go to the softmax (Chapter 6's :class:`~course_lib.rnn.stacked.RecurrentNet`).

Shape legend: B batch, T length, D embedding width, H hidden width, C classes.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from course_lib.data.batching import length_mask
from course_lib.rnn.stacked import RecurrentNet


class AveragedVectors(nn.Module):
    """softmax(W · mean_t e_{w_t} + b): the bag-of-vectors sentence classifier.

    ``vectors`` (vocab_size, d_embed) starts the embedding table from pretrained word
    vectors (Chapter 2's transfer experiment) instead of N(0, 1); ``freeze=True`` keeps
    them fixed, so that only W and b learn.
    """

    def __init__(
        self,
        vocab_size: int,
        d_embed: int,
        n_classes: int = 2,
        *,
        pad_id: int = 0,
        dropout: float = 0.0,
        vectors: Tensor | None = None,
        freeze: bool = False,
        device: torch.device | str | None = None,
    ) -> None:
        super().__init__()
        self.embed = nn.Embedding(
            vocab_size, d_embed, padding_idx=pad_id, device=device
        )
        if vectors is not None:
            if not isinstance(vectors, Tensor) or vectors.shape != (
                vocab_size,
                d_embed,
            ):
                got = tuple(vectors.shape) if isinstance(vectors, Tensor) else vectors
                raise ValueError(
                    f"vectors must be ({vocab_size}, {d_embed}) = (vocab_size, "
                    f"d_embed); got {got!r}"
                )
            with torch.no_grad():
                self.embed.weight.copy_(vectors)  # (V, D)
        elif freeze:
            raise ValueError("freeze=True needs pretrained vectors to keep fixed")
        self.embed.weight.requires_grad_(not freeze)
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(d_embed, n_classes, device=device)

    def forward(self, tokens: Tensor, lengths: Tensor) -> Tensor:
        """tokens (B, T), lengths (B,) -> logits (B, C)."""
        real = length_mask(lengths, tokens.size(1))  # (B, T)
        e = self.embed(tokens) * real[..., None]  # (B, T, D), zero at padding
        h = e.sum(1) / lengths[:, None].to(e.dtype)  # (B, D)
        return self.out(self.dropout(h))  # (B, C)


class BiLSTMClassifier(nn.Module):
    """softmax(W [h→_T ; h←_1] + b) over a bidirectional LSTM: many-to-one."""

    def __init__(
        self,
        vocab_size: int,
        d_embed: int,
        d_hidden: int,
        n_classes: int = 2,
        *,
        pad_id: int = 0,
        dropout: float = 0.0,
        device: torch.device | str | None = None,
    ) -> None:
        super().__init__()
        self.embed = nn.Embedding(
            vocab_size, d_embed, padding_idx=pad_id, device=device
        )
        self.rnn = RecurrentNet(
            "lstm", d_embed, d_hidden, bidirectional=True, device=device
        )
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(2 * d_hidden, n_classes, device=device)

    def forward(self, tokens: Tensor, lengths: Tensor) -> Tensor:
        """tokens (B, T), lengths (B,) -> logits (B, C)."""
        x = self.dropout(self.embed(tokens))  # (B, T, D)
        # h_n (2, B, H): the forward LSTM's last state, the backward one's first
        _, (h_n, _) = self.rnn(x, lengths)
        h = torch.cat([h_n[0], h_n[1]], dim=-1)  # (B, 2H)
        return self.out(self.dropout(h))  # (B, C)

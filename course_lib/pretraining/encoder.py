r"""A BERT-style encoder: masked-LM pretraining and a classification head. Chapter 9.

Devlin et al. (2019); CS224N lecture 9. Token embeddings + learned positions (started as
sinusoids, see ``Encoder``) -> L pre-LN
encoder blocks (Chapter 8's :class:`~course_lib.transformer.EncoderLayer`, bidirectional
self-attention with a padding mask) -> a final LayerNorm -> hidden states h_1 … h_T.

- Masked LM head: logits = LN(GELU(h W + b)) Eᵀ (output tied to the embeddings E);
  the loss is the cross-entropy at the selected positions only
  (:func:`~course_lib.pretraining.masked_lm.mask_tokens` gives inputs and labels).
- Classification (fine-tuning): softmax(W_c h + b_c), h the state of the first token,
  [CLS], or the mean of the real tokens' states; every weight trained (or, from random
  weights, the same architecture from scratch).

Shape legend: B batch, T length, D model width, H heads, V vocabulary, C classes, L layers,
M selected (masked-LM) positions.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from course_lib.pretraining.common import (
    at_least_float32,
    check_sizes,
    embeddings_and_blocks,
)
from course_lib.pretraining.masked_lm import IGNORE
from course_lib.transformer.layers import EncoderLayer
from course_lib.transformer.masks import padding_mask
from course_lib.transformer.positional import sinusoidal_encoding
from course_lib.transformer.token_ids import check_token_ids

__all__ = ["POOLING", "Encoder", "EncoderConfig", "SequenceClassifier"]

POOLING = ("cls", "mean")  # which state a SequenceClassifier reads the label from


@dataclass(frozen=True)
class EncoderConfig:
    """Sizes of the encoder; BERT-base is d_model=768, n_heads=12, d_ff=3072, 12 layers."""

    vocab_size: int
    d_model: int = 128
    n_heads: int = 4
    d_ff: int = 512
    n_layers: int = 4
    max_len: int = 128
    dropout: float = 0.1
    pad_id: int = 0
    fast: bool = False

    def __post_init__(self) -> None:
        check_sizes(self)


class Encoder(nn.Module):
    """Bidirectional Transformer encoder with a masked-LM head (``mlm_loss``)."""

    def __init__(
        self, config: EncoderConfig, *, device: torch.device | str | None = None
    ):
        super().__init__()
        c = self.config = config
        self.embed, self.pos, self.blocks, self.norm = embeddings_and_blocks(
            c, EncoderLayer, device
        )
        # Order reaches a bidirectional encoder through the positions alone. They enter
        # beside tokens scaled by √D (std 1): learned positions started at std 0.02 are
        # 50 times weaker, and the encoder trains as a bag of words. They start as
        # Vaswani's sinusoids instead (amplitude 1), and learn from there.
        with torch.no_grad():
            self.pos.table.weight.copy_(sinusoidal_encoding(c.max_len, c.d_model))
        self.mlm_transform = nn.Linear(c.d_model, c.d_model, device=device)
        self.mlm_norm = nn.LayerNorm(c.d_model, device=device)

    def forward(
        self, tokens: Tensor, *, fast: bool | None = None
    ) -> tuple[Tensor, list[Tensor | None]]:
        """tokens (B, T) -> hidden states (B, T, D) and each layer's weights."""
        check_token_ids(tokens, self.config.vocab_size)
        if tokens.size(1) > self.config.max_len:
            raise ValueError(
                f"{tokens.size(1)} tokens exceed max_len={self.config.max_len}"
            )
        mask = padding_mask(tokens, self.config.pad_id)  # (B, 1, 1, T)
        x = self.pos(self.embed(tokens))  # (B, T, D)
        weights = []
        for block in self.blocks:
            x, w = block(x, mask, fast=fast)  # (B, T, D)
            weights.append(w)
        return self.norm(x), weights  # (B, T, D)

    def mlm_logits(self, hidden: Tensor) -> Tensor:
        """The masked-LM head: (B, T, D) -> (B, T, V), output tied to the embeddings."""
        h = self.mlm_norm(F.gelu(self.mlm_transform(hidden)))  # (B, T, D)
        return h @ self.embed.weight.T  # (B, T, V)

    def mlm_loss(self, inputs: Tensor, labels: Tensor) -> Tensor:
        """Mean cross-entropy at the selected positions (labels != IGNORE) only; the
        output layer runs on those M positions alone (about 15 % of B·T)."""
        if labels.shape != inputs.shape:
            raise ValueError(
                f"labels {tuple(labels.shape)} must match inputs {tuple(inputs.shape)}"
            )
        hidden, _ = self(inputs)  # (B, T, D)
        selected = labels != IGNORE  # (B, T)
        logits = self.mlm_logits(hidden[selected][None])[0]  # (M, V): selected only
        return F.cross_entropy(at_least_float32(logits), labels[selected])  # ()


class SequenceClassifier(nn.Module):
    """An :class:`Encoder` plus softmax(W_c h + b_c): fine-tuning for a label.

    ``pooling`` says which h: ``"cls"``, the state of [CLS] (BERT, whose next-sentence
    objective trained it), or ``"mean"``, the mean of the real tokens' states, which an
    encoder pretrained by masked LM alone, whose [CLS] state no objective trained, carries
    more of what it learned into (Reimers & Gurevych, 2019, for sentence vectors).
    """

    def __init__(
        self,
        encoder: Encoder,
        n_classes: int,
        *,
        pooling: str = "cls",
        device: torch.device | str | None = None,
    ):
        super().__init__()
        if not isinstance(n_classes, int) or n_classes < 2:
            raise ValueError(f"n_classes must be an int >= 2; got {n_classes!r}")
        if pooling not in POOLING:
            raise ValueError(f"pooling must be one of {POOLING}; got {pooling!r}")
        self.encoder, self.pooling = encoder, pooling
        self.dropout = nn.Dropout(encoder.config.dropout)
        self.head = nn.Linear(encoder.config.d_model, n_classes, device=device)

    def forward(self, tokens: Tensor, lengths: Tensor | None = None) -> Tensor:
        """tokens (B, T), [CLS] first -> logits (B, C). ``lengths`` is not needed (the
        padding mask comes from ``pad_id``); it is accepted so that every sentence
        classifier is called alike (:func:`course_lib.sentiment.train_classifier`)."""
        hidden, _ = self.encoder(tokens)  # (B, T, D)
        if self.pooling == "cls":
            return self.head(self.dropout(hidden[:, 0]))  # (B, C)
        real = (tokens != self.encoder.config.pad_id).unsqueeze(-1)  # (B, T, 1)
        mean = (hidden * real).sum(1) / real.sum(1)  # (B, D) over the real tokens
        return self.head(self.dropout(mean))  # (B, C)

    def loss(self, tokens: Tensor, labels: Tensor) -> Tensor:
        """Cross-entropy of the labels (B,)."""
        return F.cross_entropy(self(tokens), labels)  # ()

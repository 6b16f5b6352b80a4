r"""Classification as text-to-text: an encoder-decoder writes the label. Chapter 9.

T5 casts every task as text to text (Raffel et al., 2020, §2.4): for SST-2 the input is the
sentence and the target the word "positive" or "negative". Class c is the token sequence
y_c, its label's pieces followed by <eos>. Fine-tuning is the model's own teacher-forced
loss on the gold label's sequence, a softmax over the whole vocabulary at every step,

    J(θ) = -Σ_t log P_θ(y_{c*,t} | y_{c*,<t}, x),

and prediction ranks the C label texts by their log-probability (rank classification),

    ŷ = argmax_c  s_c(x),    s_c(x) = Σ_t log P_θ(y_{c,t} | y_{c,<t}, x),

so an answer is always one of the labels. :class:`LabelWords` returns s(x) (B, C) from
``forward(tokens, lengths)``, the interface of the course's classifiers, so
:func:`course_lib.sentiment.predict` and ``accuracy`` score it unchanged, and
:func:`course_lib.sentiment.train_classifier` trains it with ``loss_fn=LabelWords.loss``.

Shape legend: B batch, S source length, T target length, C classes, V vocabulary.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn

from course_lib.data.batching import pad
from course_lib.transformer.model import Transformer

__all__ = ["LabelWords"]


class LabelWords(nn.Module):
    """An encoder-decoder ``model`` that labels a text by writing ``label_ids[c]``."""

    def __init__(self, model: Transformer, label_ids: Sequence[Sequence[int]]) -> None:
        super().__init__()
        labels = [[int(t) for t in ids] for ids in label_ids]
        if len(labels) < 2 or any(not ids for ids in labels):
            raise ValueError(
                f"need at least two labels, each a non-empty list of ids; got {label_ids!r}"
            )
        if len({tuple(ids) for ids in labels}) < len(labels):
            raise ValueError(f"two labels have the same ids: {labels}")
        c = model.config
        bad = [t for ids in labels for t in ids if not 0 <= t < c.tgt_vocab]
        if bad or any(t in (c.pad_id, c.bos_id) for ids in labels for t in ids):
            raise ValueError(
                f"label ids must be target ids in [0, {c.tgt_vocab}) other than "
                f"<pad> {c.pad_id} and <bos> {c.bos_id}; got {labels}"
            )
        self.model = model
        rows = [[c.bos_id, *ids, c.eos_id] for ids in labels]
        self.register_buffer("texts", pad(rows, c.pad_id), persistent=False)  # (C, T)

    def targets(self, labels: Tensor) -> Tensor:
        """labels (B,) -> each row's label text (B, T): <bos> + pieces + <eos>, padded."""
        return self.texts[labels.to(self.texts.device)]  # (B, T)

    def forward(self, tokens: Tensor, lengths: Tensor | None = None) -> Tensor:
        """tokens (B, S) -> s (B, C): each label text's log-probability given the input,
        each step's as the decoder's ``step`` gives it (<pad> and <bos> never written).

        ``lengths`` is not needed (the padding mask comes from ``pad_id``)."""
        c = self.model.config
        enc = self.model.encode(tokens)  # memory (B, S, D)
        scores = []
        for text in self.texts:  # (T,) one label's text, padded
            tgt = text[text != c.pad_id].expand(tokens.size(0), -1)  # (B, T_c)
            logits, _, _ = self.model.decode(tgt[:, :-1], enc)  # (B, T_c - 1, V)
            logp = self.model.log_probs(logits)  # (B, T_c - 1, V), as ``step`` gives
            picked = logp.gather(-1, tgt[:, 1:, None]).squeeze(-1)  # (B, T_c - 1)
            scores.append(picked.sum(-1))  # (B,)
        return torch.stack(scores, dim=1)  # (B, C)

    def loss(self, tokens: Tensor, lengths: Tensor, labels: Tensor) -> Tensor:
        """The encoder-decoder's own loss on the gold label's text (T5's fine-tuning)."""
        return self.model.loss(tokens, self.targets(labels))

r"""Sentence classification baselines for SST-2 sentiment. Chapters 2, 6 and 9.

*Sequence Models* week 2 (the sentiment classifier) and CS224N lectures 6 and 9.

- Averaged word vectors: h = (1/T) Σ_t e_{w_t}, ŷ = softmax(W h + b) (the "VecAvg"
  baseline of Socher et al., 2013). Word order is lost, so "not good" averages "not" and
  "good" and is often read as positive.
- Many-to-one BiLSTM: the forward LSTM's last state and the backward LSTM's first state,
  [h→_T ; h←_1], go to the softmax (Chapter 6's :class:`~course_lib.rnn.stacked.RecurrentNet`).

Any model with ``forward(tokens, lengths) -> logits (B, C)`` trains with :func:`train_classifier`
(including :class:`~course_lib.pretraining.SequenceClassifier`).

Shape legend: B batch, T length, D embedding width, H hidden width, C classes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from course_lib.data.batching import length_groups, length_mask, pad_with_lengths
from course_lib.rnn.stacked import RecurrentNet
from course_lib.training import evaluating

__all__ = [
    "NEGATIONS",
    "AveragedVectors",
    "BiLSTMClassifier",
    "LabelledBatch",
    "accuracy",
    "has_negation",
    "labelled_batches",
    "predict",
    "train_classifier",
]

# Negation words as SST-2's PTB tokenization writes them ("doesn't" -> "does n't").
NEGATIONS = frozenset({"not", "n't", "no", "never"})

Encode = Callable[[str], list[int]]


@dataclass(frozen=True)
class LabelledBatch:
    """Right-padded ids, their lengths, the labels and each row's place in the input."""

    tokens: Tensor  # (B, T)
    lengths: Tensor  # (B,)
    labels: Tensor  # (B,)
    index: Tensor | None = None  # (B,) position of each row in the pairs batched


def labelled_batches(
    pairs: Sequence[tuple[int, str]], encode: Encode, *, batch_size: int, pad_id: int,
    shuffle: bool = False, seed: int = 0, max_len: int | None = None,
) -> list[LabelledBatch]:  # fmt: skip
    """Batches of ``(label, sentence)`` pairs, encoded with ``encode`` and padded.

    Sentences are sorted by length inside windows of 50 batches (little padding);
    ``shuffle`` shuffles pairs first and batches after, with ``seed``; ``max_len`` truncates.
    Each batch's ``index`` gives its rows' positions in ``pairs``.
    """
    if not pairs:
        raise ValueError("pairs is empty: nothing to batch")
    if not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be an int >= 1; got {batch_size!r}")
    g = torch.Generator().manual_seed(seed)
    n = len(pairs)
    order = torch.randperm(n, generator=g).tolist() if shuffle else None
    ids = [(encode(sentence) or [pad_id])[:max_len] for _, sentence in pairs]
    batches = []
    for group in length_groups(
        [len(x) for x in ids], batch_size, order=order, window=batch_size * 50
    ):
        tokens, lengths = pad_with_lengths([ids[i] for i in group], pad_id)  # (B, T)
        labels = torch.tensor([pairs[i][0] for i in group])  # (B,)
        batches.append(LabelledBatch(tokens, lengths, labels, torch.tensor(group)))
    if shuffle:
        batches = [batches[i] for i in torch.randperm(len(batches), generator=g)]
    return batches


class AveragedVectors(nn.Module):
    """softmax(W · mean_t e_{w_t} + b): the bag-of-vectors sentence classifier.

    ``vectors`` (vocab_size, d_embed) starts the embedding table from pretrained word
    vectors (Chapter 2's transfer experiment) instead of N(0, 1); ``freeze=True`` keeps
    them fixed, so that only W and b learn.
    """

    def __init__(
        self, vocab_size: int, d_embed: int, n_classes: int = 2, *, pad_id: int = 0,
        dropout: float = 0.0, vectors: Tensor | None = None, freeze: bool = False,
        device: torch.device | str | None = None,
    ) -> None:  # fmt: skip
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
        self, vocab_size: int, d_embed: int, d_hidden: int, n_classes: int = 2, *,
        pad_id: int = 0, dropout: float = 0.0, device: torch.device | str | None = None,
    ) -> None:  # fmt: skip
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


def _check_pairs(pairs):
    if not pairs:
        raise ValueError("no batches given")


def has_negation(sentence: str) -> bool:
    """Whether a tokenized sentence holds one of :data:`NEGATIONS` as a word."""
    return not NEGATIONS.isdisjoint(sentence.split())


@torch.no_grad()
def predict(
    model: nn.Module,
    batches: Sequence[LabelledBatch],
    *,
    device=None,
    input_order: bool = False,
) -> tuple[Tensor, Tensor]:
    """Predicted and true labels over ``batches``: (N,) each, in batch order, or with
    ``input_order`` in the order of the pairs given to :func:`labelled_batches` (all of
    them must be batched, once each)."""
    _check_pairs(batches)
    preds, gold = [], []
    with evaluating(model):
        for b in batches:
            logits = model(b.tokens.to(device), b.lengths.to(device))  # (B, C)
            preds.append(logits.argmax(-1).cpu())
            gold.append(b.labels)
    preds, gold = torch.cat(preds), torch.cat(gold)  # (N,), (N,)
    if input_order:
        index = _input_positions(batches)  # (N,)
        preds, gold = preds[index.argsort()], gold[index.argsort()]
    return preds, gold


def _input_positions(batches: Sequence[LabelledBatch]) -> Tensor:
    """Each predicted row's position in the input pairs; they must be 0..N−1 once each."""
    if any(b.index is None for b in batches):
        raise ValueError("input_order needs batches from labelled_batches (with index)")
    index = torch.cat([b.index for b in batches])  # (N,)
    if not torch.equal(index.sort().values, torch.arange(len(index))):
        raise ValueError(
            "input_order needs every pair batched exactly once; got a subset of batches"
        )
    return index


def accuracy(
    model: nn.Module, batches: Sequence[LabelledBatch], *, device=None
) -> float:
    """Share of correctly labelled sentences."""
    p, y = predict(model, batches, device=device)
    return float((p == y).double().mean())


def train_classifier(
    model: nn.Module,
    batches: Callable[[int], Sequence[LabelledBatch]],
    *,
    epochs: int,
    lr: float,
    weight_decay: float = 0.0,
    max_steps: int | None = None,
    device: torch.device | str | None = None,
) -> list[float]:
    """Adam on cross-entropy for ``epochs`` passes; ``batches(epoch)`` gives each
    epoch's (shuffled) batches. Returns the loss of every step."""
    if epochs < 1:
        raise ValueError(f"epochs must be >= 1; got {epochs}")
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay)
    losses: list[float] = []
    model.train()
    for epoch in range(epochs):
        for b in batches(epoch):
            logits = model(b.tokens.to(device), b.lengths.to(device))  # (B, C)
            loss = F.cross_entropy(logits, b.labels.to(device))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(params, 5.0)
            opt.step()
            losses.append(loss.item())
            if max_steps is not None and len(losses) >= max_steps:
                return losses
    return losses

r"""Fine-tuning an encoder as a tagger, from few labelled sentences. Chapter 9.

The linear probe of :mod:`~course_lib.pretraining.word_pieces` reads a frozen encoder; here
every weight is trained on the labels, as BERT is fine-tuned for a word-level task (Devlin et
al., 2019, §5.3): each word w is tagged from the final state of its first piece,

    ŷ_w = softmax(W h_{p_1(w)} + b),

and the loss is the cross-entropy of the gold tags, summed over the words of a batch and
averaged. Started from a pretrained encoder or from the same architecture's random weights,
the same recipe measures what pretraining is worth when the labelled sentences are few
(CS224N lecture 9).

Shape letters: B sentences, T pieces ([CLS] first, then padding), W words, D width, K tags.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from course_lib.data.batching import pad
from course_lib.pretraining.word_pieces import words_to_pieces
from course_lib.runtime import run_seed
from course_lib.training import evaluating, fit

__all__ = ["PieceTagger", "fine_tune_tagger", "first_pieces", "tagging_batches"]


class PieceTagger(nn.Module):
    """An encoder and one linear layer on the first piece of every word: (B, T) -> (W, K)."""

    def __init__(self, encoder: nn.Module, d_model: int, n_tags: int) -> None:
        super().__init__()
        self.encoder = encoder
        device = next(encoder.parameters()).device
        self.head = nn.Linear(d_model, n_tags, device=device)  # W, b

    def forward(self, tokens: Tensor, rows: Tensor, cols: Tensor) -> Tensor:
        """tokens (B, T); rows, cols (W,): each word's first piece -> logits (W, K)."""
        hidden = self.encoder(tokens)[0]  # (B, T, D)
        return self.head(hidden[rows, cols])  # (W, K)


def first_pieces(word_index: Sequence[Sequence[int]]) -> list[list[int]]:
    """For each sentence (its pieces' word indices, −1 for [CLS]), the position of every
    word's first piece, in word order."""
    firsts = []
    for of_word in word_index:
        seen: dict[int, int] = {}
        for position, word in enumerate(of_word):
            if word >= 0:
                seen.setdefault(word, position)
        if sorted(seen) != list(range(len(seen))):
            raise ValueError(f"word indices must run 0, 1, 2, ...; got {sorted(seen)}")
        firsts.append([seen[w] for w in range(len(seen))])
    return firsts


def tagging_batches(
    ids: Sequence[Sequence[int]],
    firsts: Sequence[Sequence[int]],
    tags: Sequence[Sequence[int]],
    *,
    pad_id: int,
    batch_size: int,
    order: Sequence[int] | None = None,
    device: torch.device | str | None = None,
) -> list[tuple[Tensor, Tensor, Tensor, Tensor]]:
    """Minibatches (tokens (B, T), rows (W,), cols (W,), gold tags (W,)) of the sentences in
    ``order`` (default: as given): rows and cols locate each word's first piece."""
    if not len(ids) == len(firsts) == len(tags):
        raise ValueError("ids, firsts and tags need one entry per sentence")
    for s, (f, t) in enumerate(zip(firsts, tags, strict=True)):
        if len(f) != len(t):
            raise ValueError(f"sentence {s}: {len(f)} words but {len(t)} tags")
    order = list(range(len(ids))) if order is None else list(order)
    out = []
    for start in range(0, len(order), batch_size):
        chunk = order[start : start + batch_size]
        tokens = pad([ids[s] for s in chunk], pad_id, device=device)  # (B, T)
        rows = [b for b, s in enumerate(chunk) for _ in firsts[s]]
        cols = [c for s in chunk for c in firsts[s]]
        gold = [t for s in chunk for t in tags[s]]
        out.append(
            (
                tokens,
                torch.tensor(rows, device=device),
                torch.tensor(cols, device=device),
                torch.tensor(gold, device=device),
            )
        )
    return out


def fine_tune_tagger(
    encoder: nn.Module,
    tokenizer: Any,
    train: Sequence[Any],
    dev: Sequence[Any],
    tag_ids: dict[str, int],
    *,
    cls_id: int,
    pad_id: int,
    max_len: int,
    epochs: int,
    lr: float = 1e-3,
    batch_size: int = 16,
    seed: int = 0,
    device: torch.device | str | None = None,
) -> np.ndarray:
    """Fine-tune ``encoder`` (every weight) with a first-piece tag layer on ``train``
    (sentences with ``.words .upos``), AdamW with weight decay 0.01; return, for every word
    of the ``dev`` sentences that fit in ``max_len`` pieces, whether its tag came out right
    (a bool array (W_dev,)). Seeded by ``seed``: the head's start and the batches' order.
    """
    if not train or not dev:
        raise ValueError("fine_tune_tagger needs training and dev sentences")

    def encoded(sentences):
        words = [s.words for s in sentences]
        ids, index, kept = words_to_pieces(
            tokenizer, words, cls_id=cls_id, max_len=max_len
        )
        tags = [[tag_ids[t] for t in sentences[i].upos] for i in kept]
        return ids, first_pieces(index), tags

    train_ids, train_firsts, train_tags = encoded(train)
    dev_ids, dev_firsts, dev_tags = encoded(dev)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(run_seed(seed))
        d_model = encoder.config.d_model
        model = PieceTagger(encoder, d_model, len(tag_ids))
    gen = torch.Generator().manual_seed(run_seed(seed))
    batch = dict(pad_id=pad_id, batch_size=batch_size, device=device)

    def shuffled():  # a fresh order every epoch
        order = torch.randperm(len(train_ids), generator=gen).tolist()
        return tagging_batches(
            train_ids, train_firsts, train_tags, order=order, **batch
        )

    fit(
        model,
        shuffled,
        optimizer=torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01),
        epochs=epochs,
        loss_fn=lambda m, b: nn.functional.cross_entropy(m(b[0], b[1], b[2]), b[3]),
        device=device,
        progress=False,
        desc="tagger",
    )
    right = []
    with torch.no_grad(), evaluating(model):
        for tokens, rows, cols, gold in tagging_batches(
            dev_ids, dev_firsts, dev_tags, **(batch | {"batch_size": 128})
        ):
            right.append((model(tokens, rows, cols).argmax(-1) == gold).cpu().numpy())
    return np.concatenate(right)  # (W_dev,)

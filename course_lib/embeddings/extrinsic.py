r"""Extrinsic evaluation: word vectors as frozen inputs to a part-of-speech tagger. Chapter 2.

CS224N lecture 2 separates intrinsic evaluation (analogies, similarity ratings) from extrinsic
evaluation on a real task. Here the task is UD English EWT's UPOS tags, and the model is
lecture 3's window classifier (``course_lib.backprop.window_classifier``): the vectors of the 2w + 1
words around a word are concatenated, ŷ = softmax(U f(W x + b) + c). The embedding table is
the word vectors under test and stays **frozen**, so only W, b, U, c learn and the accuracy
measures what the vectors carry; ``freeze=False`` fine-tunes it with the rest (the vectors
as transfer learning, against a random start). Words are lower-cased (the WikiText-2 vectors are);
a word the vectors lack maps to a zero ``<unk>`` row, and the rate of such words is reported.

Shape letters: N windows, B batch, K = 2w + 1, V vocabulary, D vector width.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from course_lib.backprop.window_classifier import (
    PAD,
    TorchWindowClassifier,
    WindowConfig,
    init_params,
    make_windows,
)
from course_lib.data.batching import shuffled_batches
from course_lib.data.vocab import Vocab
from course_lib.embeddings._common import Device, check_positive_int, describe
from course_lib.runtime import run_seed
from course_lib.training import fit

__all__ = ["TaggingResult", "embedding_table", "vector_tagger"]

SPECIALS = ("<unk>", PAD)


@dataclass
class TaggingResult:
    """Dev accuracy of a word-vector tagger, the share of dev words without a vector
    (``oov_rate``), the mean training loss of each epoch and the trained model."""

    accuracy: float
    oov_rate: float
    epoch_loss: list[float]
    model: TorchWindowClassifier


def _lowercased(sentences: Sequence[Any]) -> list[tuple[list[str], list[str]]]:
    out = []
    for s in sentences:
        words, tags = (s.words, s.upos) if hasattr(s, "words") else s
        out.append(([w.lower() for w in words], list(tags)))
    return out


def embedding_table(
    E: Tensor, vocab: Any, words: Sequence[str]
) -> tuple[Tensor, Tensor]:
    """A downstream task's embedding table from pretrained vectors (transfer). Chapter 2.

    E: (V, D) word vectors with ``vocab`` mapping a word to its row; ``words``: the task's
    own vocabulary, in its id order (N words). Row n is E's row for ``words[n]``, or zeros
    when E has no vector for it. Returns the table (N, D), float32, and ``found`` (N,) bool.
    """
    if not isinstance(E, Tensor) or E.dim() != 2:
        raise ValueError(
            f"E must be a (V, D) matrix of word vectors, got {describe(E)}"
        )
    found = torch.tensor([w in vocab for w in words], dtype=torch.bool)  # (N,)
    rows = [int(vocab[w]) for w, ok in zip(words, found.tolist()) if ok]
    if rows and max(rows) >= len(E):
        raise ValueError(f"vocab has rows up to {max(rows)} but E has {len(E)}")
    table = torch.zeros(len(words), E.size(1), dtype=torch.float32)  # (N, D)
    table[found] = E.detach().float().cpu()[torch.tensor(rows, dtype=torch.long)]
    return table, found  # (N, D), (N,)


def _epoch_means(step_loss: list[float], n: int, batch_size: int) -> list[float]:
    """Each epoch's loss per window: the steps' losses weighted by their batch sizes."""
    sizes = [min(batch_size, n - s) for s in range(0, n, batch_size)]
    means = []
    for e in range(0, len(step_loss), len(sizes)):
        total = 0.0
        for loss, size in zip(step_loss[e : e + len(sizes)], sizes):
            total += loss * size
        means.append(total / n)
    return means


def vector_tagger(
    E: Tensor,
    vocab: Any,
    train: Sequence[Any],
    dev: Sequence[Any],
    *,
    freeze: bool = True,
    window: int = 2,
    hidden: int = 100,
    epochs: int = 2,
    batch_size: int = 256,
    lr: float = 2e-3,
    seed: int = 0,
    device: Device = None,
) -> TaggingResult:
    r"""Train lecture 3's window classifier on word vectors E; score UPOS accuracy on dev.

    E: (V, D) word vectors; vocab: word -> row of E (a ``Vocab`` or a dict), lower-cased words.
    train, dev: sentences with ``.words`` and ``.upos`` (``data.ewt(split)``) or (words, tags)
    pairs. The embedding table is E plus a zero row for ``<unk>`` and one for ``<pad>``, and
    is not trained (``freeze=False``: it is, with the rest); W, b, U, c are trained with
    Adam (lr) for ``epochs`` passes of minibatches of ``batch_size`` windows of ±``window``
    words. Deterministic for a given seed and device.
    Returns a ``TaggingResult``.
    """
    if not isinstance(E, Tensor) or E.dim() != 2:
        raise ValueError(
            f"E must be a (V, D) matrix of word vectors, got {describe(E)}"
        )
    for name, value in (("hidden", hidden), ("epochs", epochs), ("batch", batch_size)):
        check_positive_int(value, name)
    if not train or not dev:
        raise ValueError("train and dev must both contain sentences")
    dev_ = torch.device(device) if device is not None else E.device
    words = [
        w for w in (getattr(vocab, "tokens", None) or list(vocab)) if w not in SPECIALS
    ]  # WikiText-2 has a literal "<unk>" token: the zero row stands in for it
    rows = torch.tensor([int(vocab[w]) for w in words], dtype=torch.long)  # (V,)
    if len(rows) and int(rows.max()) >= len(E):
        raise ValueError(f"vocab has rows up to {int(rows.max())} but E has {len(E)}")
    tag_vocab = Vocab.build(
        [t for _, t in _lowercased(train)], specials=(), unk=None
    )  # the UPOS tags seen in training
    word_vocab = Vocab([*SPECIALS, *words], unk="<unk>")  # ids 0, 1, then E's rows
    table = torch.zeros(len(word_vocab), E.size(1), dtype=torch.float32)  # (V + 2, D)
    table[2:] = E.detach().float().cpu()[rows]
    cfg = WindowConfig(
        len(word_vocab), len(tag_vocab), window, E.size(1), hidden, "relu"
    )
    params = init_params(cfg, seed=seed)
    params["E"] = table
    model = TorchWindowClassifier(cfg, params, device=dev_)
    model.E.requires_grad_(not freeze)  # frozen: the vectors are what is evaluated
    x, y = make_windows(_lowercased(train), word_vocab, tag_vocab, window, device=dev_)
    gen = torch.Generator().manual_seed(
        run_seed(seed)
    )  # the order of every epoch's minibatches
    trained = [model.W, model.b, model.U, model.c] + ([] if freeze else [model.E])
    history = fit(
        model,
        lambda: shuffled_batches(x, y, batch_size, gen),
        optimizer=torch.optim.Adam(trained, lr=lr),
        epochs=epochs,
        loss_fn=lambda m, b: m.loss(*b),
        progress=False,
    )
    epoch_loss = _epoch_means(history.step_loss, len(x), batch_size)
    dev_sents = [
        (w, [t if t in tag_vocab else tag_vocab.tokens[0] for t in tags])
        for w, tags in _lowercased(dev)
    ]
    xd, yd = make_windows(dev_sents, word_vocab, tag_vocab, window, device=dev_)
    with torch.no_grad():
        correct = sum(
            int((model(xd[s : s + 4096]).argmax(-1) == yd[s : s + 4096]).sum())
            for s in range(0, len(xd), 4096)
        )
    centre = xd[:, window]  # (N,) the tagged word of each window
    return TaggingResult(
        accuracy=correct / len(yd),
        oov_rate=float((centre == word_vocab["<unk>"]).float().mean()),
        epoch_loss=epoch_loss,
        model=model,
    )

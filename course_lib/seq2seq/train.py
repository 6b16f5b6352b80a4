r"""Data to tensors and the training loop of the encoder-decoder. Chapter 7.

Sentences become token lists (:func:`tokenize` for words, ``list(text)`` for characters),
then ids in a :class:`~course_lib.data.Vocab` whose first four entries are
``<pad> <unk> <bos> <eos>`` (ids 0-3, the defaults of ``Seq2SeqConfig``). Batches group
sentences of similar source length. The loss is the lecture's: the mean over target tokens
of −log P(y_t | y_<t, x) under teacher forcing, padding excluded.
Shape letters: B batch, S source length, T target length (with <bos> and <eos>), V vocabulary.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

import torch
import torch.nn.functional as F
from torch import Tensor

from course_lib.data import Vocab
from course_lib.seq2seq.decoding import beam_search
from course_lib.seq2seq.model import Seq2Seq
from course_lib.training import History, fit

__all__ = [
    "SPECIALS",
    "Batch",
    "build_vocab",
    "encode_batch",
    "make_batches",
    "seq2seq_loss",
    "tokenize",
    "train_seq2seq",
    "translate",
]

SPECIALS = ("<pad>", "<unk>", "<bos>", "<eos>")
Batch = tuple[Tensor, Tensor, Tensor]
_TOKEN = re.compile(r"\w+|[^\w\s]")


def tokenize(text: str) -> list[str]:
    """Lower-cased words and punctuation marks: "Je l'ai vu !" -> je l ' ai vu !"""
    if not isinstance(text, str):
        raise TypeError(f"tokenize needs a string; got {type(text).__name__}")
    return _TOKEN.findall(text.lower())


def build_vocab(sentences: Sequence[Sequence[str]], min_freq: int = 1) -> Vocab:
    """A vocabulary with ``<pad> <unk> <bos> <eos>`` first (ids 0, 1, 2, 3)."""
    return Vocab.build(sentences, min_freq=min_freq, specials=SPECIALS, unk="<unk>")


def encode_batch(
    sources: Sequence[Sequence[str]],
    targets: Sequence[Sequence[str]] | None,
    src_vocab: Vocab,
    tgt_vocab: Vocab | None = None,
    *,
    device: torch.device | str | None = None,
) -> Batch:
    """Token lists to padded tensors: src (B, S), src_lens (B,), tgt (B, T) = <bos> y <eos>.

    Without targets, tgt is an empty (B, 0) tensor. Empty source sentences are an error.
    """
    if not sources:
        raise ValueError("encode_batch needs at least one source sentence")
    for k, s in enumerate(sources):
        if isinstance(s, str):
            raise TypeError(
                f"source {k} is a string; give token lists (split it first)"
            )
        if len(s) == 0:
            raise ValueError(
                f"source sentence {k} is empty: there is nothing to translate"
            )
    lens = torch.tensor([len(s) for s in sources])  # (B,)
    src = torch.zeros(len(sources), int(lens.max()), dtype=torch.long)  # (B, S)
    for b, s in enumerate(sources):
        src[b, : len(s)] = torch.tensor(src_vocab.encode(s))
    if targets is None:
        tgt = torch.zeros(len(sources), 0, dtype=torch.long)  # (B, 0)
    else:
        if tgt_vocab is None or len(targets) != len(sources):
            raise ValueError("targets need tgt_vocab and one target per source")
        bos, eos = tgt_vocab.index("<bos>"), tgt_vocab.index("<eos>")
        ids = [[bos, *tgt_vocab.encode(t), eos] for t in targets]
        tgt = torch.zeros(len(ids), max(map(len, ids)), dtype=torch.long)  # (B, T)
        for b, t in enumerate(ids):
            tgt[b, : len(t)] = torch.tensor(t)
    return src.to(device), lens.to(device), tgt.to(device)


def make_batches(
    sources: Sequence[Sequence[str]],
    targets: Sequence[Sequence[str]],
    src_vocab: Vocab,
    tgt_vocab: Vocab,
    batch_size: int,
    *,
    shuffle: bool = True,
    seed: int = 0,
) -> Callable[[], list[Batch]]:
    """A function returning one epoch of batches (for ``fit``): sentences sorted by source
    length into batches, the batch order shuffled each epoch (seeded, so reproducible)."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1; got {batch_size}")
    if len(sources) != len(targets) or not sources:
        raise ValueError(
            f"need as many targets as sources (> 0): {len(sources)}, {len(targets)}"
        )
    order = sorted(range(len(sources)), key=lambda i: (len(sources[i]), i))
    batches = [
        encode_batch(
            [sources[i] for i in order[k : k + batch_size]],
            [targets[i] for i in order[k : k + batch_size]],
            src_vocab,
            tgt_vocab,
        )
        for k in range(0, len(order), batch_size)
    ]
    rng = random.Random(seed)

    def epoch() -> list[Batch]:
        if shuffle:
            rng.shuffle(batches)
        return list(batches)

    return epoch


def seq2seq_loss(model: Seq2Seq, batch: Batch) -> Tensor:
    """Mean −log P(y_t | y_<t, x) over the real target tokens (teacher forcing)."""
    src, src_lens, tgt = batch
    logits, _ = model(src, src_lens, tgt[:, :-1])  # (B, T-1, V)
    return F.cross_entropy(
        logits.reshape(-1, logits.size(-1)),  # (B*(T-1), V)
        tgt[:, 1:].reshape(-1),  # (B*(T-1),)
        ignore_index=model.config.pad_id,
    )


def train_seq2seq(
    model: Seq2Seq,
    batches: Callable[[], list[Batch]],
    *,
    epochs: int,
    lr: float = 2e-3,
    clip_norm: float = 1.0,
    valid: list[Batch] | None = None,
    device: torch.device | str | None = None,
    desc: str = "seq2seq",
) -> History:
    """Adam on :func:`seq2seq_loss` with gradient clipping, through ``course_lib.fit``."""
    model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    return fit(
        model,
        batches,
        optimizer=optimizer,
        epochs=epochs,
        loss_fn=seq2seq_loss,
        clip_norm=clip_norm,
        valid=valid,
        device=device,
        desc=desc,
    )


def translate(
    model: Seq2Seq,
    sources: Sequence[Sequence[str]],
    src_vocab: Vocab,
    tgt_vocab: Vocab,
    *,
    beam_size: int = 1,
    max_len: int = 50,
    alpha: float = 0.7,
    n_best: int = 1,
    batch_size: int = 256,
    device: torch.device | str | None = None,
) -> list[list]:
    """Translate token lists with :func:`beam_search`; returns, per sentence, n-best
    (tokens, hypothesis) pairs, tokens as strings."""
    out = []
    for k in range(0, len(sources), batch_size):
        src, lens, _ = encode_batch(
            sources[k : k + batch_size], None, src_vocab, device=device
        )
        for hyps in beam_search(
            model, src, lens, beam_size, max_len, alpha=alpha, n_best=n_best
        ):
            out.append([(tgt_vocab.decode(h.tokens), h) for h in hyps])
    return out

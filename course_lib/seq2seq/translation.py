r"""Sentences to batches, and batches to translations, for every translation model. Ch. 7-8.

Chapter 7's encoder-decoder and Chapter 8's Transformer read the same batches and are
decoded the same way. Sentences become token lists (:func:`tokenize` for words,
``list(text)`` for characters), then ids in a :class:`~course_lib.data.Vocab` whose first
four entries are ``<pad> <unk> <bos> <eos>`` (ids 0-3, the defaults of both models'
configs). :func:`make_batches` groups sentences of similar source length; :func:`translate`
decodes with :mod:`course_lib.decoding`, through each model's ``start(src, src_lens)``
and its ``step``/``reorder``.

Shape letters: B batch, S source length, T target length (with <bos> and <eos>).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import Tensor

from course_lib.data import Vocab
from course_lib.data.batching import length_groups, pad, pad_with_lengths
from course_lib.decoding import ALPHA, Hypothesis, beam_search, greedy_decode
from course_lib.runtime import run_seed
from course_lib.training import evaluating

__all__ = [
    "BOS",
    "EOS",
    "PAD",
    "SPECIALS",
    "UNK",
    "Batch",
    "build_vocab",
    "encode_batch",
    "make_batches",
    "tokenize",
    "translate",
    "translate_ids",
]

SPECIALS = ("<pad>", "<unk>", "<bos>", "<eos>")
PAD, UNK, BOS, EOS = range(4)  # the ids of SPECIALS
Batch = tuple[Tensor, Tensor, Tensor]  # src (B, S), src_lens (B,), tgt (B, T)
_TOKEN = re.compile(r"\w+|[^\w\s]")


def tokenize(text: str) -> list[str]:
    """Lower-cased words and punctuation marks: "Je l'ai vu !" -> je l ' ai vu !"""
    if not isinstance(text, str):
        raise TypeError(f"tokenize needs a string; got {type(text).__name__}")
    return _TOKEN.findall(text.lower())


def build_vocab(sentences: Sequence[Sequence[str]], min_freq: int = 1) -> Vocab:
    """A vocabulary with ``<pad> <unk> <bos> <eos>`` first (ids 0, 1, 2, 3)."""
    return Vocab.build(sentences, min_freq=min_freq, specials=SPECIALS, unk="<unk>")


def _check_sources(sources: Sequence[Sequence[str]]) -> None:
    if not sources:
        raise ValueError("need at least one source sentence")
    for k, s in enumerate(sources):
        if isinstance(s, str):
            raise TypeError(
                f"source {k} is a string; give token lists (split it first)"
            )
        if len(s) == 0:
            raise ValueError(
                f"source sentence {k} is empty: there is nothing to translate"
            )


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
    _check_sources(sources)
    src, lens = pad_with_lengths([src_vocab.encode(s) for s in sources], PAD)  # (B, S)
    if targets is None:
        tgt = torch.zeros(len(sources), 0, dtype=torch.long)  # (B, 0)
    else:
        if tgt_vocab is None or len(targets) != len(sources):
            raise ValueError("targets need tgt_vocab and one target per source")
        tgt = pad([[BOS, *tgt_vocab.encode(t), EOS] for t in targets], PAD)  # (B, T)
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
    length into batches (:func:`~course_lib.data.batching.length_groups`), the batch order
    shuffled each epoch (seeded, so reproducible)."""
    if len(sources) != len(targets) or not sources:
        raise ValueError(
            f"need as many targets as sources (> 0): {len(sources)}, {len(targets)}"
        )
    batches = [
        encode_batch(
            [sources[i] for i in group],
            [targets[i] for i in group],
            src_vocab,
            tgt_vocab,
        )
        for group in length_groups([len(s) for s in sources], batch_size)
    ]
    rng = random.Random(run_seed(seed))

    def epoch() -> list[Batch]:
        if shuffle:
            rng.shuffle(batches)
        return list(batches)

    return epoch


@torch.no_grad()
def translate_ids(
    model: Any,
    src: Tensor,
    src_lens: Tensor,
    *,
    beam_size: int = 1,
    n_best: int = 1,
    max_len: int = 50,
    alpha: float = ALPHA,
) -> list[list[Hypothesis]]:
    """Decode a batch src (B, S), src_lens (B,) in eval mode: each sentence's ``n_best``
    hypotheses, best first (greedy decoding for ``beam_size=1``, else beam search).

    ``model`` is any translation model with ``start(src, src_lens)`` and the decoding
    protocol (Chapter 7's ``Seq2Seq``, Chapter 8's ``Transformer``).
    """
    cfg = model.config
    with evaluating(model):
        state = model.start(src, src_lens)  # the encoder runs once, in eval mode
        prompt = torch.full((src.size(0), 1), cfg.bos_id, device=src.device)  # (B, 1)
        if beam_size == 1 and n_best == 1:
            hyps = greedy_decode(
                model, prompt, state, eos=cfg.eos_id, max_len=max_len, alpha=alpha
            )
            return [[h] for h in hyps]
        return beam_search(
            model,
            prompt,
            state,
            eos=cfg.eos_id,
            beam_size=beam_size,
            max_len=max_len,
            alpha=alpha,
            n_best=n_best,
        )


def translate(
    model: Any,
    sources: Sequence[Sequence[str]],
    src_vocab: Vocab,
    tgt_vocab: Vocab,
    *,
    beam_size: int = 1,
    max_len: int = 50,
    alpha: float = ALPHA,
    batch_size: int = 128,
    device: torch.device | str | None = None,
) -> list[list[str]]:
    """Translate token lists, ``batch_size`` at a time, with :func:`translate_ids`.

    Returns the best output of each sentence, as tokens.
    """
    _check_sources(sources)
    out: list[list[str]] = []
    for k in range(0, len(sources), batch_size):
        src, lens, _ = encode_batch(
            sources[k : k + batch_size], None, src_vocab, device=device
        )
        for nbest in translate_ids(
            model, src, lens, beam_size=beam_size, max_len=max_len, alpha=alpha
        ):
            out.append(tgt_vocab.decode(nbest[0].tokens))
    return out

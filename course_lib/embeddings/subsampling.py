r"""Subsampling of frequent words and word2vec's reduced (dynamic) windows. Chapter 2.

CS224N lecture 2 and Mikolov, Sutskever, Chen, Corrado and Dean (2013), "Distributed
representations of words and phrases and their compositionality", section 2.3. Frequent words
("the", ",") carry little information about their neighbours and dominate the pairs, so each
occurrence of a word w with corpus frequency f(w) = count(w) / total is kept with probability

    keep(w) = (sqrt(f(w) / t) + 1) · t / f(w)        (capped at 1)

which is the formula of word2vec's C code and of gensim (``sample=t``, default t = 1e-3); the
paper writes the discard probability 1 - sqrt(t / f(w)), the same idea. Dropped words are removed
before the windows are cut, so the window closes up over them and reaches further.

Each kept centre word then gets its own window size b, drawn uniformly from 1..window (word2vec's
"reduced window"): near words are used more often than far ones, a cheap distance weighting
(a word at distance d is used with probability (window - d + 1) / window).

Shape letters: N tokens, n kept tokens (effective words), W window, P pairs, V vocabulary.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor

from course_lib.embeddings._common import (
    Corpus,
    Device,
    check_window,
    describe,
    flatten_corpus,
)
from course_lib.runtime import run_seed

__all__ = [
    "Windows",
    "dynamic_windows",
    "keep_probabilities",
    "reduced_windows",
    "sgns_pairs",
    "subsample",
]


def _check_counts(counts: Tensor) -> Tensor:
    counts = torch.as_tensor(counts)
    if counts.dim() != 1 or counts.numel() == 0:
        raise ValueError(
            f"counts must be a 1-D tensor of word counts (V,), got {describe(counts)}"
        )
    if counts.is_floating_point() and not bool(torch.isfinite(counts).all()):
        raise ValueError("counts must be finite")
    if float(counts.min()) < 0:
        raise ValueError(f"counts must be >= 0, got a minimum of {counts.min().item()}")
    if float(counts.sum()) <= 0:
        raise ValueError("counts are all zero: there is no word to count")
    return counts.double()


def keep_probabilities(counts: Tensor, sample: float = 1e-3) -> Tensor:
    r"""Probability of keeping each occurrence of a word, keep(w) = (√(f/t) + 1)·t/f. Chapter 2.

    counts: (V,) word counts in the training corpus (after ``min_count``); f(w) = count(w)/Σcount
    and t = ``sample`` (Mikolov et al., 2013, §2.3, as word2vec's code and gensim compute it:
    gensim keeps a word if keep(w) exceeds a uniform draw). ``sample=0`` keeps everything.
    Words with count 0 get 1. Returns float64 (V,) in (0, 1].
    """
    counts = _check_counts(counts)
    if not 0 <= sample < 1:
        raise ValueError(f"sample must be in [0, 1) (e.g. 1e-3; 0 = off), got {sample}")
    if sample == 0:
        return torch.ones_like(counts)  # (V,)
    threshold = sample * counts.sum()  # t · total
    keep = ((counts / threshold).sqrt() + 1) * (threshold / counts)  # (V,)
    return keep.nan_to_num(1.0, posinf=1.0).clamp(max=1.0)  # (V,)


def subsample(
    tokens: Tensor, keep_prob: Tensor, *, generator: torch.Generator | None = None
) -> Tensor:
    """Which tokens survive subsampling: a bool mask (N,), True with keep_prob[token]. Chapter 2.

    tokens: (N,) ids; keep_prob: (V,) from ``keep_probabilities``. ``generator`` (on the tokens'
    device) makes the draw repeatable.
    """
    if not isinstance(tokens, Tensor) or tokens.dim() != 1:
        raise ValueError(
            f"tokens must be a 1-D LongTensor (N,), got {describe(tokens)}"
        )
    if tokens.numel() and int(tokens.max()) >= keep_prob.numel():
        raise ValueError(
            f"token id {int(tokens.max())} is outside keep_prob's {keep_prob.numel()} words"
        )
    mps = tokens.device.type == "mps"
    dtype = torch.float32 if mps else torch.float64  # MPS has no float64
    keep_prob = keep_prob.to(tokens.device, dtype)  # (V,)
    draw = torch.rand(
        tokens.shape, generator=generator, device=tokens.device, dtype=dtype
    )  # (N,)
    return draw < keep_prob[tokens]  # (N,)


def reduced_windows(
    n: int,
    window: int,
    *,
    generator: torch.Generator | None = None,
    device: Device = None,
) -> Tensor:
    """word2vec's reduced window: an effective size b ~ Uniform{1, ..., window} per centre.

    Returns a LongTensor (n,). gensim draws b = window - (random mod window), the same
    distribution. Chapter 2.
    """
    check_window(window)
    return torch.randint(
        1, window + 1, (n,), generator=generator, device=device
    )  # (n,)


class Windows(NamedTuple):
    """One epoch's windows: every kept centre word with its 2W neighbour slots.

    centres (n,) ids; contexts (n, 2W) ids at offsets -W..-1, 1..W (a slot outside the window
    holds the centre's own id); mask (n, 2W) bool, True = a real context word (inside the
    sentence and within the centre's reduced window b); sizes (n,) the b of each centre.
    n is the number of effective words (after ``min_count`` and subsampling).
    """

    centres: Tensor
    contexts: Tensor
    mask: Tensor
    sizes: Tensor


def dynamic_windows(
    tokens: Tensor,
    sentence_ids: Tensor,
    window: int,
    *,
    keep_prob: Tensor | None = None,
    reduce: bool = True,
    generator: torch.Generator | None = None,
) -> Windows:
    r"""Subsample, then cut a reduced window around every kept word, vectorised. Chapter 2.

    tokens: (N,) ids of the whole corpus, sentence_ids: (N,) the sentence of each token (both from
    ``course_lib.embeddings._common.flatten_corpus``). ``keep_prob`` (V,) drops frequent words
    first (``None`` = keep all), closing the gaps as word2vec does; ``reduce`` draws each window
    size b uniformly in 1..window (False: b = window). Windows never cross a sentence.
    All random draws use ``generator`` (on the tokens' device), so a seed fixes the epoch.
    """
    check_window(window)
    if tokens.shape != sentence_ids.shape or tokens.dim() != 1:
        raise ValueError(
            "tokens and sentence_ids must be 1-D and the same length, got "
            f"{describe(tokens)} and {describe(sentence_ids)}"
        )
    if tokens.numel() == 0:
        raise ValueError("empty corpus: got no tokens")
    if keep_prob is not None:
        kept = subsample(tokens, keep_prob, generator=generator)  # (N,)
        tokens, sentence_ids = tokens[kept], sentence_ids[kept]  # (n,), (n,)
    n, dev = tokens.numel(), tokens.device
    if reduce:
        sizes = reduced_windows(n, window, generator=generator, device=dev)  # (n,)
    else:
        sizes = torch.full((n,), window, device=dev)  # (n,)
    offsets = torch.cat(
        [torch.arange(-window, 0, device=dev), torch.arange(1, window + 1, device=dev)]
    )  # (2W,)
    pos = torch.arange(n, device=dev)[:, None] + offsets  # (n, 2W)
    mask = (pos >= 0) & (pos < n)  # (n, 2W)
    pos = torch.where(mask, pos, torch.arange(n, device=dev)[:, None])  # (n, 2W)
    mask &= sentence_ids[pos] == sentence_ids[:, None]  # (n, 2W) same sentence
    mask &= offsets.abs() <= sizes[:, None]  # (n, 2W) inside the reduced window
    return Windows(tokens, tokens[pos], mask, sizes)  # (n,), (n, 2W), (n, 2W), (n,)


def sgns_pairs(
    sentences: Corpus,
    window: int,
    *,
    keep_prob: Tensor | None = None,
    reduce: bool = True,
    seed: int = 0,
    device: Device = None,
) -> Tensor:
    r"""word2vec's (centre, outside) training pairs for one epoch, in corpus order. Chapter 2.

    Like Chapter 1's ``skipgram_pairs``, but with subsampling (``keep_prob`` from
    ``keep_probabilities``) and reduced windows (``reduce``), drawn with a generator seeded by
    ``seed``. Returns a LongTensor (P, 2) of (c, o), ordered by centre position, then offset.
    """
    tokens, seg = flatten_corpus(sentences, device)  # (N,), (N,)
    gen = torch.Generator(device=tokens.device).manual_seed(run_seed(seed))
    win = dynamic_windows(
        tokens, seg, window, keep_prob=keep_prob, reduce=reduce, generator=gen
    )
    centres = win.centres[:, None].expand_as(win.contexts)  # (n, 2W)
    pairs = torch.stack([centres[win.mask], win.contexts[win.mask]], dim=1)  # (P, 2)
    if pairs.size(0) == 0:
        raise ValueError("no (centre, outside) pairs: no sentence has 2 kept words")
    return pairs

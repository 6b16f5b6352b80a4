"""Chapter 2's gpu profile: descent curves, SGNS and GloVe trained without an optimizer, PPMI-SVD,
and the vectors judged by an EWT tagger and an SST-2 classifier."""

from __future__ import annotations

import math
from functools import cache

import torch

from course_lib import data
from course_lib.embeddings import (
    SGNSConfig,
    cooccurrence_matrix,
    encode_corpus,
    keep_probabilities,
    skipgram_pairs,
    vocab_counts,
)
from gpu_plans.sizes import (
    ewt_words,
    kept,
    labelled_batch_count,
    sst2_items,
    wikitext_paragraphs,
)

DESCENT_BATCHES = (None, 256, 32)  # 4acce8c5's descent_runs (None: all pairs, GD)
TAGGERS = 5  # 7579f24f: the 4 vector sets of d04ba8bb and the random baseline
TAG_BATCH = 256  # vector_tagger's batch_size: windows, one a training word
SST_BATCH, SST_RUNS = 128, 2  # b2d4b342: sst_batches of 128, frozen and learned
POWERS = 3  # 6214fc9e's noise powers 0, 3/4, 1
KS = 5  # sweep_negatives' default ks: 1, 2, 5, 10, 20
GLOVE_BATCH = 16384  # train_glove's batch_size: non-zero entries of X


def _sentences(cfg: dict) -> int:
    """The paragraphs 2a969f3d keeps: sentences[: cfg["sentences"]]."""
    return kept(wikitext_paragraphs("train"), cfg["sentences"])


@cache
def _corpus(sentences: int, min_count: int) -> tuple[list[list[int]], torch.Tensor]:
    """2a969f3d's ids (words seen at least ``min_count`` times) and counts (V,)."""
    train = data.wikitext_sentences("train")[:sentences]
    vocab = data.Vocab.build(train, min_freq=min_count, specials=(), unk=None)
    return encode_corpus(train, vocab), vocab_counts(vocab)


def _data(cfg: dict) -> tuple[list[list[int]], torch.Tensor]:
    return _corpus(_sentences(cfg), cfg["min_count"])


@cache
def _descent_pairs(sentences: int, vocab_size: int) -> int:
    """4acce8c5's skip-gram pairs (window 2) over the top ``vocab_size`` words."""
    train = data.wikitext_sentences("train")[:sentences]
    small = data.Vocab.build(train, max_size=vocab_size, specials=(), unk=None)
    small_ids = [small.encode([w for w in s if w in small]) for s in train]
    return len(skipgram_pairs(small_ids, 2))


def _kept_words(ids: list[list[int]], counts: torch.Tensor) -> float:
    """train_sgns' expected effective words an epoch: the tokens subsampling keeps."""
    keep = keep_probabilities(counts, SGNSConfig().sample)  # (V,)
    tokens = torch.tensor([i for s in ids for i in s])  # (N,)
    return float(keep[tokens].sum())


@cache
def _glove_entries(sentences: int, min_count: int, window: int) -> int:
    """319164ce's non-zero entries of X (harmonic weights: the same cells as flat)."""
    ids, counts = _corpus(sentences, min_count)
    return cooccurrence_matrix(ids, len(counts), window, sparse=True)._nnz()


def steps(cfg: dict) -> dict[str, int]:
    pairs = _descent_pairs(_sentences(cfg), cfg["descent_vocab"])
    P = min(cfg["descent_pairs"], pairs)  # randperm(len(all_pairs))[: descent_pairs]
    budget = cfg["descent_passes"] * P  # examples, the same for every run
    tag = math.ceil(ewt_words("train", cfg["tag_train"]) / TAG_BATCH)
    small = kept(cfg["tag_small"], cfg["tag_train"])  # ewt_train[:tag_small]
    tag_small = math.ceil(ewt_words("train", small) / TAG_BATCH)
    transfer = 3 * cfg["tag_small_epochs"] * tag_small + 2 * cfg["tag_epochs"] * tag
    sst = kept(sst2_items("train"), cfg["sst_train"])
    sst_batches = labelled_batch_count(sst, SST_BATCH)
    return {
        # descent_curves: per run, SGD steps of B pairs until passes x P are processed
        # (a loop each: a step of all P pairs costs far more than one of 32)
        "4acce8c5": [math.ceil(budget / (B or P)) for B in DESCENT_BATCHES],
        # vector_tagger (fit, Adam) per vector set: tag_epochs over the train windows
        "7579f24f": TAGGERS * cfg["tag_epochs"] * tag,
        # vector_tagger: small x (frozen, fine-tuned, random), large x (fine-tuned, random)
        "811cffe1": transfer,
        # train_classifier (fit, AdamW), one epoch of labelled_batches, per start
        "b2d4b342": SST_RUNS * sst_batches,
    }


def work(cfg: dict) -> dict[str, float]:
    ids, counts = _data(cfg)
    words = _kept_words(ids, counts)
    k_ids = ids[: cfg["k_sentences"]]
    n_svd = min(cfg["svd_vocab"], len(counts))
    q_svd = min(min(cfg["svd_k"], n_svd - 1) + 10, n_svd)  # truncated_svd's q
    entries = _glove_entries(_sentences(cfg), cfg["min_count"], cfg["glove_window"])
    return {
        # train_sgns' batches of 256 centres (no torch optimizer): skip-gram, 3 powers
        "6214fc9e": POWERS * cfg["epochs"] * words,
        # train_sgns, CBOW
        "93a14374": cfg["epochs"] * words,
        # sweep_negatives: train_sgns once per K over ids[: k_sentences]
        "negatives-k-sweep": KS * cfg["k_epochs"] * _kept_words(k_ids, counts),
        # huffman_tree's heap merges and root paths over the vocabulary
        "b2dab73d": len(counts) * math.log2(len(counts)),
        # sparse co-occurrence counting: a pair per token and offset, sorted
        "319164ce": sum(map(len, ids)) * cfg["glove_window"],
        # train_glove: AdaGrad on batches of non-zero entries, glove_epochs times
        "41ea6c1e": cfg["glove_epochs"] * math.ceil(entries / GLOVE_BATCH),
        # dense PPMI and the randomised SVD of the (n, n) counts: n^2 q
        "2706269e": n_svd**2 * q_svd,
    }

"""Chapter 1's gpu profile: word2vec (skip-gram, CBOW) with the full softmax, and the
fixed-window LMs whose contexts shape the vectors, on WikiText-2."""

from __future__ import annotations

import math
from functools import cache

import torch

from course_lib import data
from course_lib.embeddings import cbow_examples, skipgram_pairs
from gpu_plans.sizes import kept, wikitext_paragraphs

LM_CONTEXTS = 4  # a3ba3e6f's lm_contexts: last 4, both 4, last 1, a nearby 1
LM_BATCH = 512  # train_context_lm's batches((x, y), 512)


def _sentences(cfg: dict) -> int:
    """The paragraphs 06b2f880 keeps: sentences[: cfg["sentences"]]."""
    return kept(wikitext_paragraphs("train"), cfg["sentences"])


@cache
def _corpus(sentences: int, vocab_size: int) -> tuple[list[list[int]], int]:
    """06b2f880's ids (top ``vocab_size`` words of the whole train split, + <unk>) and UNK."""
    train = data.wikitext_sentences("train")
    vocab = data.Vocab.build(train, max_size=vocab_size + 1, specials=("<unk>",))
    return [vocab.encode(s) for s in train[:sentences]], vocab.unk_index


@cache
def _sg_pairs(sentences: int, vocab_size: int, window: int) -> int:
    ids, unk = _corpus(sentences, vocab_size)
    return len(skipgram_pairs(ids, window, ignore_index=unk))


@cache
def _cbow_examples(sentences: int, vocab_size: int, window: int) -> int:
    ids, unk = _corpus(sentences, vocab_size)
    return len(cbow_examples(ids, window, ignore_index=unk)[2])


@cache
def _lm_targets(sentences: int, vocab_size: int) -> int:
    """05fcddfc's in-vocabulary positions of the joined stream."""
    ids, unk = _corpus(sentences, vocab_size)
    stream = torch.tensor([i for s in ids for i in s])
    return int((stream != unk).sum())


def steps(cfg: dict) -> dict[str, int]:
    key = (_sentences(cfg), cfg["vocab"])
    sg = kept(_sg_pairs(*key, cfg["sg_window"]), cfg["pairs"])
    cbow = kept(_cbow_examples(*key, cfg["sg_window"]), cfg["cbow"])
    lm = kept(_lm_targets(*key), cfg["lm_positions"])
    return {
        # one SGD step by autograd beside hand_sgd_step's
        "e1569882": 1,
        # train_word2vec(skipgram, pairs): epochs x ceil(P / batch) Adam steps
        "db8f3784": cfg["epochs"] * math.ceil(sg / cfg["batch"]),
        # train_word2vec(cbow, (contexts, mask, centres)): the same loop over the examples
        "7af5f7d6": cfg["epochs"] * math.ceil(cbow / cfg["batch"]),
        # train_context_lm per context kind: fit, one epoch of batches of 512 targets
        "a3ba3e6f": LM_CONTEXTS * math.ceil(lm / LM_BATCH),
    }

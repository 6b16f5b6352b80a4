"""Chapter 4's gpu profile: Chen & Manning parsers trained on EWT, word2vec to start one."""

from __future__ import annotations

import math
from functools import cache

from course_lib import data
from course_lib.parsing import is_projective, train_parser
from gpu_plans.sizes import default_batch_size, ewt_words, wikitext_kept_words

# the notebook leaves train_parser its default batch size
BATCH = default_batch_size(train_parser)


@cache
def _projective_words(sentences: int | None) -> int:
    """Words of the projective trees in the first ``sentences`` of EWT train: half the
    oracle's examples (``oracle_examples`` makes 2 a word, non-projective trees skipped)."""
    return sum(
        len(s.words) for s in data.ewt("train")[:sentences] if is_projective(s.heads)
    )


def _epoch_steps(cfg: dict) -> int:
    """One epoch of ``train_parser``: a step a shuffled batch of the oracle's examples."""
    return math.ceil(2 * _projective_words(cfg["train"]) / BATCH)


def steps(cfg: dict) -> dict[str, int]:
    per_epoch = _epoch_steps(cfg)
    return {
        "58322865": cfg["epochs"] * per_epoch,  # train_parser, word2vec start
        "df6d9548": cfg["random_epochs"] * per_epoch,  # train_parser, random start
        "ecf793b6": cfg["relu_epochs"] * per_epoch,  # train_parser, ReLU
    }


def _parser_work(cfg: dict, epochs: int) -> float:
    """A train_parser call's CPU work besides its steps, in transitions over 2: the static
    oracle's features over the projective train words, then a greedy parse of dev after
    every epoch (numpy features and legal masks per transition)."""
    return _projective_words(cfg["train"]) + epochs * ewt_words("dev", cfg["dev"])


def work(cfg: dict) -> dict[str, float]:
    return {
        # train_sgns: batched SGNS over the words kept (min_freq 5), w2v_epochs passes
        "cbd3e876": cfg["w2v_epochs"]
        * wikitext_kept_words("train", cfg["w2v_sentences"], 5),
        "58322865": _parser_work(cfg, cfg["epochs"]),
        "df6d9548": _parser_work(cfg, cfg["random_epochs"]),
        "ecf793b6": _parser_work(cfg, cfg["relu_epochs"]),
        # parse_one, then the batched parse, of the first speed_sentences of dev: a model
        # call a transition one by one, 2 transitions a word
        "409e89cb": ewt_words("dev", cfg["speed_sentences"]),
    }

"""Chapter 8's gpu profile: the Transformer's toy experiments, dates and translation."""

from __future__ import annotations

import math
from functools import cache

from course_lib.data.batching import length_groups
from course_lib.data.synthetic import date_splits
from course_lib.seq2seq import multi30k_splits, tatoeba_splits
from course_lib.seq2seq.translation import translate
from gpu_plans.sizes import default_batch_size


@cache
def _splits(corpus: str, n_train: int | None, n_dev: int | None, n_test: int | None):
    """The notebook's ``translation_splits()``: this profile's corpus, sliced."""
    if corpus == "tatoeba":
        return tatoeba_splits(max_len=10, n_train=n_train, n_dev=n_dev, n_test=n_test)
    return multi30k_splits(n_train=n_train, n_dev=n_dev, n_test=n_test)


def _translation(cfg: dict):
    return _splits(cfg["corpus"], cfg["n_train"], cfg["n_dev"], cfg["n_test"])


def _batches(sources: list, batch: int) -> int:
    """Batches of one epoch of ``make_batches``: ``length_groups`` of the source lengths."""
    return len(length_groups([len(s) for s in sources], batch))


@cache
def _date_batches(n_train: int, n_test: int) -> int:
    """Batches of 64 training dates (their characters), as cell c2bddc68 makes them."""
    return _batches([list(h) for h, _ in date_splits(n_train, n_test)[0]], 64)


def _translate_batches(n: int) -> int:
    """Batches ``translate`` decodes ``n`` sentences in (its default batch size)."""
    return math.ceil(n / default_batch_size(translate))


def steps(cfg: dict) -> dict[str, int]:
    train_src = [s for s, _ in _translation(cfg).train]
    train_batches = _batches(train_src, cfg["batch"])
    date_batches = _date_batches(cfg["dates_train"], cfg["dates_test"])
    return {
        # length_experiment: train_translation, 1 epoch of ext_steps copy batches,
        # for the sinusoidal and the learned encodings
        "c8-ext-code": 2 * cfg["ext_steps"],
        # ablation_experiment: fit over abl_steps sorting batches, three stacks
        # (plain 2 layers, plain abl_layers, residual abl_layers)
        "c8-res-code": 3 * cfg["abl_steps"],
        # ablation_experiment: abl_steps each, with and without the FFN
        "719ddc36": 2 * cfg["abl_steps"],
        # stack_experiment: fit over stack_steps sorting batches, post-LN and pre-LN
        "959cd2a7": 2 * cfg["stack_steps"],
        # train_translation of the date model: dates_epochs x make_batches(…, 64)
        "c2bddc68": cfg["dates_epochs"] * date_batches,
        # train_translation of the Transformer: epochs x make_batches(…, batch)
        "24264526": cfg["epochs"] * train_batches,
        # train_seq2seq of Chapter 7's RNN + attention on the same batches
        "405f7472": cfg["rnn"]["epochs"] * train_batches,
    }


def work(cfg: dict) -> dict[str, float]:
    splits = _translation(cfg)
    train_src, train_tgt = ([p[k] for p in splits.train] for k in (0, 1))
    test_src = [s for s, _ in splits.test]
    max_len = 2 + max(len(s) for s in train_src + train_tgt + test_src)
    n_beam = cfg["n_beam"] or len(test_src)
    # 2a8d098c: translate, greedy over the test set and beam over n_beam sentences,
    # for both models; batches of sentences decoded step by step, at most max_len
    # steps each (on a T4 a decoding step's time is its operators', whatever B·K)
    decode = 2 * (_translate_batches(len(test_src)) + _translate_batches(n_beam))
    # 5ede676b: head_ablation, one dev loss with every head and one without each head
    # (L encoder self-attentions, L decoder self- and L cross-attentions), each loss a
    # single batch of every dev pair padded to the longest source and target
    dev = [(s, r) for s, refs in splits.dev for r in refs]
    padded = max(len(s) for s, _ in dev) + 2 + max(len(r) for _, r in dev)
    losses = 1 + 3 * cfg["layers"] * cfg["n_heads"]
    return {
        "2a8d098c": decode * max_len,
        "5ede676b": losses * len(dev) * padded,
        # c8-cx-time: seconds_per_forward at each length; the recurrent layer's T
        # sequential steps (its operators) take most of the time
        "c8-cx-time": sum(cfg["cx_lengths"]),
        # c2bddc68 after training: translate the test dates, greedy, max_len=12
        "c2bddc68": _translate_batches(cfg["dates_test"]),
    }

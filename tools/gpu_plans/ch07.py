"""Chapter 7's gpu profile: IBM Model 1 and the noisy channel, RNN seq2seq with and
without attention on Tatoeba, dates, the four scores, beam search, Multi30k."""

from __future__ import annotations

from functools import cache

from course_lib.data.batching import length_groups
from course_lib.data.synthetic import date_splits
from course_lib.seq2seq import reverse_references, tatoeba_splits
from gpu_plans.sizes import multi30k_source_lengths

MAX_LEN = 10  # the notebook's MAX_LEN: Tatoeba pairs of at most 10 tokens a side
BATCH = 64  # make_batches(…, 64) of the Tatoeba and date training sets
KERNEL_EPOCHS = 30  # train_kernel_width(…, epochs=30): one full batch an epoch
BEAM_WIDTHS = (1, 2, 3, 5, 10, 20, 50)  # the notebook's BEAM_WIDTHS, swept


@cache
def _tatoeba(n_train: int, n_dev: int, n_test: int):
    """The notebook's ``splits``: ``tatoeba_splits`` at the profile's sizes."""
    return tatoeba_splits(max_len=MAX_LEN, n_train=n_train, n_dev=n_dev, n_test=n_test)


def _splits(cfg: dict):
    return _tatoeba(cfg["tat_train"], cfg["tat_dev"], cfg["tat_test"])


def _batches(lengths: list[int], batch: int) -> int:
    """Batches of one epoch of ``make_batches``: ``length_groups`` of the source lengths."""
    return len(length_groups(lengths, batch))


@cache
def _date_batches(n_train: int, n_test: int) -> int:
    """Batches of 64 training dates (their characters), as cell b60a5872 makes them."""
    return _batches([len(h) for h, _ in date_splits(n_train, n_test)[0]], BATCH)


def steps(cfg: dict) -> dict[str, int]:
    tat = _batches([len(s) for s, _ in _splits(cfg).train], BATCH)
    plan = {
        # train_seq2seq (Adam through fit): tat_epochs x make_batches(…, 64), a model
        # without attention (9e887afd), with additive attention (71a2eb9f), and the
        # dot, multiplicative and low-rank scores (8e9416e4, three models)
        "9e887afd": cfg["tat_epochs"] * tat,
        "71a2eb9f": cfg["tat_epochs"] * tat,
        "8e9416e4": 3 * cfg["tat_epochs"] * tat,
        # train_kernel_width: SGD on the leave-one-out loss, one step an epoch
        "63d42c31": KERNEL_EPOCHS,
        # train_seq2seq of the date model: dates_epochs x make_batches(…, 64)
        "b60a5872": cfg["dates_epochs"]
        * _date_batches(cfg["dates_train"], cfg["dates_test"]),
    }
    m30 = cfg["multi30k"]
    if m30 is not None:  # train_seq2seq on Multi30k: epochs x make_batches(…, batch)
        train = list(multi30k_source_lengths("train"))[: m30["pairs"]]
        plan["1fc6eec7"] = m30["epochs"] * _batches(train, m30["batch"])
    return plan


def work(cfg: dict) -> dict[str, float]:
    """Decoding cells: sentences x beam width (the check's time there grows with the
    hypotheses, B·K rows a step, on the CPU); the noisy channel: foreign tokens decoded.

    912fc301 (EM of Model 1) has no entry: its time in the check is the first torch
    operator under the counter (about a second, once), not the EM; dacdd4a9 and
    dac452ee also train Model 1 and the bigram LM, small beside their decoding."""
    splits = _splits(cfg)
    beam = cfg["beam"]
    n_test, n_dev = len(splits.test), len(splits.dev)
    dev_fr = reverse_references(splits.dev)[: cfg["smt_sentences"]]
    smt_src = [e for e, _ in splits.test[: cfg["smt_sentences"]]]
    units = {
        # NoisyChannel.decode (k=4, beam=8) and gloss of each French dev sentence
        "dacdd4a9": sum(len(f) for f, _ in dev_fr),
        # NoisyChannel.decode of the first smt_sentences English test sentences
        "dac452ee": sum(len(e) for e in smt_src),
        # build_vocab and make_batches: every training pair encoded
        "05f1a4e1": len(splits.train),
        # translate of the test dates, greedy
        "b9a3d299": cfg["dates_test"],
        # bleu_of: plain and attention with beam, attention greedy, over the test set
        "8e041690": n_test * (2 * beam + 1),
        # bleu_of each of the four scores' models with beam over the test set
        "bf85c157": 4 * n_test * beam,
        # translate the first beam_sentences test sentences at each beam width
        "c7-beam-width": min(cfg["beam_sentences"], n_test) * sum(BEAM_WIDTHS),
        # beam_error_analysis over the dev set (beam search, references scored)
        "6aa9292f": n_dev * beam,
        # translate_ids of the first beam_sentences dev sentences, K = 1 and K = beam
        "acae54e37e7d407bbb7b55eff062a284": min(cfg["beam_sentences"], n_dev)
        * (1 + beam),
        # translate of speed_sentences dev sentences, batched and one at a time
        "e7c8cd41": 2 * min(cfg["speed_sentences"], n_dev) * beam,
    }
    m30 = cfg["multi30k"]
    if m30 is not None:  # translate of the Multi30k test sentences with m30's beam
        n = len(list(multi30k_source_lengths("test"))[: m30["test"]])
        units["77b42c3f"] = n * m30["beam"]
    return units

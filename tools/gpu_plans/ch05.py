"""Chapter 5's gpu profile: n-gram LMs, the fixed-window LM, the word RNN and LSTM LMs and
the character RNN on WikiText-2."""

from __future__ import annotations

import math

import torch

from course_lib.lm.rnn_lm import batchify, tbptt_batches
from gpu_plans.sizes import wikitext_chars, wikitext_token_count

BPTT = 35  # the notebook's window for the word-level RNN and LSTM
# the notebook's race of nn.RNN against the from-scratch RNN: the first 20,000 training
# ids in 8 streams, 8 SGD steps each, for both models
RACE_IDS, RACE_STREAMS, RACE_STEPS = 20_000, 8, 8


def _train(cfg: dict) -> int:
    """Training ids: the first ``train_tokens`` (None: all) of WikiText-2 train."""
    n = wikitext_token_count("train")
    return min(n, cfg["train_tokens"] or n)


def _eval(cfg: dict, split: str) -> int:
    """Scored ids of a split: its first ``eval_tokens`` (None: all)."""
    n = wikitext_token_count(split)
    return min(n, cfg["eval_tokens"] or n)


def _windows(n: int, streams: int, bptt: int) -> int:
    """Windows of one epoch of train_tbptt: ``tbptt_batches`` over ``batchify`` of n ids."""
    data = batchify(torch.zeros(n, dtype=torch.long), streams)  # (B, n // B)
    return sum(1 for _ in tbptt_batches(data, bptt))


def _tbptt(windows: int, epochs: int, max_steps: int | None) -> int:
    """train_tbptt's steps: a step a window, ``epochs`` passes, stopped at ``max_steps``."""
    return min(epochs * windows, max_steps or math.inf)


def steps(cfg: dict) -> dict[str, int]:
    n = _train(cfg)
    fw, rnn, tr, lstm, char = (
        cfg[k] for k in ("fw", "rnn", "rnn_train", "lstm", "char")
    )
    lstm_windows = _windows(n, lstm["batch"], BPTT)
    chars = min(wikitext_chars("train"), char["chars"] or math.inf)
    race = _windows(min(n, RACE_IDS), RACE_STREAMS, BPTT)
    return {
        # fit over the first fw.steps shuffled batches of fw.batch windows (one a token)
        "f9da4c10": min(fw["steps"], math.ceil(n / fw["batch"])),
        # train_tbptt, max_steps 8, once for nn.RNN and once for the from-scratch twin
        "a9973f82": [_tbptt(race, 1, RACE_STEPS)] * 2,  # a loop each: fused, scratch
        # train_tbptt of the word RNN: rnn_train.epochs, stopped at rnn_train.steps
        "daf86135": _tbptt(_windows(n, rnn["batch"], BPTT), tr["epochs"], tr["steps"]),
        # train_tbptt of the LSTM: lstm.steps, or lstm.epochs of windows (the schedule)
        "e96c8124": _tbptt(
            lstm_windows, lstm["epochs"], lstm["steps"] or lstm["epochs"] * lstm_windows
        ),
        # train_tbptt of the character RNN: 100 epochs, stopped at char.steps
        "02d6d6f9": _tbptt(
            _windows(chars, char["batch"], char["bptt"]), 100, char["steps"]
        ),
    }


def work(cfg: dict) -> dict[str, float]:
    n, order = _train(cfg), cfg["max_order"]
    valid, test = _eval(cfg, "valid"), _eval(cfg, "test")
    scored = valid + test  # each split is scored once by each model
    epochs = cfg["rnn_train"]["epochs"]
    return {
        # NGramCounts: an np.unique (a sort) of the n training ids for every order
        "b2f7a333": order * n * math.log2(n),
        # MLE of each order scoring valid and test (np.searchsorted a token and order)
        "5e118393": order * scored,
        # add-k 2- and 3-grams: the grid of k scored on valid, the best on test
        "db4ef6a8": scored,
        # backoff and Kneser-Ney of orders 2..max_order, fitted, then scoring both splits
        "f27a408d": order * scored,
        # make_windows of the training, valid and test ids
        "b935f9a9": n + scored,
        # evaluate_windows of the fixed-window LM on valid and test
        "f9da4c10": scored,
        # evaluate_lm of the word RNN on valid and test, and on valid after every epoch
        # when there are several (train_tbptt's valid)
        "daf86135": scored + (epochs * valid if epochs > 1 else 0),
        # target_log_probs of the LSTM on valid and test
        "c9b140b2": scored,
    }

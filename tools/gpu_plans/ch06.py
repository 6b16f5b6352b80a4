"""Chapter 6's gpu profile: LSTMs and GRUs on the long-range task, EWT tagging and SST-2."""

from __future__ import annotations

from course_lib.data.batching import length_groups
from gpu_plans.sizes import (
    ewt_sentences,
    ewt_words,
    kept,
    labelled_batch_count,
    sst2_items,
)


def _slice(cfg: dict, key: str) -> tuple[str, int, int]:
    """A tagging split ``(split, first, last)``, clamped as the notebook's slice is."""
    split, first, last = cfg[key]
    kept = range(ewt_sentences(split))[first:last]
    return split, kept.start, kept.stop


def _tag_batches(cfg: dict) -> int:
    """Batches of one tagger epoch: ``tagging_batches(train, vocabs, 32)``'s length groups."""
    _, first, last = _slice(cfg, "tag_train")
    return len(length_groups([1] * (last - first), 32))


def _tag_words(cfg: dict) -> int:
    """Words of the tagger's training and dev slices (encoding, baseline, prediction)."""
    total = 0
    for key in ("tag_train", "tag_dev"):
        split, first, last = _slice(cfg, key)
        total += ewt_words(split, last) - ewt_words(split, first)
    return total


def _sst_batches(cfg: dict) -> int:
    """Batches of one SST-2 epoch: ``sentiment.labelled_batches``, 64 a batch."""
    return labelled_batch_count(_sst_train(cfg), 64)


def _sst_train(cfg: dict) -> int:
    """The SST-2 training slice: ``sst2("train")[: sst_train]``."""
    return kept(sst2_items("train"), cfg["sst_train"])


def _sst_items(cfg: dict) -> int:
    """SST-2 pairs the vocabulary and batches are built from (training slice, dev)."""
    return _sst_train(cfg) + sst2_items("dev")


def steps(cfg: dict) -> dict[str, int]:
    task = cfg["task_steps"]
    # one tagger: fit over tagging_batches for tag_epochs epochs
    tagger = cfg["tag_epochs"] * _tag_batches(cfg)
    sst_lstm = cfg["sst_lstm"]["epochs"] * _sst_batches(cfg)
    if cfg["sst_lstm"]["steps"] is not None:  # train_classifier's max_steps
        sst_lstm = min(sst_lstm, cfg["sst_lstm"]["steps"])
    return {
        # train_long_range: the vanilla RNN, task_steps Adam steps
        "dfa710f0": task,
        # train_long_range with SGD, unclipped then clipped, clip_steps each (an upper
        # bound: the loop stops early at a non-finite loss, should the unclipped run
        # diverge)
        "3ac012cb": 2 * cfg["clip_steps"],
        # train_long_range: the LSTM and the GRU, task_steps each
        "a9ef7538": 2 * task,
        # compare_windows: train_on_task (fit) for each window MLP, task_steps each; the
        # LSTM is the one trained above, only evaluated
        "e4eaad28": len(cfg["task_windows"]) * task,
        # train_tagger twice: the BiLSTM and the one-directional LSTM
        "9924a6dc": 2 * tagger,
        # train_tagger once more, the GRU
        "c6a1d022": tagger,
        # train_classifier: averaged vectors for its epochs, then the BiLSTM (a loop each)
        "c6a1d034": [cfg["sst_avg"]["epochs"] * _sst_batches(cfg), sst_lstm],
    }


def work(cfg: dict) -> dict[str, float]:
    words = _tag_words(cfg)
    return {
        # EWT slices: TaggerVocabs.build and MostFrequentTag over train, baseline on dev
        "15ef90f7": words,
        # besides the steps: tagging_batches encodes train, predict tags the dev slice
        "9924a6dc": words,
        # the seen-word set over train, accuracies over the dev words in Python
        "c9b7af68": words,
        # SST-2: the vocabulary over the training slice, dev's batches
        "fa9c54fa": _sst_items(cfg),
    }

"""Chapter 10's gpu profile: digit classifiers, CTC and attention recognisers, a trigger
detector, each trained by ``course_lib.speech.train``'s one-cycle ``fit`` (one step a
length-grouped batch, every epoch)."""

from __future__ import annotations

from course_lib.speech import train
from course_lib.speech.train import length_batches
from gpu_plans.sizes import default_batch_size, fsdd_recordings, kept

HELD_OUT = "theo"  # the notebook's held-out speaker


def _batches(n: int, batch_size: int) -> int:
    """Batches an epoch of ``n`` utterances makes (``length_batches``, as ``_epochs``)."""
    return len(length_batches([0] * n, batch_size))


def _digits(cfg: dict) -> dict[str, tuple[int, int]]:
    """(train, test) recordings each digit cell featurizes: the official split, and the
    other speakers against the held-out one, each cut to ``digit_subset``."""
    lim_train, lim_test = cfg["digit_subset"] or (None, None)
    held = fsdd_recordings("all", HELD_OUT)
    return {
        cell: (kept(n_train, lim_train), kept(n_test, lim_test))
        for cell, (n_train, n_test) in {
            "2e9786d6": (fsdd_recordings("train"), fsdd_recordings("test")),
            "db20dd7f": (fsdd_recordings("all") - held, held),
        }.items()
    }


def steps(cfg: dict) -> dict[str, int]:
    digit = default_batch_size(train.train_digit_classifier)
    out = {  # train_digits: train_digit_classifier, digit_epochs over the kept recordings
        cell: cfg["digit_epochs"] * _batches(n_train, digit)
        for cell, (n_train, _) in _digits(cfg).items()
    }
    # train_ctc on the ctc_train digit strings, ctc_epochs
    out["a1725330"] = cfg["ctc_epochs"] * _batches(
        cfg["ctc_train"], default_batch_size(train.train_ctc)
    )
    # train_attention_recognizer on the same strings, las_epochs (_fit_one_cycle's batch)
    out["ch10-las-train"] = cfg["las_epochs"] * _batches(
        cfg["ctc_train"], default_batch_size(train._fit_one_cycle)
    )
    # train_trigger on the trig_train clips, trig_epochs
    out["870367c2"] = cfg["trig_epochs"] * _batches(
        cfg["trig_train"], default_batch_size(train.train_trigger)
    )
    return out


def work(cfg: dict) -> dict[str, float]:
    trig_clips = cfg["trig_train"] + cfg["trig_val"] + cfg["trig_test"]
    out = {  # digit_data: featurize the train and test recordings; classify the test ones
        cell: n_train + n_test for cell, (n_train, n_test) in _digits(cfg).items()
    }
    out |= {
        # digit_strings and featurize: the train, test and held-out speaker's strings
        "edceb558": cfg["ctc_train"] + 2 * cfg["ctc_test"],
        # evaluate_strings on the test and held strings: greedy and prefix beam search
        "c8474d35": 2 * cfg["ctc_test"] * cfg["beam"],
        # recognise_characters: greedy attention decoding of the test strings
        "ch10-las-train": cfg["ctc_test"],
        # trigger_clips and featurize: the train, val and test clips (10 s each)
        "e2a5e59a": trig_clips,
        # trigger_probabilities: every clip through the detector, one at a time
        "870367c2": trig_clips,
        # the stream of stream_clips clips: featurize, one pass and sliding windows
        "2e9a6fe2": cfg["stream_clips"],
    }
    return out

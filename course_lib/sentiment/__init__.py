r"""Sentence classification baselines for SST-2 sentiment. Chapters 2, 6 and 9.

*Sequence Models* week 2 (the sentiment classifier) and CS224N lectures 6 and 9.

Averaged word vectors (Chapter 2) and a many-to-one BiLSTM (Chapter 6), both trained
like Chapter 9's fine-tuned encoder.

Any model with ``forward(tokens, lengths) -> logits (B, C)`` trains with :func:`train_classifier`
(including :class:`~course_lib.pretraining.SequenceClassifier`).

Modules: :mod:`~course_lib.sentiment.batches` (SST-2's length-bucketed batches),
:mod:`~course_lib.sentiment.models` (the two classifiers), :mod:`~course_lib.sentiment.train`
(training, predictions, accuracy, negations).

Shape legend: B batch, T length, D embedding width, H hidden width, C classes.
"""

from course_lib.sentiment.batches import Encode, LabelledBatch, labelled_batches
from course_lib.sentiment.models import AveragedVectors, BiLSTMClassifier
from course_lib.sentiment.train import (
    NEGATIONS,
    accuracy,
    has_negation,
    predict,
    train_classifier,
)

__all__ = [
    "NEGATIONS",
    "AveragedVectors",
    "BiLSTMClassifier",
    "Encode",
    "LabelledBatch",
    "accuracy",
    "has_negation",
    "labelled_batches",
    "predict",
    "train_classifier",
]

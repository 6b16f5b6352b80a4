"""A label written as text: scores are the decoding protocol's log-probabilities."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from course_lib.pretraining import LabelWords
from course_lib.sentiment import accuracy, labelled_batches, train_classifier
from course_lib.transformer import Transformer, TransformerConfig

PAD, EOS, BOS = 0, 1, 2
V = 30
LABELS = [[5, 6], [7]]  # "negative" in two pieces, "positive" in one


def _model(seed=0):
    torch.manual_seed(seed)
    cfg = TransformerConfig(
        V,
        V,
        d_model=16,
        n_heads=2,
        d_ff=32,
        n_encoder_layers=1,
        n_decoder_layers=1,
        dropout=0.0,
        label_smoothing=0.0,
        pad_id=PAD,
        bos_id=BOS,
        eos_id=EOS,
    )
    return Transformer(cfg)


@torch.no_grad()
def _protocol_score(model, src, text):
    """-Σ log P by the decoder's step, one token at a time, from <bos>."""
    state = model.start(src[None])
    token, total = torch.tensor([BOS]), 0.0
    for nxt in [*text, EOS]:
        logp, state = model.step(token, state)
        total += float(logp[0, nxt])
        token = torch.tensor([nxt])
    return total


def test_scores_are_the_protocols_log_probabilities():
    model = _model()
    clf = LabelWords(model, LABELS)
    src = torch.tensor([[8, 9, 10, 11, EOS], [12, 13, EOS, PAD, PAD]])
    with torch.no_grad():
        scores = clf(src)  # (2, 2)
    for b, row in enumerate(src):
        real = row[row != PAD]
        for c, text in enumerate(LABELS):
            assert scores[b, c].item() == pytest.approx(
                _protocol_score(model, real, text), abs=1e-5
            )


def test_loss_is_the_models_loss_on_the_gold_text():
    model = _model()
    clf = LabelWords(model, LABELS)
    src = torch.tensor([[8, 9, EOS], [10, 11, EOS]])
    labels = torch.tensor([0, 1])
    tgt = torch.tensor([[BOS, 5, 6, EOS], [BOS, 7, EOS, PAD]])
    assert torch.equal(clf.targets(labels), tgt)
    logits = model(src, tgt[:, :-1])
    expected = F.cross_entropy(logits.transpose(1, 2), tgt[:, 1:], ignore_index=PAD)
    torch.testing.assert_close(clf.loss(src, None, labels), expected)


def test_fine_tuning_learns_a_rule():
    # label 1 when token 9 is in the sentence: learnt through the label's text
    g = torch.Generator().manual_seed(0)
    pairs = []
    for _ in range(128):
        words = torch.randint(10, V, (6,), generator=g).tolist()
        label = int(torch.rand((), generator=g) < 0.5)
        if label:
            words[int(torch.randint(0, 6, (), generator=g))] = 9
        pairs.append((label, " ".join(map(str, words))))

    def encode(text):
        return [int(w) for w in text.split()] + [EOS]

    clf = LabelWords(_model(), LABELS)
    torch.manual_seed(0)
    train_classifier(
        clf,
        lambda epoch: labelled_batches(
            pairs, encode, batch_size=16, pad_id=PAD, shuffle=True, seed=epoch
        ),
        epochs=20,
        lr=3e-3,
        loss_fn=LabelWords.loss,
    )
    assert (
        accuracy(clf, labelled_batches(pairs, encode, batch_size=64, pad_id=PAD)) > 0.95
    )


def test_train_classifier_default_loss_is_cross_entropy():
    pairs = [(i % 2, f"{10 + i % 7} {11 + i % 5}") for i in range(40)]

    def encode(text):
        return [int(w) for w in text.split()] + [EOS]

    def batches(epoch):
        return labelled_batches(pairs, encode, batch_size=8, pad_id=PAD, seed=epoch)

    runs = []
    for loss_fn in (None, lambda m, t, n, y: F.cross_entropy(m(t, n), y)):
        clf = LabelWords(_model(), LABELS)
        runs.append(train_classifier(clf, batches, epochs=1, lr=1e-3, loss_fn=loss_fn))
    assert runs[0] == runs[1]


@pytest.mark.parametrize(
    "labels, match",
    [
        ([[5]], "at least two"),
        ([[5], []], "at least two"),
        ([[5], [5]], "same ids"),
        ([[5], [BOS]], "other than"),
        ([[5], [V]], "target ids"),
    ],
)
def test_bad_labels(labels, match):
    with pytest.raises(ValueError, match=match):
        LabelWords(_model(), labels)

"""The BiLSTM tagger (course_lib.rnn.tagger): features, batches and padding, the packed BiLSTM
(padded and unpadded batches agree), a tiny training run, the baseline and the metrics."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from course_lib.data.treebank import Sentence
from course_lib.rnn.tagger import (
    IGNORE,
    BiLSTMTagger,
    MostFrequentTag,
    TaggerConfig,
    TaggerVocabs,
    confusions,
    per_tag_accuracy,
    predict,
    tagging_batches,
    word_shape,
)
from course_lib.training import fit


def _sent(pairs):
    words, tags = zip(*(p.split("/") for p in pairs.split()))
    n = len(words)
    return Sentence(words, words, tags, tags, tuple(range(n)), ("dep",) * n)


TRAIN = [
    _sent("The/DET dog/NOUN runs/VERB ./PUNCT"),
    _sent("A/DET cat/NOUN sleeps/VERB"),
    _sent("Dogs/NOUN run/VERB fast/ADV ./PUNCT"),
    _sent("the/DET run/NOUN ended/VERB"),
    _sent("Cats/NOUN run/VERB"),
]


@pytest.mark.parametrize(
    ("word", "shape"),
    [
        ("dog", "x"),
        ("Dog", "Xx"),
        ("USA", "X"),
        ("1,000", "d"),
        ("...", "p"),
        ("e-mail", "m"),
        ("iPhone", "m"),
    ],
)
def test_word_shape(word, shape):
    assert word_shape(word) == shape


def test_batches_pad_and_mark_padding():
    v = TaggerVocabs.build(TRAIN)
    batches = list(tagging_batches(TRAIN, v, batch_size=2)())
    assert len(batches) == 3
    words, suffixes, shapes, lengths, tags = batches[-1]
    assert words.shape == suffixes.shape == shapes.shape == tags.shape
    for b, n in enumerate(lengths.tolist()):
        assert (tags[b, n:] == IGNORE).all() and (tags[b, :n] >= 0).all()
        assert (words[b, n:] == v.words.index("<pad>")).all()
    assert v.words.index("dogs") != v.words.unk_index  # lower-cased words
    with pytest.raises(ValueError, match="empty sentence"):
        tagging_batches([_sent("a/DET"), Sentence((), (), (), (), (), ())], v)


def test_word_dropout_replaces_only_rare_words_and_is_seeded():
    v = TaggerVocabs.build(TRAIN)
    make = tagging_batches(TRAIN, v, 5, shuffle=True, word_dropout=1.0, seed=3)
    words = next(make())[0]
    rare = {v.words.index(w) for w, c in v.words.counts.items() if c == 1}
    unk = v.words.unk_index
    assert (words == unk).any()
    assert not any(w in rare for w in words.flatten().tolist())
    again = next(tagging_batches(TRAIN, v, 5, shuffle=True, word_dropout=1.0, seed=3)())
    assert torch.equal(again[0], words)


def test_padded_and_unpadded_batches_give_the_same_logits():
    torch.manual_seed(0)
    v = TaggerVocabs.build(TRAIN)
    model = BiLSTMTagger(TaggerConfig.from_vocabs(v, hidden=8, num_layers=2)).eval()
    words, suffixes, shapes, lengths, _ = next(tagging_batches(TRAIN, v, 5)())
    logits = model(words, suffixes, shapes, lengths)
    assert logits.shape == (*words.shape, len(v.tags))
    for b, n in enumerate(lengths.tolist()):
        alone = model(
            words[b : b + 1, :n],
            suffixes[b : b + 1, :n],
            shapes[b : b + 1, :n],
            lengths[b : b + 1],
        )
        torch.testing.assert_close(logits[b, :n], alone[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_tagger_learns_the_training_sentences(cell):
    torch.manual_seed(0)
    v = TaggerVocabs.build(TRAIN)
    model = BiLSTMTagger(TaggerConfig.from_vocabs(v, hidden=16, dropout=0.0, cell=cell))
    assert isinstance(model.rnn, {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU}[cell])
    batches = tagging_batches(TRAIN, v, 2, shuffle=True)
    opt = torch.optim.Adam(model.parameters(), lr=2e-2)
    fit(
        model,
        batches,
        optimizer=opt,
        epochs=40,
        loss_fn=lambda m, b: m.loss(b),
        progress=False,
    )
    gold, pred = predict(model, tagging_batches(TRAIN, v, 5))
    assert len(gold) == sum(len(s) for s in TRAIN) and gold == pred


def test_tagger_bad_input():
    v = TaggerVocabs.build(TRAIN)
    model = BiLSTMTagger(TaggerConfig.from_vocabs(v))
    ids = torch.zeros(2, 3, dtype=torch.long)
    with pytest.raises(ValueError, match="one shape"):
        model(ids, ids[:, :2], ids, torch.tensor([3, 3]))
    with pytest.raises(ValueError, match="entries >= 1"):
        model(ids, ids, ids, torch.tensor([3, 0]))
    with pytest.raises(ValueError, match="at least one training sentence"):
        TaggerVocabs.build([])
    with pytest.raises(ValueError, match="cell must be one of"):
        TaggerConfig.from_vocabs(v, cell="rnn")


def test_baseline_and_metrics():
    base = MostFrequentTag(TRAIN)
    assert base(["run", "The", "zebra"]) == [
        "VERB",
        "DET",
        "NOUN",
    ]  # run: VERB 2, NOUN 1
    dev = [SimpleNamespace(words=["run", "zebra"], upos=["VERB", "ADJ"])]
    assert base.right(dev) == [True, False]  # zebra: unseen, NOUN
    gold = ["NOUN", "NOUN", "VERB", "DET", "NOUN"]
    pred = ["NOUN", "VERB", "VERB", "DET", "VERB"]
    acc = per_tag_accuracy(gold, pred)
    assert list(acc) == ["NOUN", "VERB", "DET"]
    assert acc["NOUN"] == (pytest.approx(1 / 3), 3) and acc["VERB"] == (1.0, 1)
    assert confusions(gold, pred) == [("NOUN", "VERB", 2)]
    with pytest.raises(ValueError, match="differ in length"):
        per_tag_accuracy(gold, pred[:2])


@pytest.mark.parametrize("training", [True, False])
def test_predict_restores_the_mode(training):
    v = TaggerVocabs.build(TRAIN)
    model = BiLSTMTagger(TaggerConfig.from_vocabs(v, hidden=4)).train(training)
    predict(model, tagging_batches(TRAIN, v, 5))
    assert all(m.training == training for m in model.modules())

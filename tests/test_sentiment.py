"""Sentence classifiers: batching, averaged vectors, many-to-one BiLSTM (Chapters 2, 6, 9)."""

from __future__ import annotations

import pytest
import torch

from course_lib.sentiment import (
    AveragedVectors,
    BiLSTMClassifier,
    accuracy,
    has_negation,
    labelled_batches,
    predict,
    train_classifier,
)

WORDS = ["<pad>", "good", "bad", "film", "not", "very", "a"]
PAIRS = [
    (1, "a good film"),
    (0, "a bad film"),
    (1, "very good"),
    (0, "very bad"),
    (1, "good"),
    (0, "bad film"),
    (1, "a very good film"),
    (0, "bad"),
]


def encode(s):
    return [WORDS.index(w) for w in s.split()]


def test_batches_pad_and_keep_every_pair():
    batches = labelled_batches(PAIRS, encode, batch_size=3, pad_id=0, shuffle=True)
    assert sum(len(b.labels) for b in batches) == len(PAIRS)
    for b in batches:
        assert b.tokens.shape == (len(b.labels), int(b.lengths.max()))
        for row, n in zip(b.tokens, b.lengths):
            assert (row[n:] == 0).all() and (row[:n] != 0).all()
    with pytest.raises(ValueError, match="empty"):
        labelled_batches([], encode, batch_size=3, pad_id=0)


def test_averaged_vectors_is_the_mean_of_real_tokens():
    torch.manual_seed(0)
    m = AveragedVectors(len(WORDS), 4).double()
    tokens = torch.tensor([[1, 3, 0, 0], [1, 3, 2, 5]])
    lengths = torch.tensor([2, 4])
    h = m.embed(tokens[0, :2]).mean(0)
    torch.testing.assert_close(m(tokens, lengths)[0], m.out(h))


def test_bilstm_uses_both_directions_and_ignores_padding():
    torch.manual_seed(0)
    m = BiLSTMClassifier(len(WORDS), 4, 5).double().eval()
    a = m(torch.tensor([[1, 3]]), torch.tensor([2]))
    b = m(torch.tensor([[1, 3, 0, 0]]), torch.tensor([2]))
    torch.testing.assert_close(a, b)
    assert a.shape == (1, 2)


@pytest.mark.parametrize("cls", [AveragedVectors, BiLSTMClassifier])
def test_both_learn_a_toy_task(cls):
    torch.manual_seed(0)
    m = cls(len(WORDS), 8, 8) if cls is BiLSTMClassifier else cls(len(WORDS), 8)

    def data(epoch):
        return labelled_batches(
            PAIRS, encode, batch_size=4, pad_id=0, shuffle=True, seed=epoch
        )

    losses = train_classifier(m, data, epochs=40, lr=3e-2)
    assert losses[-1] < losses[0]
    assert accuracy(m, data(0)) == 1.0
    with pytest.raises(ValueError, match="epochs"):
        train_classifier(m, data, epochs=0, lr=1e-3)


def test_index_and_input_order_undo_the_length_sort():
    batches = labelled_batches(PAIRS, encode, batch_size=3, pad_id=0, shuffle=True)
    index = torch.cat([b.index for b in batches])
    assert sorted(index.tolist()) == list(range(len(PAIRS)))
    for b in batches:
        for row, i in zip(b.tokens, b.index.tolist()):
            assert row[: len(encode(PAIRS[i][1]))].tolist() == encode(PAIRS[i][1])
    torch.manual_seed(0)
    m = AveragedVectors(len(WORDS), 4)
    pred, gold = predict(m, batches, input_order=True)
    assert gold.tolist() == [y for y, _ in PAIRS]
    by_batch, _ = predict(m, batches)
    assert pred[index].tolist() == by_batch.tolist()
    with pytest.raises(ValueError, match="exactly once"):
        predict(m, batches[:1], input_order=True)


def test_has_negation_reads_ptb_tokens():
    assert has_negation("it does n't work") and has_negation("not good")
    assert has_negation("never again") and has_negation("no fun")
    assert not has_negation("nothing is notable here")
    assert not has_negation("a good film")


def test_averaged_vectors_start_from_pretrained_rows_and_freeze():
    torch.manual_seed(0)
    table = torch.randn(len(WORDS), 4)
    frozen = AveragedVectors(len(WORDS), 4, vectors=table, freeze=True)
    tuned = AveragedVectors(len(WORDS), 4, vectors=table)
    assert torch.equal(frozen.embed.weight, table)
    assert not frozen.embed.weight.requires_grad and tuned.embed.weight.requires_grad

    def data(epoch):
        return labelled_batches(PAIRS, encode, batch_size=4, pad_id=0, seed=epoch)

    for m in (frozen, tuned):
        train_classifier(m, data, epochs=3, lr=1e-2)
    assert torch.equal(frozen.embed.weight, table)  # only W and b learnt
    assert not torch.equal(tuned.embed.weight, table)
    with pytest.raises(ValueError, match="vocab_size, d_embed"):
        AveragedVectors(len(WORDS), 5, vectors=table)
    with pytest.raises(ValueError, match="freeze"):
        AveragedVectors(len(WORDS), 4, freeze=True)

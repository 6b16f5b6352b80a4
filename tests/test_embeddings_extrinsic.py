"""Frozen word vectors as inputs to lecture 3's window tagger (course_lib.embeddings.extrinsic)."""

import pytest
import torch

from course_lib.embeddings.extrinsic import embedding_table, vector_tagger

# A toy tagging task: the tag is a function of the word, so informative vectors solve it.
WORDS = {
    "the": "DET",
    "a": "DET",
    "cat": "NOUN",
    "dog": "NOUN",
    "runs": "VERB",
    "sat": "VERB",
}


def _sentences(n, seed):
    gen = torch.Generator().manual_seed(seed)
    dets, nouns, verbs = ["the", "a"], ["cat", "dog"], ["runs", "sat"]
    out = []
    for _ in range(n):
        i, j, k = torch.randint(0, 2, (3,), generator=gen).tolist()
        words = [dets[i].capitalize(), nouns[j], verbs[k]]
        out.append((words, [WORDS[w.lower()] for w in words]))
    return out


def _one_hot_vectors():
    vocab = {
        w: i for i, w in enumerate(["<unk>", *WORDS])
    }  # a literal <unk> is skipped
    return torch.eye(len(vocab)), vocab


def test_informative_frozen_vectors_tag_perfectly_and_stay_frozen():
    E, vocab = _one_hot_vectors()
    result = vector_tagger(
        E,
        vocab,
        _sentences(200, 0),
        _sentences(50, 1),
        window=1,
        hidden=16,
        epochs=5,
        batch_size=16,
        lr=1e-2,
    )
    assert result.accuracy == 1.0 and result.oov_rate == 0.0
    table = result.model.E
    assert not table.requires_grad
    assert torch.equal(table[2:], E[1:])  # <unk>, <pad>, then the vectors (unchanged)
    assert torch.equal(table[:2], torch.zeros(2, E.size(1)))
    assert result.epoch_loss[-1] < result.epoch_loss[0]


def test_fine_tuned_vectors_learn_with_the_classifier():
    E, vocab = _one_hot_vectors()
    result = vector_tagger(
        E, vocab, _sentences(50, 0), _sentences(10, 1), freeze=False, epochs=2
    )
    assert result.model.E.requires_grad
    assert not torch.equal(result.model.E.detach()[2:], E[1:])


def test_words_without_a_vector_are_counted():
    E, vocab = _one_hot_vectors()
    dev = [(["The", "cow", "sat"], ["DET", "NOUN", "VERB"])]
    result = vector_tagger(E, vocab, _sentences(20, 0), dev, epochs=1)
    assert result.oov_rate == pytest.approx(1 / 3)


def test_bad_input_is_reported():
    E, vocab = _one_hot_vectors()
    with pytest.raises(ValueError, match=r"E must be a \(V, D\) matrix"):
        vector_tagger(E[0], vocab, _sentences(2, 0), _sentences(2, 1))
    with pytest.raises(ValueError, match="train and dev must both contain sentences"):
        vector_tagger(E, vocab, [], _sentences(2, 1))
    with pytest.raises(ValueError, match="hidden must be an int >= 1"):
        vector_tagger(E, vocab, _sentences(2, 0), _sentences(2, 1), hidden=0)
    with pytest.raises(ValueError, match="vocab has rows up to 6 but E has 3"):
        vector_tagger(E[:3], vocab, _sentences(2, 0), _sentences(2, 1))


def test_embedding_table_copies_known_rows_and_zeros_the_rest():
    E = torch.arange(12, dtype=torch.float64).reshape(4, 3)
    vocab = {"the": 0, "cat": 2, "sat": 3}
    table, found = embedding_table(E, vocab, ["<pad>", "sat", "dog", "the"])
    assert found.tolist() == [False, True, False, True]
    assert table.dtype == torch.float32
    assert torch.equal(
        table, torch.tensor([[0, 0, 0], [9, 10, 11], [0, 0, 0], [0, 1, 2.0]])
    )
    with pytest.raises(ValueError, match="rows up to 3"):
        embedding_table(E[:2], vocab, ["sat"])
    with pytest.raises(ValueError, match=r"\(V, D\)"):
        embedding_table(E[0], vocab, ["sat"])

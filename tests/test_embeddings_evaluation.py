import math

import pytest
import scipy.stats
import torch

from course_lib.embeddings import (
    OutOfVocabularyError,
    analogy,
    cosine_similarity_matrix,
    evaluate_analogies,
    evaluate_similarity,
    nearest_neighbours,
)


class TinyVocab:
    """A stand-in for course_lib.data.Vocab: ids in order of the list (most frequent first)."""

    def __init__(self, tokens):
        self.tokens = list(tokens)
        self.ids = {w: i for i, w in enumerate(self.tokens)}

    def __getitem__(self, word):
        return self.ids[word]

    def __contains__(self, word):
        return word in self.ids

    def __len__(self):
        return len(self.tokens)

    def token(self, i):
        return self.tokens[i]


# axes: person, royal, female, fruit
TABLE = {
    "man": [1, 0, 0, 0],
    "woman": [1, 0, 1, 0],
    "king": [1, 1, 0, 0],
    "queen": [1, 1, 1, 0],
    "prince": [1, 0.9, 0.1, 0],
    "apple": [0, 0, 0, 1],
    "pear": [0, 0.1, 0, 1],
}
VOCAB = TinyVocab(TABLE)
E = torch.tensor(list(TABLE.values()), dtype=torch.float64)


def test_cosine_similarity_matrix():
    A, B = (
        torch.randn(5, 3, dtype=torch.float64),
        torch.randn(4, 3, dtype=torch.float64),
    )
    ref = torch.nn.functional.cosine_similarity(A[:, None], B[None], dim=-1)
    torch.testing.assert_close(cosine_similarity_matrix(A, B), ref)
    torch.testing.assert_close(
        cosine_similarity_matrix(A).diagonal(), torch.ones(5).double()
    )
    with pytest.raises(ValueError, match="same width"):
        cosine_similarity_matrix(A, torch.ones(2, 4))


def test_nearest_neighbours():
    got = nearest_neighbours(E, VOCAB, "king", k=2)
    assert [w for w, _ in got] == ["prince", "queen"]
    assert got[0][1] == pytest.approx(float(cosine_similarity_matrix(E[2:3], E[4:5])))
    (word, score), *_ = nearest_neighbours(E, VOCAB, "king", k=1, exclude_self=False)
    assert word == "king" and score == pytest.approx(1.0)
    assert nearest_neighbours(E, VOCAB, E[5], k=1)[0][0] == "apple"
    as_dict = {
        w: i for i, w in enumerate(TABLE)
    }  # a plain dict works as the vocabulary
    assert nearest_neighbours(E, as_dict, "apple", k=1)[0][0] == "pear"
    assert len(nearest_neighbours(E, VOCAB, "man", k=100)) == 6


def test_analogy_man_king_woman_queen():
    (word, score), *_ = analogy(E, VOCAB, "man", "king", "woman")
    assert word == "queen" and 0.9 < score <= 1.0
    top = analogy(E, VOCAB, "apple", "pear", "man", k=3)
    assert len(top) == 3 and [w for w, _ in top] != ["man"]


def test_analogy_excludes_the_query_words():
    # b - a + c = king exactly: without the exclusion "king" would be the answer
    top = analogy(E, VOCAB, "man", "king", "man", k=5)
    assert {w for w, _ in top}.isdisjoint({"man", "king"})
    assert top[0][0] == "prince"
    assert [s for _, s in top] == sorted([s for _, s in top], reverse=True)


def test_out_of_vocabulary_words_are_named():
    with pytest.raises(OutOfVocabularyError, match="'kingdom', 'duke'") as info:
        analogy(E, VOCAB, "man", "kingdom", "duke")
    assert info.value.words == ["kingdom", "duke"]
    assert isinstance(info.value, KeyError) and isinstance(info.value, ValueError)
    with pytest.raises(KeyError, match="'banana'"):
        nearest_neighbours(E, VOCAB, "banana")
    with pytest.raises(ValueError, match="outside the 3 rows"):
        analogy(E[:3], VOCAB, "man", "king", "queen")


QUESTIONS = {
    "royal": [
        ("man", "king", "woman", "queen"),  # right
        ("woman", "queen", "man", "king"),  # right
        ("man", "woman", "king", "queen"),  # right
        ("man", "king", "woman", "duchess"),  # not covered: duchess is unknown
    ],
    "fruit": [
        ("apple", "pear", "king", "queen"),  # wrong: answers prince
        ("pear", "apple", "queen", "king"),  # covered only without restrict_vocab
    ],
}


def test_evaluate_analogies_known_accuracy():
    result = evaluate_analogies(E, VOCAB, QUESTIONS)
    assert (result["correct"], result["covered"], result["total"]) == (3, 5, 6)
    assert result["accuracy"] == pytest.approx(3 / 5)
    assert result["sections"]["royal"] == dict(
        accuracy=1.0, correct=3, covered=3, total=4
    )
    assert result["sections"]["fruit"]["correct"] == 0
    restricted = evaluate_analogies(
        E, VOCAB, QUESTIONS, restrict_vocab=6
    )  # pear (id 6) out
    assert restricted["sections"]["fruit"]["covered"] == 0
    assert math.isnan(restricted["sections"]["fruit"]["accuracy"])
    flat = evaluate_analogies(E, VOCAB, QUESTIONS["royal"])
    assert list(flat["sections"]) == ["all"] and flat["correct"] == 3
    with pytest.raises(ValueError, match="4 words"):
        evaluate_analogies(E, VOCAB, [("man", "king", "woman")])


def test_evaluate_analogies_matches_one_by_one_search():
    g = torch.Generator().manual_seed(0)
    words = [f"w{i}" for i in range(30)]
    vocab = TinyVocab(words)
    emb = torch.randn(30, 5, generator=g, dtype=torch.float64)
    quads = [
        tuple(words[i] for i in torch.randperm(30, generator=g)[:4]) for _ in range(200)
    ]
    expected = sum(analogy(emb, vocab, a, b, c)[0][0] == d for a, b, c, d in quads)
    for chunk_size in (7, 512):
        result = evaluate_analogies(emb, vocab, quads, chunk_size=chunk_size)
        assert result["correct"] == expected and result["covered"] == 200


def test_evaluate_similarity():
    pairs = [
        ("king", "queen", 8.0),
        ("king", "prince", 9.0),
        ("apple", "pear", 9.5),
        ("king", "apple", 1.0),
        ("man", "unicorn", 3.0),
    ]
    result = evaluate_similarity(E, VOCAB, pairs)
    assert (result["covered"], result["total"]) == (4, 5)
    assert result["oov_pairs"] == [("man", "unicorn", 3.0)]
    sims = cosine_similarity_matrix(E)
    cos = [float(sims[VOCAB[a], VOCAB[b]]) for a, b, _ in pairs[:4]]
    human = [r for _, _, r in pairs[:4]]
    assert result["spearman"] == pytest.approx(scipy.stats.spearmanr(human, cos)[0])
    assert result["pearson"] == pytest.approx(scipy.stats.pearsonr(human, cos)[0])
    assert math.isnan(evaluate_similarity(E, VOCAB, pairs[3:])["spearman"])
    with pytest.raises(ValueError, match="empty"):
        evaluate_similarity(E, VOCAB, [])


def test_evaluate_analogies_reads_the_data_layers_tuples():
    emb, vocab = E, VOCAB
    rows = [
        ("family", "Man", "King", "Woman", "Queen"),
        ("family", "man", "king", "woman", "queen"),
    ]
    result = evaluate_analogies(emb, vocab, rows)
    assert set(result["sections"]) == {"family"} and result["covered"] == 2
    assert evaluate_analogies(emb, vocab, rows, lowercase=False)["covered"] == 1

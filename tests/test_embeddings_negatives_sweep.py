"""How many negatives: the trainer's loss with K negatives and ``sweep_negatives`` (Ch. 2)."""

import math

import pytest
import torch

from course_lib.embeddings import (
    NoiseSampler,
    SGNSConfig,
    evaluate_analogies,
    evaluate_similarity,
    keep_probabilities,
    sweep_negatives,
    train_sgns,
)
from course_lib.embeddings.sgns_train import _Epoch, _sg_step


def _corpus(n_sent=60, V=30, seed=0):
    """Two topics: sentences of even ids or of odd ids, 12 words each."""
    g = torch.Generator().manual_seed(seed)
    sents = []
    for _ in range(n_sent):
        parity = int(torch.randint(0, 2, (1,), generator=g))
        ids = torch.randint(0, V // 2, (12,), generator=g) * 2 + parity
        sents.append(ids.tolist())
    counts = torch.bincount(torch.tensor(sents).reshape(-1), minlength=V).double()
    return sents, counts


def _log_sigmoid(x: float) -> float:
    return -math.log1p(math.exp(-x))


def _dot(u: torch.Tensor, v: list[float]) -> float:
    return sum(x * y for x, y in zip(u.tolist(), v, strict=True))


@pytest.mark.parametrize("k", [1, 2, 5, 10, 20])
def test_trainer_loss_with_k_negatives_is_the_hand_formula(k):
    """Mean over the batch's pairs of -log σ(u_o·v_c) - Σ_k log σ(-u_k·v_c), drawn u_k."""
    sents, counts = _corpus()
    cfg = SGNSConfig(window=3, negatives=k, sample=0)
    tokens = torch.tensor([t for s in sents for t in s])
    seg = torch.tensor([i for i, s in enumerate(sents) for _ in s])
    data = _Epoch(tokens, seg, keep_probabilities(counts, 0), cfg, torch.Generator())
    chunk = data.chunk(0, 40, NoiseSampler(counts, seed=k), k)  # negatives drawn here
    ids, valid, outs, out_w = chunk.batch(0, 40)
    assert outs.shape == (40, 1 + k)
    g = torch.Generator().manual_seed(1)
    V = torch.randn(30, 6, generator=g, dtype=torch.float64) / 2
    U = torch.randn(30, 6, generator=g, dtype=torch.float64) / 2
    terms = []
    for b in range(40):  # the window word w is the input, the centre c the output
        c = int(outs[b, 0])
        negs = [int(n) for n in outs[b, 1:] if int(n) != c]  # gensim skips n = c
        for slot in valid[b].nonzero()[:, 0].tolist():
            v = V[int(ids[b + slot])].tolist()
            J = -_log_sigmoid(_dot(U[c], v)) - sum(
                _log_sigmoid(-_dot(U[n], v)) for n in negs
            )
            terms.append(J)
    label = torch.zeros(1, 1, 1 + k, dtype=torch.float64)
    label[..., 0] = 1
    loss = _sg_step(
        V, U, ids, valid.double(), outs, out_w.double(), 0.0, label, 2 * label - 1, True
    )
    assert len(terms) == int(valid.sum()) > 0
    assert loss == pytest.approx(sum(terms) / len(terms), rel=1e-12)


def _sweep_inputs():
    sents, counts = _corpus()
    vocab = {f"w{i}": i for i in range(30)}
    ratings = [  # same topic (parity): similar
        (f"w{a}", f"w{b}", float(a % 2 == b % 2)) for a in range(8) for b in range(a)
    ]
    questions = [("w0", "w2", "w1", "w3"), ("w4", "w6", "w5", "w7")]
    cfg = SGNSConfig(dim=8, window=2, sample=0, epochs=3, batch_size=16, lr=0.1, seed=3)
    return sents, counts, vocab, ratings, questions, cfg


def test_sweep_is_seeded_and_every_k_trains_the_same_pairs():
    sents, counts, vocab, ratings, questions, cfg = _sweep_inputs()
    ks = (1, 3, 8)
    rows = sweep_negatives(sents, counts, vocab, ratings, questions, ks=ks, config=cfg)
    again = sweep_negatives(sents, counts, vocab, ratings, questions, ks=ks, config=cfg)
    assert [r["k"] for r in rows] == list(ks)
    timing = ("seconds", "seconds_per_pair")
    for r, s in zip(rows, again, strict=True):  # one seed: identical but for the clock
        assert {n: v for n, v in r.items() if n not in timing} == {
            n: v for n, v in s.items() if n not in timing
        }
        assert r["seconds"] > 0
        assert r["seconds_per_pair"] == pytest.approx(r["seconds"] / r["pairs"])
    assert len({r["pairs"] for r in rows}) == 1 and rows[0]["pairs"] > 0
    run = train_sgns(
        sents, counts, SGNSConfig(**{**cfg.__dict__, "negatives": 3}), progress=False
    )  # the sweep's K = 3 run is train_sgns with negatives=3
    E = run.model.vectors()
    assert rows[1]["spearman"] == evaluate_similarity(E, vocab, ratings)["spearman"]
    assert rows[1]["analogy"] == evaluate_analogies(E, vocab, questions)["accuracy"]
    assert rows[1]["pairs"] == sum(e["pairs"] for e in run.epochs)
    assert all(r["spearman"] > 0.5 for r in rows)  # the two topics are found
    no_questions = sweep_negatives(sents, counts, vocab, ratings, ks=(2,), config=cfg)
    assert math.isnan(no_questions[0]["analogy"])


@pytest.mark.parametrize(
    "ks, message",
    [
        ((0,), r"int >= 1.*got 0"),
        ((5, -2), r"int >= 1.*got -2"),
        ((2.0,), r"int >= 1.*got 2\.0"),
        ((True,), r"int >= 1.*got True"),
        ((), "ks is empty"),
        ((30,), r"30 words.*30 negatives"),
    ],
)
def test_sweep_rejects_a_bad_number_of_negatives_before_training(ks, message):
    sents, counts, vocab, ratings, _, cfg = _sweep_inputs()
    with pytest.raises(ValueError, match=message):
        sweep_negatives(sents, counts, vocab, ratings, ks=ks, config=cfg)

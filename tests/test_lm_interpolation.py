"""Interpolating a neural LM with Kneser-Ney: normalisation, the endpoints, EM, alignment."""

import itertools

import numpy as np
import pytest
import torch

from course_lib.lm.interpolation import (
    interpolate,
    stream_targets,
    target_log_probs,
    tune_lambda,
)
from course_lib.lm.ngram import KneserNey
from course_lib.lm.rnn_lm import RNNLM, RNNLMConfig, batchify, evaluate_lm

TOY = (
    "the cat sat on the mat <eos> the dog sat on the log <eos> "
    "a cat saw the dog <eos> the cat ate <eos>"
).split()


def _models():
    kn = KneserNey(TOY, 3)
    torch.manual_seed(0)
    neural = RNNLM(
        RNNLMConfig(vocab_size=kn.V, d_embed=6, d_hidden=6, cell="lstm"),
    ).double()
    return kn, neural


def _neural_distribution(model, ids):
    """P_neural(· | ids) over the vocabulary, (V,)."""
    with torch.no_grad():
        hs, _ = model.features(torch.tensor([ids]))  # (1, T, H)
        return model.out.log_prob(hs[:, -1])[0].exp().numpy()  # (V,)


@pytest.mark.parametrize("lam", [0.0, 0.1, 0.5, 0.9, 1.0])
def test_mixture_sums_to_one_for_every_context(lam):
    kn, neural = _models()
    words = kn.vocab.decode(list(range(kn.V)))
    for context in itertools.product(words, repeat=2):  # every trigram context
        p_kn = kn.distribution(list(context))  # (V,)
        p_nn = _neural_distribution(neural, kn.encode(list(context)))  # (V,)
        p = interpolate(p_nn, p_kn, lam)
        assert p.shape == (kn.V,) and (p >= 0).all()
        assert abs(p.sum() - 1) < 1e-12, context


def test_lambda_one_and_zero_give_the_two_models_exactly():
    kn, neural = _models()
    p_kn = kn.distribution(["the", "cat"])
    p_nn = _neural_distribution(neural, kn.encode(["the", "cat"]))
    assert np.array_equal(interpolate(p_nn, p_kn, 1.0), p_nn)
    assert np.array_equal(interpolate(p_nn, p_kn, 0.0), p_kn)
    assert np.array_equal(interpolate(p_nn, p_kn, 1), p_nn)


def test_em_finds_the_best_lambda_on_a_grid():
    rng = np.random.default_rng(0)
    a, b = rng.uniform(0.01, 1, 500), rng.uniform(0.01, 1, 500)
    lam = tune_lambda(a, b)

    def loglik(w):
        return np.log(interpolate(a, b, w)).sum()

    grid = np.linspace(0, 1, 1001)
    assert loglik(lam) >= max(loglik(w) for w in grid) - 1e-6
    # a model that is always better gets all the weight
    assert tune_lambda(np.full(10, 0.5), np.full(10, 0.1), iters=2000) > 0.99


def test_stream_targets_align_with_batchify():
    ids = torch.arange(23)
    data = batchify(ids, 3)  # (3, 7)
    pos = stream_targets(23, 3)
    assert torch.equal(ids[pos], data[:, 1:].reshape(-1))


def test_target_log_probs_give_evaluate_lms_loss():
    kn, neural = _models()
    data = batchify(torch.tensor(kn.encode(TOY * 3)), 2)  # (2, L)
    lp = target_log_probs(neural, data, 5)  # (2, L-1)
    assert lp.shape == (2, data.size(1) - 1) and (lp <= 0).all()
    assert -lp.mean().item() == pytest.approx(evaluate_lm(neural, data, 5), abs=1e-12)
    assert neural.training  # the mode is restored


def test_bad_inputs():
    with pytest.raises(ValueError, match="same tokens"):
        interpolate(np.ones(3) / 3, np.ones(4) / 4, 0.5)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        interpolate(np.ones(3) / 3, np.ones(3) / 3, 1.5)
    with pytest.raises(TypeError, match="lam"):
        interpolate(np.ones(3) / 3, np.ones(3) / 3, "0.5")
    with pytest.raises(ValueError, match="probabilities"):
        interpolate(np.array([0.5, 2.0]), np.array([0.5, 0.5]), 0.5)
    with pytest.raises(ValueError, match="both models"):
        tune_lambda(np.array([0.0, 0.5]), np.array([0.0, 0.5]))
    with pytest.raises(ValueError, match="strictly"):
        tune_lambda(np.ones(3) / 3, np.ones(3) / 3, start=0.0)
    with pytest.raises(ValueError, match="too few"):
        stream_targets(3, 2)
    with pytest.raises(ValueError, match="batchified"):
        target_log_probs(_models()[1], torch.arange(5), 5)

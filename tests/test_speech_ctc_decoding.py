"""CTC decoders (course_lib.speech.ctc_decoding): greedy and prefix beam search."""

import itertools
import math

import pytest
import torch

from course_lib.speech.ctc import alignments, collapse, ctc_loss
from course_lib.speech.ctc_decoding import (
    brute_force_best,
    extend_prefixes,
    greedy_decode,
    prefix_beam_search,
)


def test_greedy_is_collapsed_argmax():
    lp = torch.randn(3, 9, 4).log_softmax(-1)
    out = greedy_decode(lp, lengths=torch.tensor([9, 5, 1]))
    for b, n in enumerate([9, 5, 1]):
        assert out[b] == collapse(lp[b, :n].argmax(-1).tolist())


@pytest.mark.parametrize("seed", range(6))
def test_prefix_beam_search_wide_is_exact(seed):
    T, C = 5, 3
    g = torch.Generator().manual_seed(seed)
    lp = (torch.randn(T, C, dtype=torch.float64, generator=g) * 2).log_softmax(-1)
    labels = {tuple(collapse(p)) for p in itertools.product(range(C), repeat=T)}

    def log_p(label):
        paths = list(alignments(list(label), T, C))
        return torch.logsumexp(
            torch.stack([sum(lp[t, k] for t, k in enumerate(p)) for p in paths]), 0
        ).item()

    best = max(labels, key=log_p)
    (prefix, score), *_ = prefix_beam_search(lp, beam=len(labels))
    assert prefix == best
    assert score == pytest.approx(log_p(best), abs=1e-10)
    nll = ctc_loss(
        lp[None], torch.tensor([list(best) or [1]]), [T], [len(best)], reduction="sum"
    )
    assert score == pytest.approx(-nll.item(), abs=1e-10)


def test_beam_one_can_differ_from_best_label_but_is_a_label():
    lp = torch.randn(6, 3, dtype=torch.float64).log_softmax(-1)
    ((prefix, _),) = prefix_beam_search(lp, beam=1)
    assert all(k != 0 for k in prefix)


def test_bad_inputs():
    with pytest.raises(ValueError, match=r"\(T, C\)"):
        prefix_beam_search(torch.randn(2, 3, 4))
    with pytest.raises(ValueError, match="beam"):
        prefix_beam_search(torch.randn(3, 4), beam=0)
    with pytest.raises(ValueError, match=r"\(B, T, C\)"):
        greedy_decode(torch.randn(3, 4))


def test_extend_prefixes_keeps_blank_and_symbol_endings_apart():
    ln = math.log
    first = extend_prefixes({(): (0.0, -math.inf)}, [ln(0.6), ln(0.4)])
    assert first[()] == pytest.approx((ln(0.6), -math.inf))
    assert first[(1,)] == pytest.approx((-math.inf, ln(0.4)))
    # a repeat: p_nb extends the prefix itself, p_b (after a blank) a longer one
    beams = {(1,): (ln(0.2), ln(0.3))}
    nxt = extend_prefixes(beams, [ln(0.5), ln(0.5)])
    assert nxt[(1,)] == pytest.approx((ln(0.5 * 0.5), ln(0.3 * 0.5)))
    assert nxt[(1, 1)] == pytest.approx((-math.inf, ln(0.2 * 0.5)))
    # prune skips a class whose log-probability is below it
    pruned = extend_prefixes({(): (0.0, -math.inf)}, [ln(0.99), ln(0.01)], prune=-2.0)
    assert set(pruned) == {()}


def test_brute_force_best_sums_the_paths_of_each_label():
    # two frames, 0.6 blank / 0.4 symbol: the best path is "__" (0.36), but three paths
    # collapse to [1] (0.16 + 0.24 + 0.24 = 0.64)
    lp = torch.tensor([[0.6, 0.4], [0.6, 0.4]], dtype=torch.float64).log()
    label, score = brute_force_best(lp)
    assert label == (1,)
    assert math.exp(score) == pytest.approx(0.64)
    assert greedy_decode(lp[None])[0] == []

"""CTC from scratch (course_lib.speech.ctc) against torch.nn.CTCLoss and brute force."""

import itertools
import math

import pytest
import torch
import torch.nn.functional as F

from course_lib.speech.ctc import (
    alignments,
    collapse,
    ctc_alpha,
    ctc_loss,
    ctc_posteriors,
    extend_labels,
    time_ctc,
    viterbi_path,
)


def _batch(seed=0, B=5, T=14, C=6, S=5):
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(B, T, C, dtype=torch.float64, generator=g)
    targets = torch.randint(1, C, (B, S), generator=g)
    targets[0, :3] = 2  # repeats need a blank between them
    input_lengths = torch.tensor([T, T - 1, T - 4, 9, 6])[:B]
    target_lengths = torch.tensor([S, 4, 3, 0, 2])[:B]
    return logits.requires_grad_(), targets, input_lengths, target_lengths


def test_collapse_merges_repeats_then_drops_blanks():
    t, h, e, _ = 1, 2, 3, 0
    assert collapse([t, t, t, _, h, _, e, e, e, _, _, _]) == [t, h, e]
    assert collapse([1, 1, 0, 1]) == [1, 1]
    assert collapse([0, 0]) == []


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_loss_and_grad_match_torch_float64(reduction, zero_infinity):
    logits, targets, il, tl = _batch()
    il[4] = 2  # too short for its label (2 symbols need >= 2 frames: fits) ...
    targets[4, :2] = 3  # ... a repeat needs 3 frames: impossible, loss inf
    ours = ctc_loss(
        logits.log_softmax(-1),
        targets,
        il,
        tl,
        reduction=reduction,
        zero_infinity=zero_infinity,
    )
    ref = F.ctc_loss(
        logits.log_softmax(-1).transpose(0, 1),
        targets,
        il,
        tl,
        reduction=reduction,
        zero_infinity=zero_infinity,
    )
    if not zero_infinity:
        assert torch.isinf(ref).any() and torch.isinf(ours).any()
        keep = slice(0, 4)  # gradients of the finite sequences only
        ours = ctc_loss(
            logits[keep].log_softmax(-1),
            targets[keep],
            il[keep],
            tl[keep],
            reduction=reduction,
        )
        ref = F.ctc_loss(
            logits[keep].log_softmax(-1).transpose(0, 1),
            targets[keep],
            il[keep],
            tl[keep],
            reduction=reduction,
        )
    torch.testing.assert_close(ours, ref, rtol=1e-10, atol=1e-10)
    (g_ours,) = torch.autograd.grad(ours.sum(), logits)
    (g_ref,) = torch.autograd.grad(ref.sum(), logits)
    torch.testing.assert_close(g_ours, g_ref, rtol=1e-9, atol=1e-10)


def test_impossible_label_is_inf_or_an_error():
    lp = torch.randn(1, 2, 3, dtype=torch.float64).log_softmax(-1)
    loss = ctc_loss(lp, torch.tensor([[1, 1]]), [2], [2], reduction="none")
    assert math.isinf(loss.item())
    with pytest.raises(ValueError, match="too short"):
        ctc_loss(lp, torch.tensor([[1, 1]]), [2], [2], error_if_impossible=True)


def _brute_force(lp, label):
    T, C = lp.shape
    terms = [sum(lp[t, k] for t, k in enumerate(p)) for p in alignments(label, T, C)]
    return -torch.logsumexp(torch.stack(terms), 0)


@pytest.mark.parametrize(
    "T,C,label",
    [(1, 2, [1]), (3, 2, [1]), (4, 3, [1, 2]), (5, 3, [1, 1]), (5, 3, [2, 1, 2])],
)
def test_matches_brute_force_enumeration(T, C, label):
    x = torch.randn(
        T, C, dtype=torch.float64, generator=torch.Generator().manual_seed(T)
    )
    x.requires_grad_()
    ours = ctc_loss(
        x.log_softmax(-1)[None],
        torch.tensor([label]),
        [T],
        [len(label)],
        reduction="sum",
    )
    brute = _brute_force(x.log_softmax(-1), label)
    torch.testing.assert_close(ours, brute, rtol=1e-12, atol=1e-12)
    (g1,) = torch.autograd.grad(ours, x)
    (g2,) = torch.autograd.grad(_brute_force(x.log_softmax(-1), label), x)
    torch.testing.assert_close(g1, g2, rtol=1e-10, atol=1e-12)


def test_gradient_wrt_log_probs_is_minus_the_posterior_gradcheck():
    lp = torch.randn(2, 5, 3, dtype=torch.float64).log_softmax(-1).requires_grad_()
    targets = torch.tensor([[1, 2], [2, 0]])
    assert torch.autograd.gradcheck(
        lambda z: ctc_loss(z, targets, [5, 4], [2, 1], reduction="sum"), (lp,)
    )


@pytest.mark.parametrize("label", [[2], [1, 2, 2], [2, 1, 2, 3, 3, 1]])
def test_autograd_through_alpha_is_minus_the_posterior(label):
    """Unreachable states (ln α = −inf on both sides of a log-add) give no NaN gradient:
    autograd through the recursion gives −γ, as the closed form does."""
    T, C = 14, 4
    lp = torch.randn(1, T, C, dtype=torch.float64).log_softmax(-1).requires_grad_()
    targets = torch.tensor([label])
    ext = extend_labels(targets)
    nll = -ctc_alpha(lp, ext)[0, -1, -2:].logsumexp(0)
    (grad,) = torch.autograd.grad(nll, lp)
    post, _ = ctc_posteriors(
        lp.detach(), targets, torch.tensor([T]), torch.tensor([len(label)])
    )
    gamma = post[0].exp() @ F.one_hot(ext[0], C).double()  # (T, C)
    assert not grad.isnan().any()
    torch.testing.assert_close(grad[0], -gamma)


def test_posteriors_sum_to_one_per_frame():
    logits, targets, il, tl = _batch(seed=3)
    post, log_p = ctc_posteriors(logits.detach().log_softmax(-1), targets, il, tl)
    for b in range(len(il)):
        sums = post[b, : il[b]].exp().sum(-1)
        torch.testing.assert_close(sums, torch.ones_like(sums))


def test_alignment_count_is_binomial():
    # label of length 1 with T frames: paths _*a+_* -> T(T+1)/2 alignments
    for T in range(1, 6):
        assert sum(1 for _ in alignments([1], T, 2)) == T * (T + 1) // 2


def test_viterbi_path_is_the_best_alignment():
    x = torch.randn(
        5, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(1)
    )
    lp = x.log_softmax(-1)
    label = [1, 2]
    states = viterbi_path(lp, label)
    ext = [0, 1, 0, 2, 0]
    path = [ext[s] for s in states]
    assert collapse(path) == label
    best = max(
        alignments(label, 5, 3), key=lambda p: sum(lp[t, k] for t, k in enumerate(p))
    )
    assert tuple(path) == best


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(targets=torch.tensor([[7]])), "class indices"),
        (dict(targets=torch.tensor([[0]])), "other than the blank"),
        (dict(input_lengths=[9]), "input_lengths"),
        (dict(reduction="avg"), "reduction"),
    ],
)
def test_bad_inputs_raise(kwargs, match):
    args = dict(
        log_probs=torch.randn(1, 4, 3).log_softmax(-1),
        targets=torch.tensor([[1]]),
        input_lengths=[4],
        target_lengths=[1],
    )
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        ctc_loss(**args)


def test_batch_first_shape_is_checked():
    with pytest.raises(ValueError, match=r"\(B, T, C\)"):
        ctc_loss(torch.randn(4, 3), torch.tensor([[1]]), [4], [1])


def test_alignments_is_exhaustive_for_tiny_cases():
    T, C = 4, 3
    every = list(itertools.product(range(C), repeat=T))
    labels = {tuple(collapse(p)) for p in every}
    assert sum(len(list(alignments(list(lab), T, C))) for lab in labels) == C**T


def test_time_ctc_times_both_losses_on_one_batch_and_leaves_the_global_seed():
    torch.manual_seed(3)
    expected = torch.rand(1)
    torch.manual_seed(3)
    timed = time_ctc(batch=4, frames=20, repeats=2)
    assert set(timed) == {"ours", "torch", "loss_gap"}
    assert timed["ours"] > 0 and timed["torch"] > 0
    assert timed["loss_gap"] < 1e-4  # the same loss, in float32
    assert torch.equal(torch.rand(1), expected)

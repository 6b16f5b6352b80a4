r"""Connectionist temporal classification (Graves et al., 2006), from scratch. Chapter 10.

*Sequence Models*, week 3 (CTC cost for speech recognition). The network emits, at every
frame, a distribution over the C classes: the alphabet plus a **blank** (index 0). An
*alignment* (path) π of length T collapses to a label by merging repeats, then dropping
blanks, B(``ttt_h_eee___``) = "the". CTC maximises the sum over *every* alignment that
collapses to the label, p(l | x) = Σ_{π ∈ B⁻¹(l)} Π_t y_t(π_t) (eq. 3): the label is never
stretched or "pre-processed" to the input length. The sum runs over the extended label
l' = (_, l_1, _, l_2, …, _) of length S' = 2S + 1 with the forward recursion (eq. 6-7)

    α_t(s) = y_t(l'_s) · (α_{t−1}(s) + α_{t−1}(s−1) + [l'_s ≠ _ and l'_s ≠ l'_{s−2}] α_{t−1}(s−2))

in log space, and the backward recursion β mirrors it (eq. 10-11). With both, the
posterior of class k at frame t is γ_t(k) = Σ_{s: l'_s = k} α_t(s) β_t(s) / (y_t(k) p), and
∂(−ln p)/∂ ln y_t(k) = −γ_t(k) (eq. 16). Both recursions are vectorised over the batch and
the extended label; only time is a Python loop.

Shape legend: B batch, T frames, C classes incl. the blank, S label length, S' = 2S + 1.
"""

from __future__ import annotations

import itertools
import statistics
import time
from collections.abc import Iterator, Sequence

import torch
import torch.nn.functional as F
from torch import Tensor

from course_lib.checks import InputError
from course_lib.runtime import run_seed
from course_lib.speech.ctc_inputs import _check_ctc, _padded_targets, check_reduction

__all__ = [
    "alignments",
    "collapse",
    "ctc_alpha",
    "ctc_beta",
    "ctc_loss",
    "ctc_posteriors",
    "extend_labels",
    "time_ctc",
    "viterbi_path",
]

NEG_INF = float("-inf")


def collapse(path: Sequence[int], blank: int = 0) -> list[int]:
    """B(π): merge repeated symbols, then drop blanks (``a a _ a b b`` → ``a a b``)."""
    out, previous = [], None
    for symbol in (int(p) for p in path):
        if symbol != previous and symbol != blank:
            out.append(symbol)
        previous = symbol
    return out


def alignments(
    label: Sequence[int], T: int, n_classes: int, blank: int = 0
) -> Iterator:
    """Every path of length T over n_classes symbols that collapses to ``label``.

    Brute force over all C^T paths: for teaching and tests (T ≤ ~8).
    """
    label = [int(c) for c in label]
    for path in itertools.product(range(n_classes), repeat=T):
        if collapse(path, blank) == label:
            yield path


def extend_labels(targets: Tensor, blank: int = 0) -> Tensor:
    """l' = (_, l_1, _, l_2, …, _): targets (B, S) → (B, 2S + 1), blanks at even positions."""
    B, S = targets.shape
    ext = torch.full((B, 2 * S + 1), blank, dtype=torch.long, device=targets.device)
    ext[:, 1::2] = targets  # (B, S')
    return ext


def _skip_allowed(ext: Tensor, blank: int) -> Tensor:
    """(B, S') True where s − 2 → s is a legal jump: l'_s ≠ blank and l'_s ≠ l'_{s−2}."""
    skip = torch.zeros_like(ext, dtype=torch.bool)
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    return skip


def _emissions(log_probs: Tensor, ext: Tensor) -> Tensor:
    """ln y_t(l'_s): (B, T, C) gathered along the extended label → (B, T, S')."""
    B, T, _ = log_probs.shape
    return log_probs.gather(2, ext[:, None, :].expand(B, T, ext.size(1)))


def _log_add(a: Tensor, b: Tensor) -> Tensor:
    """ln(e^a + e^b) (``torch.logaddexp``), whose gradient is 0 where both are −inf (a state
    no path reaches yet) instead of torch's NaN, so autograd can run through α and β."""
    both = (a == NEG_INF) & (b == NEG_INF)
    out = torch.logaddexp(a.masked_fill(both, 0.0), b.masked_fill(both, 0.0))
    return out.masked_fill(both, NEG_INF)


def _shift(x: Tensor, k: int) -> Tensor:
    """x[:, s − k] with −inf for s < k (k > 0), or x[:, s + |k|] with −inf past the end."""
    pad = torch.full_like(x[:, : abs(k)], NEG_INF)
    return torch.cat([pad, x[:, :-k]], 1) if k > 0 else torch.cat([x[:, -k:], pad], 1)


def ctc_alpha(log_probs: Tensor, ext: Tensor, blank: int = 0) -> Tensor:
    """The forward variables ln α_t(s) (Graves et al., 2006, eq. 6-7).

    log_probs: (B, T, C) log-softmax outputs; ext: (B, S') extended labels.
    Returns (B, T, S'); paths may start in the first blank or the first label.
    """
    e = _emissions(log_probs, ext)  # (B, T, S')
    no_skip = torch.zeros_like(e[:, 0]).masked_fill(~_skip_allowed(ext, blank), NEG_INF)
    pad = e.new_full((e.size(0), 2), NEG_INF)  # (B, 2), even when S' = 1
    alpha = torch.full_like(e[:, 0], NEG_INF)  # (B, S')
    alpha[:, :2] = e[:, 0, :2]
    out = [alpha]
    for t in range(1, e.size(1)):
        prev = torch.cat([pad, alpha], 1)  # (B, S' + 2): prev[:, s + 2] = α_{t−1}(s)
        stay_or_step = _log_add(prev[:, 2:], prev[:, 1:-1])  # (B, S')
        jump = prev[:, :-2] + no_skip  # (B, S'): α_{t−1}(s − 2) where legal
        alpha = e[:, t] + _log_add(stay_or_step, jump)  # (B, S')
        out.append(alpha)
    return torch.stack(out, 1)  # (B, T, S')


def ctc_beta(
    log_probs: Tensor,
    ext: Tensor,
    input_lengths: Tensor,
    target_lengths: Tensor,
    blank: int = 0,
) -> Tensor:
    """The backward variables ln β_t(s), emission at t included (eq. 10-11).

    β_{T_b−1}(s) = y(l'_s) for the last blank and last label of each sequence; β is −inf
    past a sequence's end. Returns (B, T, S').
    """
    e = _emissions(log_probs, ext)  # (B, T, S')
    skip_from = _shift(_skip_allowed(ext, blank).float(), -2).bool()  # s → s + 2 legal
    no_skip = torch.zeros_like(e[:, 0]).masked_fill(~skip_from, NEG_INF)  # (B, S')
    s = torch.arange(e.size(2), device=ext.device)  # (S',)
    ends = 2 * target_lengths[:, None]  # (B, 1): the last blank; ends − 1: last label
    final = (s == ends) | (s == ends - 1)  # (B, S'): where β starts
    last = input_lengths[:, None] - 1  # (B, 1): each sequence's last frame T_b − 1
    pad = e.new_full((e.size(0), 2), NEG_INF)  # (B, 2), even when S' = 1
    beta = torch.full_like(e[:, 0], NEG_INF)  # (B, S')
    out = [beta] * e.size(1)
    for t in range(e.size(1) - 1, -1, -1):
        nxt = torch.cat([beta, pad], 1)  # (B, S' + 2): nxt[:, s] = β_{t+1}(s)
        stay_or_step = _log_add(nxt[:, :-2], nxt[:, 1:-1])  # (B, S')
        jump = nxt[:, 2:] + no_skip  # (B, S'): β_{t+1}(s + 2) where legal
        recur = e[:, t] + _log_add(stay_or_step, jump)  # (B, S')
        start = e[:, t].masked_fill(~final, NEG_INF)  # (B, S'): β_{T_b−1}(s)
        beta = torch.where(t == last, start, torch.where(t < last, recur, NEG_INF))
        out[t] = beta
    return torch.stack(out, 1)  # (B, T, S')


def _log_likelihood(alpha: Tensor, input_lengths: Tensor, target_lengths: Tensor):
    """ln p(l | x) = ln(α_{T−1}(S' − 1) + α_{T−1}(S' − 2)) per sequence: (B,)."""
    B = alpha.size(0)
    rows = torch.arange(B, device=alpha.device)
    last = alpha[rows, (input_lengths - 1).clamp(min=0)]  # (B, S')
    end = 2 * target_lengths
    blank_end = last[rows, end]  # (B,)
    label_end = last[rows, (end - 1).clamp(min=0)].masked_fill(end == 0, NEG_INF)
    log_p = torch.logaddexp(blank_end, label_end)  # (B,)
    empty = torch.where(end == 0, 0.0, NEG_INF).to(
        log_p
    )  # no frames: p = [label empty]
    return torch.where(input_lengths == 0, empty, log_p)  # (B,)


def ctc_posteriors(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Tensor,
    target_lengths: Tensor,
    blank: int = 0,
) -> tuple[Tensor, Tensor]:
    """The state posteriors ln(α_t(s) β_t(s) / (y_t(l'_s) p)) (B, T, S') and ln p (B,).

    At every frame t < T_b the posteriors of sequence b sum to 1 over s (eq. 14).
    """
    ext = extend_labels(targets, blank)  # (B, S')
    alpha = ctc_alpha(log_probs, ext, blank)  # (B, T, S')
    return _posteriors(log_probs, ext, alpha, input_lengths, target_lengths, blank)


def _posteriors(log_probs, ext, alpha, input_lengths, target_lengths, blank):
    """ln γ_t(s) from α (computed once, in the forward pass) and a fresh β."""
    beta = ctc_beta(log_probs, ext, input_lengths, target_lengths, blank)  # (B, T, S')
    log_p = _log_likelihood(alpha, input_lengths, target_lengths)  # (B,)
    e = _emissions(log_probs, ext)  # (B, T, S')
    post = alpha + beta - e - log_p[:, None, None]  # (B, T, S')
    return post.nan_to_num(nan=NEG_INF), log_p


class _CTC(torch.autograd.Function):
    """−ln p(l | x) per sequence, with the α-β gradient ∂/∂ ln y_t(k) = −γ_t(k)."""

    @staticmethod
    def forward(ctx, log_probs, targets, input_lengths, target_lengths, blank):
        ext = extend_labels(targets, blank)
        alpha = ctc_alpha(log_probs, ext, blank)
        nll = -_log_likelihood(alpha, input_lengths, target_lengths)  # (B,)
        ctx.save_for_backward(log_probs, ext, alpha, input_lengths, target_lengths)
        ctx.blank = blank
        return nll

    @staticmethod
    def backward(ctx, grad_nll):
        log_probs, ext, alpha, input_lengths, target_lengths = ctx.saved_tensors
        post, log_p = _posteriors(
            log_probs, ext, alpha, input_lengths, target_lengths, ctx.blank
        )  # (B, T, S')
        B, T, _ = log_probs.shape
        gamma = torch.zeros_like(log_probs).scatter_add_(
            2, ext[:, None, :].expand(B, T, ext.size(1)), post.exp()
        )  # (B, T, C)
        finite = torch.isfinite(log_p)[
            :, None, None
        ]  # an impossible label: no gradient
        grad = torch.where(finite, -gamma, 0.0) * grad_nll[:, None, None]  # (B, T, C)
        return grad, None, None, None, None


def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Tensor | Sequence[int],
    target_lengths: Tensor | Sequence[int],
    *,
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
    error_if_impossible: bool = False,
) -> Tensor:
    """The CTC loss −ln p(l | x), as ``torch.nn.CTCLoss`` but batch first.

    log_probs: (B, T, C) log-softmax outputs; targets: (B, S) padded label indices (any
    padding value) or 1-D, the labels concatenated; input_lengths, target_lengths: (B,).
    reduction ``"none"`` → (B,); ``"sum"``; ``"mean"``: each loss divided by its target
    length, then averaged (torch's rule).
    A label that cannot fit its input (T_b < S_b + repeats) has loss +inf, as in torch;
    ``zero_infinity`` makes it 0 with a zero gradient, ``error_if_impossible`` raises.
    """
    device = log_probs.device if isinstance(log_probs, Tensor) else None
    input_lengths = torch.as_tensor(input_lengths, dtype=torch.long, device=device)
    target_lengths = torch.as_tensor(target_lengths, dtype=torch.long, device=device)
    targets = torch.as_tensor(targets, dtype=torch.long, device=device)
    targets = _padded_targets(targets, target_lengths, blank)  # (B, S)
    _check_ctc(log_probs, targets, input_lengths, target_lengths, blank)
    check_reduction(reduction, log_probs.size(0))
    nll = _CTC.apply(log_probs, targets, input_lengths, target_lengths, blank)  # (B,)
    if error_if_impossible and torch.isinf(nll).any():
        bad = torch.isinf(nll).nonzero().flatten().tolist()
        raise InputError(
            f"sequences {bad} are too short for their labels: T must be at least "
            "S plus the number of repeated neighbours"
        )
    if zero_infinity:
        nll = torch.where(torch.isinf(nll), torch.zeros_like(nll), nll)
    if reduction == "none":
        return nll
    if reduction == "sum":
        return nll.sum()
    return (nll / target_lengths.clamp(min=1).to(nll.dtype)).mean()


def viterbi_path(log_probs: Tensor, label: Sequence[int], blank: int = 0) -> list[int]:
    """The most probable alignment of one utterance: for each frame, its state s in l'.

    log_probs: (T, C); label: S symbols. The max-product version of :func:`ctc_alpha`
    with back-pointers. Returns T states (indices into the extended label).
    """
    ext = extend_labels(torch.as_tensor([list(label)], dtype=torch.long), blank)
    e = _emissions(log_probs[None].detach(), ext.to(log_probs.device))[0]  # (T, S')
    skip = _skip_allowed(ext, blank)[0].to(log_probs.device)  # (S',)
    T, Sx = e.shape
    if T < len(label):
        raise ValueError(f"{T} frames cannot hold a label of length {len(label)}")
    delta = torch.full((Sx,), NEG_INF, dtype=e.dtype, device=e.device)
    delta[:2] = e[0, :2]
    back = []
    for t in range(1, T):
        prev = torch.stack(
            [
                delta,
                _shift(delta[None], 1)[0],
                _shift(delta[None], 2)[0].masked_fill(~skip, NEG_INF),
            ]
        )  # (3, S')
        best, arg = prev.max(0)
        back.append(arg)
        delta = e[t] + best
    ends = [Sx - 1, Sx - 2] if Sx > 1 else [0]
    s = max(ends, key=lambda j: delta[j].item())
    path = [s]
    for arg in reversed(back):
        s -= int(arg[s])
        path.append(s)
    return path[::-1]


def _median_seconds(fn, repeats: int, device: torch.device) -> float:
    """The median wall-clock time of ``fn()`` over ``repeats`` calls (CUDA synchronised)."""
    times = []
    for _ in range(repeats):
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        start = time.perf_counter()
        fn()
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def time_ctc(
    batch: int = 32,
    frames: int = 150,
    classes: int = 11,
    *,
    repeats: int = 5,
    device=None,
) -> dict[str, float]:
    """Our :func:`ctc_loss` and ``torch.nn.functional.ctc_loss``, loss and gradient, timed
    on the same random batch (labels of 2-7 symbols, inputs of 2/3 to all ``frames``).

    Returns the median seconds of each, ``{"ours": ..., "torch": ...}``, and
    ``"loss_gap"``, the largest difference between the two losses. Uses its own seeded
    generator: the global random state is left as it was.
    """
    device = torch.device("cpu" if device is None else device)
    g = torch.Generator().manual_seed(run_seed(0))
    logits = torch.randn(batch, frames, classes, generator=g).to(device)  # (B, T, C)
    logits.requires_grad_()
    target_lengths = torch.randint(2, 8, (batch,), generator=g)  # (B,)
    targets = torch.randint(1, classes, (batch, 7), generator=g).to(device)  # (B, 7)
    input_lengths = torch.randint(frames * 2 // 3, frames + 1, (batch,), generator=g)
    input_lengths[0] = frames
    lengths = (input_lengths, target_lengths)

    def ours():
        logits.grad = None
        loss = ctc_loss(logits.log_softmax(-1), targets, *lengths)
        loss.backward()
        return loss.detach()

    def reference():
        logits.grad = None
        loss = F.ctc_loss(logits.log_softmax(-1).transpose(0, 1), targets, *lengths)
        loss.backward()
        return loss.detach()

    gap = (ours() - reference()).abs().item()  # also a warm-up of each
    return {
        "ours": _median_seconds(ours, repeats, device),
        "torch": _median_seconds(reference, repeats, device),
        "loss_gap": gap,
    }

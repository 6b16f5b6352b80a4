"""Chapter 10 exercises (Speech): the CTC collapse, the forward recursion, one frame of
prefix beam search, the HTK mel scale, event matching; and the chapter's questions.

References: ``course_lib.speech`` (``ctc.collapse``, ``ctc.ctc_alpha``,
``ctc_decoding.extend_prefixes``, ``features.hz_to_mel``, ``events.match_events``).
"""

from __future__ import annotations

import math

import torch

from course_lib.exercises.core import Case, Exercise, Mistake, register
from course_lib.exercises.quiz import Question, register_questions
from course_lib.speech.ctc import collapse, ctc_alpha, extend_labels
from course_lib.speech.ctc_decoding import extend_prefixes
from course_lib.speech.events import match_events
from course_lib.speech.features import hz_to_mel


def _collapse_cases(gen):
    cases = [
        Case(([1, 1, 0, 1, 2, 2], 0), label="edge: a a _ a b b"),
        Case(([0, 0, 0], 0), label="edge: only blanks"),
        Case(([3, 0, 3, 3, 0, 0, 3], 0), label="edge: blanks between repeats"),
        Case(([2, 2, 4, 4, 1], 4), label="edge: blank is 4"),
    ]
    for i in range(3):
        path = torch.randint(0, 4, (12,), generator=gen).tolist()
        cases.append(Case((path, 0), label=f"random {i}"))
    return cases


def _blanks_first(path, blank=0):
    kept = [int(p) for p in path if int(p) != blank]
    return [s for j, s in enumerate(kept) if j == 0 or s != kept[j - 1]]


def _repeats_kept(path, blank=0):
    return [int(p) for p in path if int(p) != blank]


def _mel(f):
    return hz_to_mel(f)


def _mel_cases(gen):
    grid = torch.tensor([0.0, 100.0, 700.0, 1000.0, 4000.0], dtype=torch.float64)
    rand = torch.rand(6, generator=gen, dtype=torch.float64) * 8000  # (6,)
    return [Case((grid,), label="edge: 0 … 4000 Hz"), Case((rand,), label="random 0")]


def _slaney(f):
    f = torch.as_tensor(f, dtype=torch.float64)
    linear = f / (200.0 / 3)
    log = 15.0 + 27.0 * torch.log(f.clamp_min(1e-10) / 1000.0) / math.log(6.4)
    return torch.where(f < 1000.0, linear, log)


def _natural_log(f):
    return 2595.0 * torch.log1p(torch.as_tensor(f, dtype=torch.float64) / 700.0)


def _match_cases(gen):
    cases = [
        Case(([1.0, 1.1], [1.0], 0.5), label="edge: two detections, one truth"),
        Case(([1.5], [1.0], 0.5), label="edge: exactly at the tolerance"),
        Case(([], [2.0, 3.0], 0.25), label="edge: no detections"),
        Case(([0.9, 2.6], [1.0, 2.0, 3.0], 0.5), label="edge: one miss"),
    ]
    for i in range(3):
        truths = (torch.rand(4, generator=gen) * 10).tolist()
        dets = (torch.rand(5, generator=gen) * 10).tolist()
        cases.append(Case((dets, truths, 1.0), label=f"random {i}"))
    return cases


def _reclaimed(detections, truths, tolerance):
    tp = sum(any(abs(d - t) <= tolerance for t in truths) for d in detections)
    missed = sum(not any(abs(d - t) <= tolerance for d in detections) for t in truths)
    return tp, len(detections) - tp, missed


def _strict(detections, truths, tolerance):
    free, tp = sorted(truths), 0
    for d in sorted(detections):
        hit = next((t for t in free if abs(d - t) < tolerance), None)
        if hit is not None:
            free.remove(hit)
            tp += 1
    return tp, len(detections) - tp, len(free)


register(
    Exercise(
        "ch10.ctc_collapse",
        "ctc_collapse(path: list[int], blank: int) -> list[int]",
        collapse,
        _collapse_cases,
        "First merge runs of the same symbol, THEN drop the blanks: a blank between two "
        "equal symbols keeps them apart (a a _ a b b → a a b).",
        (
            Mistake(
                "the blanks are dropped before the repeats are merged", _blanks_first
            ),
            Mistake("repeats are not merged", _repeats_kept),
        ),
    ),
    Exercise(
        "ch10.hz_to_mel",
        "hz_to_mel(f: (N,) float64 Hz) -> (N,) mel",
        _mel,
        _mel_cases,
        "The HTK mel scale: m = 2595 log10(1 + f / 700).",
        (
            Mistake(
                "it is the Slaney mel scale (linear below 1 kHz), not HTK", _slaney
            ),
            Mistake(
                "a natural log with the constant 2595 (meant for log10)", _natural_log
            ),
        ),
        rtol=1e-6,
        atol=1e-9,
    ),
    Exercise(
        "ch10.match_events",
        "match_events(detections: list[float], truths: list[float], tolerance: float) "
        "-> (tp, fp, misses)",
        match_events,
        _match_cases,
        "In time order, each detection claims the earliest UNCLAIMED truth within "
        "|d − t| <= tolerance; the rest are false positives, unclaimed truths are misses.",
        (
            Mistake("a truth can be claimed by several detections", _reclaimed),
            Mistake("the tolerance is strict (|d − t| < tolerance)", _strict),
        ),
    ),
)


def _alpha(probs, label):
    """α_t(s) in probabilities, (T, 2U + 1), from the library's log-space recursion."""
    ext = extend_labels(torch.tensor([label]))  # (1, S')
    return ctc_alpha(probs.log()[None], ext)[0].exp()  # (T, S')


def _alpha_by_loop(probs, label, skip):
    """The recursion written out; ``skip(ext, s)`` says when s − 2 → s is allowed."""
    ext = [0]
    for symbol in label:
        ext += [symbol, 0]
    T, S = probs.size(0), len(ext)
    alpha = torch.zeros(T, S, dtype=probs.dtype)  # (T, S')
    alpha[0, :2] = probs[0, ext[:2]]
    for t in range(1, T):
        for s in range(S):
            total = alpha[t - 1, s] + (alpha[t - 1, s - 1] if s >= 1 else 0.0)
            if s >= 2 and skip(ext, s):
                total = total + alpha[t - 1, s - 2]
            alpha[t, s] = probs[t, ext[s]] * total
    return alpha


def _alpha_skip_repeats(probs, label):
    return _alpha_by_loop(probs, label, lambda ext, s: ext[s] != 0)


def _alpha_no_skip(probs, label):
    return _alpha_by_loop(probs, label, lambda ext, s: False)


def _alpha_cases(gen):
    def probs(T, C=4):
        return torch.randn(T, C, generator=gen, dtype=torch.float64).softmax(-1)

    cases = [
        Case((probs(4), [1, 1]), label="edge: a repeated symbol [1, 1]"),
        Case((probs(3), [2, 3]), label="edge: T = 3 for [2, 3]"),
        Case((probs(1), [3]), label="edge: one frame, one symbol"),
    ]
    for i, label in enumerate([[1, 2, 2, 3], [3, 1, 3], [2, 2, 2]]):
        cases.append(Case((probs(8), label), label=f"random {i}"))
    return cases


def _log(p):
    return math.log(p) if p > 0 else -math.inf


def _prefix_step(beams, frame):
    """extend_prefixes in probabilities, prefixes of probability 0 left out."""
    log_beams = {k: (_log(b), _log(nb)) for k, (b, nb) in beams.items()}
    out = extend_prefixes(log_beams, [_log(p) for p in frame], blank=0)
    kept = {k: (math.exp(b), math.exp(nb)) for k, (b, nb) in out.items()}
    return {k: v for k, v in kept.items() if v[0] + v[1] > 0}


def _prefix_step_by_rule(beams, frame, repeat):
    """One frame written out; ``repeat`` adds the paths for a repeat of ℓ's last symbol."""
    out = {}

    def add(prefix, b=0.0, nb=0.0):
        old = out.get(prefix, (0.0, 0.0))
        out[prefix] = (old[0] + b, old[1] + nb)

    for prefix, (pb, pnb) in beams.items():
        for k, y in enumerate(frame):
            if k == 0:
                add(prefix, b=(pb + pnb) * y)
            elif prefix and k == prefix[-1]:
                repeat(add, prefix, k, pb, pnb, y)
            else:
                add(prefix + (k,), nb=(pb + pnb) * y)
    return {k: v for k, v in out.items() if v[0] + v[1] > 0}


def _repeat_always_merges(beams, frame):
    def repeat(add, prefix, k, pb, pnb, y):
        add(prefix, nb=(pb + pnb) * y)

    return _prefix_step_by_rule(beams, frame, repeat)


def _repeat_always_extends(beams, frame):
    def repeat(add, prefix, k, pb, pnb, y):
        add(prefix + (k,), nb=(pb + pnb) * y)

    return _prefix_step_by_rule(beams, frame, repeat)


def _prefix_cases(gen):
    def frame(C=3):
        return torch.randn(C, generator=gen, dtype=torch.float64).softmax(0).tolist()

    def split():
        b, nb = torch.rand(2, generator=gen, dtype=torch.float64).tolist()
        return (b / 4, nb / 4)

    cases = [
        Case(({(): (1.0, 0.0)}, frame()), label="edge: the first frame"),
        Case(({(1,): (0.3, 0.5)}, [0.2, 0.5, 0.3]), label="edge: the repeat of 1"),
        Case(({(1,): (0.0, 0.6)}, [0.1, 0.7, 0.2]), label="edge: no blank yet"),
    ]
    for i in range(3):
        beams = {(): split(), (1,): split(), (2,): split(), (1, 2): split()}
        cases.append(Case((beams, frame()), label=f"random {i}"))
    return cases


register(
    Exercise(
        "ch10.ctc_alpha",
        "ctc_alpha(probs: (T, C) float64, label: list[int]) -> (T, 2U + 1)",
        _alpha,
        _alpha_cases,
        "Extended label l' = (_, l1, _, l2, …, _); α_1 holds y_1(_) and y_1(l1) only; "
        "α_t(s) = y_t(l'_s)(α_{t−1}(s) + α_{t−1}(s − 1) + α_{t−1}(s − 2)), the last term "
        "only when l'_s is not a blank and l'_s ≠ l'_{s−2}.",
        (
            Mistake(
                "the skip s − 2 → s is allowed between two equal symbols",
                _alpha_skip_repeats,
            ),
            Mistake("no skip at all (a path must visit every blank)", _alpha_no_skip),
        ),
        rtol=1e-9,
        atol=1e-12,
    ),
    Exercise(
        "ch10.prefix_beam_step",
        "prefix_beam_step(beams: {prefix: (p_b, p_nb)}, frame: list[float]) "
        "-> {prefix: (p_b, p_nb)}",
        _prefix_step,
        _prefix_cases,
        "Blank (class 0): ℓ keeps ℓ, p_b += (p_b + p_nb)·y. The last symbol k of ℓ again: "
        "p_nb(ℓ) += p_nb·y (merged), p_nb(ℓ + k) += p_b·y (a blank came between). Any other "
        "k: p_nb(ℓ + k) += (p_b + p_nb)·y. Leave out prefixes of probability 0.",
        (
            Mistake(
                "a repeat always merges, even after a blank", _repeat_always_merges
            ),
            Mistake(
                "a repeat always extends the prefix, even without a blank between",
                _repeat_always_extends,
            ),
        ),
        rtol=1e-9,
        atol=1e-12,
    ),
)


register_questions(
    Question(
        "ch10.blank_or_space",
        "With the blank written _ and the space ⊔, what does the character alignment "
        "`hh_e_ll_llo⊔⊔_w` collapse to?",
        answer="a",
        explanation="Merge repeats, then drop blanks: hh → h, the blank between the two runs "
        "of l keeps both l's, ⊔⊔ merges into one space, and the space, a real character, "
        "stays: 'hello w'.",
        choices={"a": "hello w", "b": "helo w", "c": "hellow"},
        wrong={
            "b": "The blank between `ll` and `ll` keeps the two runs apart: two l's.",
            "c": "The space is an output character, not a blank: the collapse keeps it.",
        },
    ),
    Question(
        "ch10.fewest_frames",
        "How many output steps does CTC need, at the fewest, for the label 'hello'?",
        answer=6,
        explanation="One step per symbol (5) and a blank between the two l's, which would "
        "merge otherwise: U + r = 5 + 1.",
        wrong={
            5: "One step per letter is not enough: l l in a row collapses to one l.",
            11: "That is 2U + 1, the extended label's length; a path may skip every "
            "blank except the one between equal symbols.",
        },
    ),
    Question(
        "ch10.logit_gradient",
        "At step t the softmax gives the blank $y_t(\\_) = 0.7$, and the posteriors of the "
        "blank states at t sum to 0.9. What is $\\partial \\mathcal{L} / \\partial u_t(\\_)$, "
        "the gradient of the CTC loss with respect to the blank's logit?",
        answer=0.7 - 0.9,
        explanation="Through the log-softmax, ∂L/∂u_t(k) = y_t(k) − Σ γ_t(s) over the "
        "states carrying k: 0.7 − 0.9 = −0.2, so a step of descent raises the blank's logit.",
        wrong={
            -0.9: "That is the gradient with respect to the log-probability ln y_t(_); "
            "the log-softmax adds y_t(_).",
            0.2: "The sign is reversed: the loss falls as the blank's logit rises, since "
            "the posterior (0.9) exceeds the output (0.7).",
        },
    ),
    Question(
        "ch10.step_accuracy",
        "A trigger-word detector that never fires scores 90 % per-step accuracy on clips "
        "where 10 % of the steps are labelled 1. Which measurement shows that it is useless?",
        answer="b",
        explanation="Event recall counts the triggers found: 0 for a silent detector, "
        "whatever the share of zeros.",
        choices={
            "a": "per-step accuracy on more clips",
            "b": "event recall (triggers detected over triggers spoken)",
            "c": "false alarms per minute",
        },
        wrong={
            "a": "More clips give the same 90 %: most steps are 0, and it gets them right.",
            "c": "A detector that never fires has no false alarms: 0 per minute looks perfect.",
        },
    ),
)

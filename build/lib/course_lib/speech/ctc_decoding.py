"""Decoding a CTC model: greedy (best path) and prefix beam search. Chapter 10.

Greedy decoding takes the most probable class at every frame and collapses the path; it
finds the best *path*, not the best *label* (many paths share a label). Prefix beam search
(Hannun et al., 2014, "First-pass large vocabulary continuous speech recognition using
bi-directional recurrent DNNs", Algorithm 1, here without a language model) keeps, for each
label prefix ℓ, the probability of every path so far that collapses to ℓ and ends in a
blank, p_b(ℓ), or in its last symbol, p_nb(ℓ); it extends the k best prefixes frame by
frame and merges paths that reach the same prefix. With a beam as wide as the number of
prefixes it is exact: its score is ln p(ℓ | x), minus the CTC loss of ℓ.

Shape legend: B batch, T frames, C classes incl. the blank.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict

import numpy as np
from torch import Tensor

from course_lib.speech.ctc import collapse

__all__ = [
    "brute_force_best",
    "edit_distance",
    "error_rate",
    "extend_prefixes",
    "greedy_decode",
    "prefix_beam_search",
]

_NEG = -math.inf


def _lse(a: float, b: float) -> float:
    """ln(e^a + e^b) for Python floats, exact at −inf."""
    if a == _NEG:
        return b
    if b == _NEG:
        return a
    m = max(a, b)
    return m + math.log1p(math.exp(-abs(a - b)))


def greedy_decode(
    log_probs: Tensor, lengths: Tensor | None = None, blank: int = 0
) -> list[list[int]]:
    """Best-path decoding: B(argmax_k y_t(k)) for every sequence.

    log_probs: (B, T, C); lengths: (B,) frames to read (default all T).
    Returns B labels (lists of class indices, no blanks).
    """
    if not isinstance(log_probs, Tensor) or log_probs.dim() != 3:
        raise ValueError(
            f"log_probs must be (B, T, C); got {getattr(log_probs, 'shape', None)}"
        )
    best = log_probs.argmax(-1).cpu()  # (B, T)
    B, T = best.shape
    lengths = [T] * B if lengths is None else [int(n) for n in lengths]
    return [collapse(best[b, : lengths[b]].tolist(), blank) for b in range(B)]


def _check_beam(log_probs: Tensor, beam: int) -> None:
    if not isinstance(log_probs, Tensor) or log_probs.dim() != 2:
        shape = getattr(log_probs, "shape", None)
        raise ValueError(f"log_probs must be (T, C) for one utterance; got {shape}")
    if beam < 1:
        raise ValueError(f"beam must be >= 1; got {beam}")


def _add(nxt: dict, prefix: tuple, lp: float, *, ends_in_blank: bool) -> None:
    """Add the paths of log-probability ``lp`` to ``prefix``'s p_b or its p_nb."""
    b, nb = nxt[prefix]
    nxt[prefix] = (_lse(b, lp), nb) if ends_in_blank else (b, _lse(nb, lp))


def extend_prefixes(
    beams: dict, frame: list[float], blank: int = 0, prune: float = -math.inf
) -> dict:
    """One frame of prefix beam search: every kept prefix ℓ, with (ln p_b, ln p_nb),
    extended by every class k whose ln y_t(k) is at least ``prune``.

    beams: {prefix: (ln p_b, ln p_nb)}; frame: C log-probabilities. Returns the same
    kind of dict for the next frame, with paths that reach the same prefix merged.
    """
    nxt: dict = defaultdict(lambda: (_NEG, _NEG))
    for prefix, (pb, pnb) in beams.items():
        total = _lse(pb, pnb)
        for k, lp in enumerate(frame):
            if lp < prune:
                continue
            if k == blank:  # ℓ stays ℓ and now ends in a blank
                _add(nxt, prefix, total + lp, ends_in_blank=True)
            elif prefix and k == prefix[-1]:  # a repeat without a blank merges: ℓ
                _add(nxt, prefix, pnb + lp, ends_in_blank=False)
                # after a blank, the repeat is a new symbol
                _add(nxt, prefix + (k,), pb + lp, ends_in_blank=False)
            else:
                _add(nxt, prefix + (k,), total + lp, ends_in_blank=False)
    return nxt


def prefix_beam_search(
    log_probs: Tensor, beam: int = 8, blank: int = 0, prune: float = -math.inf
) -> list[tuple[tuple[int, ...], float]]:
    """Prefix beam search over one utterance (Hannun et al., 2014, Algorithm 1, no LM).

    log_probs: (T, C) log-probabilities; beam: prefixes kept per frame; prune: skip
    classes whose ln y_t(k) is below this (−inf keeps all). Returns up to ``beam`` pairs
    (prefix, ln p(prefix | x) over the paths kept), best first.
    """
    _check_beam(log_probs, beam)
    y = log_probs.detach().double().cpu().tolist()  # T lists of C floats
    beams = {(): (0.0, _NEG)}  # prefix -> (ln p_b, ln p_nb)
    for frame in y:
        nxt = extend_prefixes(beams, frame, blank, prune)
        ranked = sorted(nxt.items(), key=lambda kv: -_lse(*kv[1]))
        beams = dict(ranked[:beam])  # the k most probable prefixes
    out = [(prefix, _lse(pb, pnb)) for prefix, (pb, pnb) in beams.items()]
    return sorted(out, key=lambda kv: -kv[1])


def brute_force_best(
    log_probs: Tensor, blank: int = 0
) -> tuple[tuple[int, ...], float]:
    """The most probable label of a tiny (T, C) output and its ln p(label | x), by
    enumerating all C^T paths and summing, per label, the paths that collapse to it.

    For checking decoders on toy outputs only (T ≤ ~8).
    """
    T, C = log_probs.shape
    scores: dict = {}
    for p in itertools.product(range(C), repeat=T):
        lab = tuple(collapse(p, blank))
        s = sum(log_probs[t, k].item() for t, k in enumerate(p))
        scores[lab] = np.logaddexp(scores.get(lab, -np.inf), s)
    return max(scores.items(), key=lambda kv: kv[1])


def edit_distance(a: list[int] | str, b: list[int] | str) -> int:
    """Levenshtein distance: the fewest substitutions, insertions and deletions a → b."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def error_rate(hypotheses: list, references: list) -> float:
    """Σ edit_distance(hyp, ref) / Σ len(ref): the digit (or word, character) error rate."""
    if len(hypotheses) != len(references) or not references:
        raise ValueError(
            f"need one hypothesis per reference (and at least one); got "
            f"{len(hypotheses)} and {len(references)}"
        )
    total = sum(len(r) for r in references)
    if total == 0:
        raise ValueError("the references are all empty: an error rate needs symbols")
    return sum(edit_distance(h, r) for h, r in zip(hypotheses, references)) / total

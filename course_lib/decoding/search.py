r"""Greedy decoding and batched beam search with length normalisation. Chapters 5, 7, 8, 9.

CS224N lecture 7; *Sequence Models* week 3. A model gives P(y | x) = Π_t P(y_t | y_<t, x);
we want ŷ = argmax_y P(y | x). Exhaustive search would score all V^{T_y} outputs of length
T_y: O(V^{T_y}), exponential in the length (not O(T_y), as some notes write). Greedy decoding
takes the argmax at every step. Beam search keeps the K best partial hypotheses by the *sum*
of log-probabilities, log P(y_1..y_t | x) = Σ_t log P(y_t | y_<t, x) (a product of
probabilities underflows), and ranks finished hypotheses by the lecture's length-normalised

    score(y) = log P(y | x) / |y|^α          (|y| counts <eos>; α = 0: no normalising)

with α = ``ALPHA`` = 0.7 by default, the top of the range 0.6–0.7 that Wu et al. (2016, §7)
found best for their length penalty. Each step takes the top 2K of the K·V extensions; an
<eos> among the top K finishes a hypothesis, and the K best without <eos> live on (the rule
of fairseq's generator, Ott et al., 2019). A sentence is done when K hypotheses have
finished; at ``max_len`` the live ones are returned unfinished. All sentences and beams run
as one batch of B·K rows, and the rows of finished sentences are dropped as they go.

Any model with ``step`` and ``reorder`` (:mod:`course_lib.decoding.protocol`) is decoded.
Shape legend: B sentences, K beam width, V vocabulary, P prompt length, t step.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor, nn

from course_lib.checks import InputError, NotFiniteError, check_id
from course_lib.decoding.protocol import (
    Decodable,
    as_prompt,
    check_decodable,
    check_log_probs,
    reorder_state,
)
from course_lib.training import evaluating

__all__ = [
    "ALPHA",
    "Hypothesis",
    "beam_search",
    "feed_prompt",
    "generate",
    "greedy_decode",
    "normalised_score",
]

ALPHA = 0.7
_NEVER_STOPS = "; decoding could never stop at it: pass the <eos> id"


@dataclass
class Hypothesis:
    """One output: the new token ids (no prompt, no <eos>), log P(y | x), the normalised
    score, and whether it ended with <eos>."""

    tokens: list[int]
    log_prob: float
    score: float
    finished: bool

    @property
    def length(self) -> int:
        """|y|: the generated tokens, <eos> included when the hypothesis finished."""
        return len(self.tokens) + int(self.finished)


def normalised_score(log_prob: float | Tensor, length: int | Tensor, alpha: float):
    """log P(y | x) / length^α (α = 0: the plain log-probability)."""
    return log_prob / (length**alpha)


def _eval_mode(model: Any):
    """Eval mode for a torch model (restored afterwards); nothing for an n-gram model."""
    return (
        evaluating(model) if isinstance(model, nn.Module) else contextlib.nullcontext()
    )


def _check_max_len(max_len: int) -> None:
    if not isinstance(max_len, int) or isinstance(max_len, bool) or max_len < 1:
        raise InputError(
            f"max_len must be a positive int (output tokens); got {max_len!r}"
        )


def _check_search(beam_size: int, n_best: int, max_len: int) -> None:
    _check_beam(beam_size, n_best)
    _check_max_len(max_len)


def _check_beam(beam_size: int, n_best: int) -> None:
    if not isinstance(beam_size, int) or beam_size < 1:
        raise InputError(f"beam_size must be an int >= 1; got {beam_size!r}")
    if not isinstance(n_best, int) or not 1 <= n_best <= beam_size:
        raise InputError(
            f"n_best must be an int in 1..beam_size={beam_size}; got {n_best!r}"
        )


def feed_prompt(model: Decodable, prompt: Any, state: Any = None) -> tuple[Tensor, Any]:
    """Run ``step`` over the prompt (B, P), column by column; return the log-probabilities
    (B, V) of the first new token and the state after the prompt."""
    check_decodable(model)
    prompt = as_prompt(prompt)  # (B, P)
    B = prompt.size(0)
    try:
        for t in range(prompt.size(1)):
            log_p, state = model.step(prompt[:, t], state)  # (B, V)
            check_log_probs(log_p, B)
    except (RuntimeError, IndexError, ValueError) as err:
        raise InputError(
            f"{type(model).__name__}.step failed on a prompt of {B} rows ({err}); "
            "the state must hold one row per prompt row, and every id must be in "
            "the vocabulary"
        ) from err
    return log_p, state


@torch.no_grad()
def generate(
    model: Decodable,
    prompt: Any,
    state: Any,
    choose: Callable[[Tensor], Tensor],
    *,
    eos: int | None,
    max_len: int,
    alpha: float = ALPHA,
) -> list[Hypothesis]:
    """The loop of greedy decoding and sampling: feed the prompt (B, P), then
    y_t = choose(log P(· | y_<t)) for every row, feed y_t back, until <eos> or
    ``max_len``.

    choose: (B, V) log-probabilities -> (B,) token ids (argmax, or a draw).
    Returns B hypotheses; ``log_prob`` sums the model's log P of the chosen tokens.
    """
    _check_max_len(max_len)
    with _eval_mode(model):
        log_p, state = feed_prompt(model, prompt, state)  # (B, V)
        _check_eos(eos, log_p.size(-1))
        total = log_p.new_zeros(log_p.size(0), dtype=torch.float64)  # (B,)
        done = torch.zeros_like(total, dtype=torch.bool)  # (B,)
        steps = []
        for t in range(max_len):
            y = choose(log_p)  # (B,)
            gain = log_p.gather(1, y[:, None]).squeeze(1).double()  # (B,)
            total += gain.masked_fill(done, 0.0)  # rows already ended add nothing
            steps.append(y)
            if eos is not None:
                done |= y == eos
            if bool(done.all()) or t == max_len - 1:
                break
            log_p, state = _step(model, y, state)  # (B, V)
    totals = total.tolist()
    _check_not_nan(model, totals)
    return [
        _hypothesis(row, lp, eos, alpha)
        for row, lp in zip(torch.stack(steps, 1).tolist(), totals, strict=True)
    ]


def _check_eos(eos: int | None, V: int) -> None:
    """``eos`` (None: no end token) must be an id the model can produce."""
    if eos is not None:
        check_id(eos, V, "eos", _NEVER_STOPS)


def _check_not_nan(model: Decodable, log_probs: list[float], rows: str = "") -> None:
    """NaN log-probabilities mean a broken model, not a result."""
    bad = [i for i, lp in enumerate(log_probs) if math.isnan(lp)]
    if bad:
        raise NotFiniteError(
            f"{type(model).__name__}.step gave NaN log-probabilities "
            f"({rows or f'rows {bad[:8]}'}): the model holds a NaN weight, or got a "
            "NaN input; check torch.isfinite(p).all() for its parameters p"
        )


def _step(model: Decodable, y: Tensor, state: Any) -> tuple[Tensor, Any]:
    """One step on the tokens y (N,): the checked log-probabilities (N, V), the state."""
    log_p, state = model.step(y, state)  # (N, V)
    return check_log_probs(log_p, y.numel()), state


def _hypothesis(row: list[int], log_prob: float, eos: int | None, alpha: float):
    """A generated row cut at its first <eos> (dropped, and marking it finished)."""
    finished = eos is not None and eos in row
    tokens = row[: row.index(eos)] if finished else row
    length = len(tokens) + int(finished)
    return Hypothesis(
        tokens, log_prob, normalised_score(log_prob, length, alpha), finished
    )


def greedy_decode(
    model: Decodable,
    prompt: Any,
    state: Any = None,
    *,
    eos: int,
    max_len: int = 50,
    alpha: float = ALPHA,
) -> list[Hypothesis]:
    """ŷ_t = argmax_y log P(y | ŷ_<t, x) for every row, until <eos> or ``max_len`` tokens.

    prompt (B, P): the tokens fed first (<bos> for a translation model); state: the model's
    state before the prompt (the encoder's output, or None for a language model).
    Returns B hypotheses.
    """
    argmax = lambda log_p: log_p.argmax(-1)  # noqa: E731
    return generate(model, prompt, state, argmax, eos=eos, max_len=max_len, alpha=alpha)


class _Beams:
    """The bookkeeping of batched beam search: scores, prefixes, finished lists."""

    def __init__(self, B: int, K: int, device: torch.device) -> None:
        self.K, self.device = K, device
        self.scores = torch.full(
            (B, K), float("-inf"), dtype=torch.float64, device=device
        )
        self.scores[:, 0] = 0.0  # all K copies start equal: expand only the first
        self.tokens = torch.empty(B * K, 0, dtype=torch.long, device=device)  # (B·K, t)
        self.live = list(range(B))  # the sentence of each group of K rows
        self.finished: list[list[Hypothesis]] = [[] for _ in range(B)]
        self.nan = torch.zeros((), dtype=torch.bool, device=device)  # NaN seen

    def finish(
        self, top: Tensor, parent: Tensor, token: Tensor, eos: int, t: int, alpha: float
    ) -> None:
        """Set aside each <eos> extension ranked in the top K of its sentence."""
        self.nan |= torch.isnan(top).any()  # a NaN sorts first: it is in the top
        in_top_k = torch.arange(top.size(1), device=self.device) < self.K  # (2K,)
        ended = (token == eos) & in_top_k & torch.isfinite(top)  # (nb, 2K)
        for r, j in ended.nonzero().tolist():
            prefix = self.tokens[r * self.K + int(parent[r, j])].tolist()
            lp = float(top[r, j])
            self.finished[self.live[r]].append(
                Hypothesis(prefix, lp, normalised_score(lp, t, alpha), True)
            )

    def advance(self, top: Tensor, parent: Tensor, token: Tensor, eos: int):
        """Keep the K best extensions without <eos>; drop sentences with K finished.

        Returns the rows of the state to keep (nb'·K,) and their new tokens (nb'·K,).
        """
        K, nb = self.K, top.size(0)
        alive = top.masked_fill(token == eos, float("-inf"))  # (nb, 2K)
        keep = alive.topk(K, dim=1).indices  # (nb, K)
        base = torch.arange(nb, device=self.device)[:, None] * K  # (nb, 1)
        rows = base + parent.gather(1, keep)  # (nb, K) rows of the state
        y = token.gather(1, keep)  # (nb, K)
        self.scores = alive.gather(1, keep)  # (nb, K)
        self.tokens = torch.cat([self.tokens[rows.view(-1)], y.view(-1, 1)], dim=1)
        groups = [g for g, b in enumerate(self.live) if len(self.finished[b]) < K]
        if len(groups) < nb:  # sentences with K finished hypotheses leave the batch
            sel = torch.tensor(groups, dtype=torch.long, device=self.device)  # (nb',)
            rows, y, self.scores = rows[sel], y[sel], self.scores[sel]
            self.tokens = self.tokens.view(nb, K, -1)[sel].flatten(0, 1)
            self.live = [self.live[g] for g in groups]
        return rows.view(-1), y.view(-1)  # (nb'·K,) each

    def close(self, max_len: int, alpha: float) -> None:
        """At ``max_len``: the live hypotheses join the finished ones, unfinished."""
        for g, b in enumerate(self.live):
            for j, lp in enumerate(self.scores[g].tolist()):
                if lp > float("-inf"):
                    row = self.tokens[g * self.K + j].tolist()
                    score = normalised_score(lp, max_len, alpha)
                    self.finished[b].append(Hypothesis(row, lp, score, False))

    def best(self, n_best: int, model: Decodable) -> list[list[Hypothesis]]:
        """Each sentence's ``n_best`` hypotheses; an error if a NaN score was seen."""
        _check_not_nan(model, [math.nan] if bool(self.nan) else [], "in the beams")
        return [sorted(h, key=lambda x: -x.score)[:n_best] for h in self.finished]


def _start_beams(model: Decodable, prompt: Any, state: Any, K: int, eos: int):
    """Feed the prompt, then give every row K copies: (beams, log_p (B·K, V), state)."""
    log_p, state = feed_prompt(model, prompt, state)  # (B, V)
    B, V = log_p.shape
    check_id(eos, V, "eos", _NEVER_STOPS)  # beam search needs an end token
    if K > V:
        raise InputError(f"beam_size {K} is above the vocabulary size {V}")
    copies = torch.arange(B, device=log_p.device).repeat_interleave(K)  # (B·K,)
    state = reorder_state(model, state, copies, B)  # B·K rows
    return _Beams(B, K, log_p.device), log_p[copies].double(), state  # (B·K, V)


@torch.no_grad()
def beam_search(
    model: Decodable,
    prompt: Any,
    state: Any = None,
    *,
    eos: int,
    beam_size: int = 4,
    max_len: int = 50,
    alpha: float = ALPHA,
    n_best: int = 1,
) -> list[list[Hypothesis]]:
    """Batched beam search: every row's ``n_best`` hypotheses, best first.

    ``beam_size=1`` is greedy decoding. prompt (B, P) and state as for
    :func:`greedy_decode`.
    """
    _check_search(beam_size, n_best, max_len)
    K = beam_size
    with _eval_mode(model):
        beams, log_p, state = _start_beams(model, prompt, state, K, eos)  # B·K rows
        for t in range(1, max_len + 1):
            nb, V = len(beams.live), log_p.size(-1)
            scores = beams.scores[:, :, None] + log_p.view(nb, K, V)  # (nb, K, V)
            top, idx = scores.view(nb, K * V).topk(min(2 * K, K * V))  # (nb, 2K)
            parent, token = idx // V, idx % V  # (nb, 2K): which beam, which token
            beams.finish(top, parent, token, eos, t, alpha)  # <eos> in the top K
            rows, y = beams.advance(top, parent, token, eos)  # the K best live ones
            if not beams.live or t == max_len:
                break
            state = reorder_state(model, state, rows, nb * K)
            log_p, state = _step(model, y, state)  # (nb'·K, V)
            log_p = log_p.double()  # (nb'·K, V): scores are summed in float64
    beams.close(max_len, alpha)  # still live at max_len: returned unfinished
    return beams.best(n_best, model)

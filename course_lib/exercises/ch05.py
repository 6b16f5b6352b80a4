"""Chapter 5 exercises (language models and RNNs): perplexity, batching, an RNN step and
backpropagation through it; and the chapter's questions.

References: ``course_lib.lm`` (``perplexity``, ``batchify``) and ``course_lib.rnn.RNNCell``
(its backward step by autograd).
"""

from __future__ import annotations

import math

import torch

from course_lib.exercises.core import Case, Exercise, Mistake, register
from course_lib.exercises.quiz import Question, register_questions
from course_lib.lm.perplexity import perplexity
from course_lib.lm.rnn_lm import batchify
from course_lib.rnn.rnn_cell import RNNCell


def _log_prob_cases(gen):
    cases = []
    for i in range(4):
        p = torch.rand(3 + 2 * i, generator=gen, dtype=torch.float64) * 0.9 + 0.05
        cases.append(Case((p.log().tolist(),), label=f"random {i}"))
    cases.append(
        Case(([math.log(0.25)] * 4,), label="edge: uniform over 4 words (perplexity 4)")
    )
    cases.append(Case(([-1.0, -math.inf],), label="edge: a token of probability 0"))
    return cases


def _batch_cases(gen):
    cases = []
    for i, (L, B) in enumerate([(12, 3), (23, 4), (10, 5), (9, 2)]):
        cases.append(
            Case((torch.randint(0, 50, (L,), generator=gen), B), label=f"random {i}")
        )
    return cases


def _rnn_step(x, h, W_xh, W_hh, b_h):
    cell = RNNCell(W_xh.size(0), W_xh.size(1), dtype=W_xh.dtype)
    with torch.no_grad():
        cell.W_xh.copy_(W_xh)
        cell.W_hh.copy_(W_hh)
        cell.b_h.copy_(b_h)
        return cell(x, (h,))[0]  # (B, H)


def _rnn_cases(gen):
    cases = []
    for i, (B, D, H) in enumerate([(2, 3, 4), (1, 5, 2), (3, 4, 4)]):
        x = torch.randn(B, D, generator=gen, dtype=torch.float64)
        h = torch.randn(B, H, generator=gen, dtype=torch.float64)
        W_xh = torch.randn(D, H, generator=gen, dtype=torch.float64) * 0.5
        W_hh = torch.randn(H, H, generator=gen, dtype=torch.float64) * 0.5
        b_h = torch.randn(H, generator=gen, dtype=torch.float64) * 0.1
        cases.append(
            Case((x, h, W_xh, W_hh, b_h), label=f"random {i} (B={B}, D={D}, H={H})")
        )
    return cases


def _rnn_step_backward(x, h, W_xh, W_hh, b_h, dh):
    """Autograd through the library's cell: the gradients of L, given dh = ∂L/∂H_t."""
    cell = RNNCell(W_xh.size(0), W_xh.size(1), dtype=W_xh.dtype)
    with torch.no_grad():
        cell.W_xh.copy_(W_xh)
        cell.W_hh.copy_(W_hh)
        cell.b_h.copy_(b_h)
    h_prev = h.clone().requires_grad_()  # (B, H)
    with torch.enable_grad():
        h_t, _ = cell(x, (h_prev,))  # (B, H)
        wrt = (h_prev, cell.W_xh, cell.W_hh, cell.b_h)
        return torch.autograd.grad(h_t, wrt, grad_outputs=dh)  # dh_prev, dW_xh, ...


def _backward_cases(gen):
    cases = []
    for case in _rnn_cases(gen):
        B, H = case.args[1].shape
        dh = torch.randn(B, H, generator=gen, dtype=torch.float64)
        cases.append(Case((*case.args, dh), label=case.label))
    return cases


def _backward(dz, x, h, W_hh):
    """The four gradients from ∂L/∂Z_t, as the chapter writes them."""
    return dz @ W_hh.T, x.T @ dz, h.T @ dz, dz.sum(0)


def _no_tanh_derivative(x, h, W_xh, W_hh, b, dh):
    return _backward(dh, x, h, W_hh)


def _derivative_at_h_prev(x, h, W_xh, W_hh, b, dh):
    return _backward(dh * (1 - h**2), x, h, W_hh)


def _w_hh_transposed(x, h, W_xh, W_hh, b, dh):
    dz = dh * (1 - torch.tanh(x @ W_xh + h @ W_hh + b) ** 2)
    dh_prev, dW_xh, dW_hh, db = _backward(dz, x, h, W_hh)
    return dh_prev, dW_xh, dW_hh.T, db


def _h_prev_through_w_hh(x, h, W_xh, W_hh, b, dh):
    dz = dh * (1 - torch.tanh(x @ W_xh + h @ W_hh + b) ** 2)
    dh_prev, dW_xh, dW_hh, db = _backward(dz, x, h, W_hh)
    return dz @ W_hh, dW_xh, dW_hh, db


register(
    Exercise(
        "ch05.perplexity",
        "perplexity(log_probs: list[float]) -> float",
        perplexity,
        _log_prob_cases,
        "exp of the mean negative natural-log probability per token; inf if a token has P = 0.",
        (
            Mistake(
                "the log-probabilities are summed, not averaged",
                lambda lp: math.exp(-sum(lp)),
            ),
            Mistake(
                "2 is raised to the power instead of e",
                lambda lp: 2 ** (-sum(lp) / len(lp)),
            ),
        ),
    ),
    Exercise(
        "ch05.batchify",
        "batchify(ids: (L,), batch_size: int) -> (B, L // B)",
        batchify,
        _batch_cases,
        "Row b is the b-th contiguous slice of the stream; drop the last L mod B tokens.",
        (
            Mistake(
                "the rows interleave the stream (reshape(-1, B).T)",
                lambda ids, B: ids[: len(ids) // B * B].reshape(-1, B).T,
            ),
        ),
    ),
    Exercise(
        "ch05.rnn_step",
        "rnn_step(x: (B, D), h: (B, H), W_xh: (D, H), W_hh: (H, H), b_h: (H,)) -> (B, H)",
        _rnn_step,
        _rnn_cases,
        "H_t = tanh(X_t W_xh + H_{t−1} W_hh + b_h), row vectors as in the chapter.",
        (
            Mistake(
                "W_hh is transposed (H_{t−1} W_hhᵀ)",
                lambda x, h, W_xh, W_hh, b: torch.tanh(x @ W_xh + h @ W_hh.T + b),
            ),
            Mistake(
                "the bias is left out",
                lambda x, h, W_xh, W_hh, b: torch.tanh(x @ W_xh + h @ W_hh),
            ),
        ),
        rtol=1e-6,
        atol=1e-10,
    ),
    Exercise(
        "ch05.bptt_step",
        "rnn_step_backward(x, h, W_xh, W_hh, b_h, dh: (B, H)) -> "
        "(dh_prev (B, H), dW_xh (D, H), dW_hh (H, H), db_h (H,))",
        _rnn_step_backward,
        _backward_cases,
        "dZ = dH ⊙ (1 − H_t²) with H_t = tanh(X W_xh + H_{t−1} W_hh + b_h); then "
        "dH_{t−1} = dZ W_hhᵀ, dW_xh = Xᵀ dZ, dW_hh = H_{t−1}ᵀ dZ, db_h = Σ_batch dZ.",
        (
            Mistake("the tanh derivative is left out (dZ = dH)", _no_tanh_derivative),
            Mistake(
                "tanh' is taken at H_{t−1}, not at H_t (dZ = dH ⊙ (1 − H_{t−1}²))",
                _derivative_at_h_prev,
            ),
            Mistake("dW_hh is transposed (dZᵀ H_{t−1})", _w_hh_transposed),
            Mistake(
                "dH_{t−1} goes back through W_hh, not W_hhᵀ (dZ W_hh)",
                _h_prev_through_w_hh,
            ),
        ),
        rtol=1e-6,
        atol=1e-10,
    ),
)

register_questions(
    Question(
        "ch05.trigram_context",
        "A 3-gram language model estimates the probability of $x_t$ from which words?",
        answer="b",
        explanation="An n-gram is n consecutive words: the predicted one and the n − 1 "
        "before it, so a 3-gram conditions on $x_{t-2}, x_{t-1}$.",
        choices={
            "a": "$x_{t-1}$ only",
            "b": "$x_{t-2}$ and $x_{t-1}$",
            "c": "$x_{t-3}$, $x_{t-2}$ and $x_{t-1}$",
        },
        wrong={
            "a": "One word of context is a bigram: the 3 counts the predicted word too.",
            "c": "Three words of context make a 4-gram; the n of n-gram includes $x_t$.",
        },
    ),
    Question(
        "ch05.addk_numerator_only",
        "A bigram context $h$ was seen $c(h) = 50$ times and the vocabulary has "
        "$V = 1000$ words. If you add $k = 1$ to every count $c(h\\,w)$ but keep the "
        "denominator $c(h)$, what do the $V$ probabilities after $h$ add up to?",
        answer=21.0,
        explanation="The counts after h add up to c(h) = 50, and every one of the 1000 "
        "words gets 1 more: (50 + 1000) / 50 = 21. Add-k divides by c(h) + kV = 1050 "
        "instead, so that the sum is 1.",
        wrong={
            1.0: "That is add-k with its denominator grown by kV; here it was kept at "
            "c(h), and the 1000 extra counts are not divided away.",
            1.02: "That adds k once; every one of the V words gets k, so the sum grows by "
            "kV / c(h) = 20, not by 1/50.",
        },
    ),
    Question(
        "ch05.jacobian_product",
        "A tanh RNN has $W_h = 0.5\\,I$ and states so close to 0 that "
        "$\\tanh' \\approx 1$. By what factor is the gradient from the loss at step 20 "
        "scaled when it reaches $h^{(10)}$?",
        answer=0.5**10,
        explanation="From $h^{(20)}$ back to $h^{(10)}$ are 10 factors "
        "$\\partial h^{(j)}/\\partial h^{(j-1)} = \\mathrm{diag}(1 - h^{(j)2}) W_h "
        "\\approx 0.5 I$, so the gradient is scaled by $0.5^{10} \\approx 0.001$.",
        wrong={
            0.5
            ** 20: "That counts 20 factors, back to the start; from step 20 to step 10 "
            "there are 10.",
            5.0: "The Jacobians multiply, they do not add: 0.5 ten times over, not "
            "10 × 0.5.",
            0.5
            ** 11: "From step 20 to step 10 are 10 transitions, $j = 11, \\dots, 20$, "
            "not 11.",
        },
    ),
    Question(
        "ch05.shared_weights",
        "An RNN language model trained on 10-word sentences is asked to score a "
        "1,000-word text. What does that change in its parameters?",
        answer="b",
        explanation="The same $W_h$, $W_e$ and $b$ serve every step, so a sequence of "
        "any length runs on the same parameters; only the computation grows with T.",
        choices={
            "a": "it needs 100 times as many recurrent matrices, one per step",
            "b": "nothing: the same weights are applied at every step",
            "c": "its hidden state must grow to hold 1,000 words",
        },
        wrong={
            "a": "A matrix per step would tie the model to one length; the RNN shares "
            "one $W_h$ across time.",
            "c": "The state has a fixed width H at every step: it summarises the words "
            "read so far, however many.",
        },
    ),
    Question(
        "ch05.truncated_bptt",
        "Truncated BPTT with windows of 35 steps carries the hidden state from one "
        "window to the next but detaches it. What does that mean?",
        answer="b",
        explanation="The state passed on still holds what the earlier windows read, so "
        "the model can use more than 35 words; the gradient stops at the window's "
        "start, so it is trained to use at most 35 steps of it.",
        choices={
            "a": "the model never uses more than the last 35 words",
            "b": "gradients reach at most 35 steps back, while the state can carry "
            "information from further back",
            "c": "each window starts again from a zero state",
        },
        wrong={
            "a": "Detaching cuts the gradient, not the state: the carried state holds "
            "what all earlier windows read.",
            "c": "That would be training without carrying the state; here it is carried "
            "over, only its graph is cut.",
        },
    ),
)

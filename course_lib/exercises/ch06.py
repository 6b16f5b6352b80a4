"""Chapter 6 exercises (LSTM and GRU): one LSTM step, one GRU step, reversing padded batches.

References: ``course_lib.rnn`` (``LSTMCell``, ``GRUCell(reset_after=False)``, ``reverse_padded``).
"""

from __future__ import annotations

import torch

from course_lib.exercises.core import Case, Exercise, Mistake, register
from course_lib.exercises.quiz import Question, register_questions
from course_lib.rnn.gru import GRUCell
from course_lib.rnn.lstm import LSTMCell
from course_lib.rnn.stacked import reverse_padded


def _load(cell, W_ih, W_hh, b):
    with torch.no_grad():
        cell.load_torch_parameters(
            {
                "weight_ih": W_ih,
                "weight_hh": W_hh,
                "bias_ih": b,
                "bias_hh": torch.zeros_like(b),
            }
        )
    return cell


def _lstm_step(x, h, c, W_ih, W_hh, b):
    cell = _load(LSTMCell(x.size(1), h.size(1), dtype=x.dtype), W_ih, W_hh, b)
    with torch.no_grad():
        _, (h_t, c_t) = cell(x, (h, c))
    return (h_t, c_t)


def _gru_step(x, h, W_ih, W_hh, b):
    cell = _load(
        GRUCell(x.size(1), h.size(1), reset_after=False, dtype=x.dtype), W_ih, W_hh, b
    )
    with torch.no_grad():
        return cell(x, (h,))[0]  # (B, H)


def _step_cases(blocks, with_c):
    def cases(gen):
        out = []
        for i, (B, D, H) in enumerate([(2, 3, 4), (1, 2, 3), (3, 4, 2)]):

            def r(*shape, scale=1.0):
                return torch.randn(*shape, generator=gen, dtype=torch.float64) * scale

            state = (r(B, H), r(B, H)) if with_c else (r(B, H),)
            weights = (
                r(blocks * H, D, scale=0.5),
                r(blocks * H, H, scale=0.5),
                r(blocks * H, scale=0.1),
            )
            out.append(
                Case(
                    (r(B, D), *state, *weights),
                    label=f"random {i} (B={B}, D={D}, H={H})",
                )
            )
        return out

    return cases


def _lstm_parts(x, h, W_ih, W_hh, b):
    return (x @ W_ih.T + h @ W_hh.T + b).chunk(4, dim=1)  # 4 × (B, H): i, f, g, o


def _lstm_no_forget(x, h, c, W_ih, W_hh, b):
    i, f, g, o = _lstm_parts(x, h, W_ih, W_hh, b)
    c_t = c + torch.sigmoid(i) * torch.tanh(g)
    return (torch.sigmoid(o) * torch.tanh(c_t), c_t)


def _lstm_no_tanh(x, h, c, W_ih, W_hh, b):
    i, f, g, o = _lstm_parts(x, h, W_ih, W_hh, b)
    c_t = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    return (torch.sigmoid(o) * c_t, c_t)


def _gru_swapped(x, h, W_ih, W_hh, b):
    H = h.size(1)
    gi = x @ W_ih.T + b  # (B, 3H)
    r = torch.sigmoid(gi[:, :H] + h @ W_hh[:H].T)
    z = torch.sigmoid(gi[:, H : 2 * H] + h @ W_hh[H : 2 * H].T)
    n = torch.tanh(gi[:, 2 * H :] + (r * h) @ W_hh[2 * H :].T)
    return z * n + (1 - z) * h  # (B, H): z and 1 − z exchanged


def _reverse_cases(gen):
    cases = []
    for i, (B, T) in enumerate([(3, 5), (2, 4), (4, 6)]):
        x = torch.randn(B, T, 2, generator=gen, dtype=torch.float64)
        lengths = torch.randint(1, T + 1, (B,), generator=gen)
        lengths[0] = T
        cases.append(Case((x, lengths), label=f"random {i}"))
    return cases


register(
    Exercise(
        "ch06.lstm_step",
        "lstm_step(x, h, c, W_ih: (4H, D), W_hh: (4H, H), b: (4H,)) -> (h_t, c_t)",
        _lstm_step,
        _step_cases(4, True),
        "Gate blocks in the order i, f, g, o (torch's); C_t = F⊙C_{t−1} + I⊙C̃, H_t = O⊙tanh(C_t).",
        (
            Mistake(
                "the forget gate is left out (C_t = C_{t−1} + I⊙C̃)", _lstm_no_forget
            ),
            Mistake("H_t = O⊙C_t, without the tanh", _lstm_no_tanh),
        ),
        rtol=1e-6,
        atol=1e-10,
    ),
    Exercise(
        "ch06.gru_step",
        "gru_step(x, h, W_ih: (3H, D), W_hh: (3H, H), b: (3H,)) -> h_t",
        _gru_step,
        _step_cases(3, False),
        "Blocks r, z, n; h̃ = tanh(x W_inᵀ + b_n + (r⊙h) W_hnᵀ); h_t = (1 − z)⊙h̃ + z⊙h.",
        (Mistake("z and 1 − z are exchanged", _gru_swapped),),
        rtol=1e-6,
        atol=1e-10,
    ),
    Exercise(
        "ch06.reverse_padded",
        "reverse_padded(x: (B, T, ...), lengths: (B,)) -> (B, T, ...)",
        reverse_padded,
        _reverse_cases,
        "Reverse only the first lengths[b] steps of row b; the padding stays where it is.",
        (
            Mistake(
                "the padding is reversed too (the mask is forgotten)",
                lambda x, lengths: x.flip(1),
            ),
        ),
    ),
)

register_questions(
    Question(
        "ch06.exploding",
        "An LSTM language model's loss jumps to NaN after a few hundred steps, and the "
        "gradient norm printed just before is 10⁶. Which change addresses the cause?",
        answer="b",
        explanation="Gates make it easy to keep information (the cell's path is a product of "
        "forget gates, not of W_hh), which mitigates vanishing; nothing in them bounds a "
        "gradient that grows. Clipping the norm bounds every step.",
        choices={
            "a": "initialise the forget gate's bias at 1",
            "b": "clip the gradient's norm (say at 1 or 5) before each step",
            "c": "replace the LSTM by a GRU, which has fewer gates",
        },
        wrong={
            "a": "A forget bias of 1 keeps the cell's memory at the start of training: it "
            "acts against vanishing, and makes an exploding gradient no smaller.",
            "c": "A GRU's gates work like the LSTM's: they help keep information, and bound "
            "no gradient.",
        },
    ),
    Question(
        "ch06.lstm_parameters",
        "How many parameters has `torch.nn.LSTM(input_size=10, hidden_size=20)` (one "
        "layer, torch's two bias vectors)?",
        answer=2560,
        explanation="Four blocks (i, f, g, o), each with a 20 × 10 input matrix, a 20 × 20 "
        "recurrent matrix and two biases of 20: 4 · (200 + 400 + 40) = 2560.",
        wrong={
            2480: "That counts one bias per block; torch keeps b_ih and b_hh, 20 each.",
            640: "That is one block; the LSTM has four (input, forget, candidate, output).",
        },
    ),
    Question(
        "ch06.forget_product",
        "Along the memory cell, the input gate is 0 and the forget gate 0.9 at every step. "
        "What fraction of $C_0$ is left in $C_{10}$?",
        answer=0.9**10,
        explanation="$C_t = F_t \\odot C_{t-1}$ here, so $C_{10} = 0.9^{10} C_0 ≈ 0.349\\,C_0$: "
        "the gradient along the cell is the same product of forget gates.",
        wrong={
            0.1: "That is 1 − 0.9, one step's loss; the cell is multiplied by 0.9 ten times.",
            9.0: "The forget gates multiply, they do not add: 0.9 ten times over.",
        },
    ),
    Question(
        "ch06.gates_guarantee",
        "An LSTM is built with its forget-gate bias at 1. What do its gates guarantee "
        "about the gradient that reaches the input 100 steps before the loss?",
        answer="c",
        explanation="Nothing: they make it easy to keep information, not certain. Along "
        "the cell the gradient is a product of forget gates, below 1 unless training "
        "holds them there; measured at initialisation in this chapter it still falls "
        "geometrically, only far more slowly than in the vanilla RNN.",
        choices={
            "a": "it stays of the order of the gradient at the last input, since the "
            "cell's path is additive",
            "b": "it cannot explode, since every gate lies in (0, 1)",
            "c": "nothing: it is likely to be larger than a vanilla RNN's, and it can "
            "still vanish (or grow)",
        },
        wrong={
            "a": "The additive path keeps the gradient only where the forget gates are "
            "near 1; σ(1) ≈ 0.73 at the start, and a product of 100 such factors is tiny.",
            "b": "The gates bound their own values, not the gradient: the path through "
            "h_{t−1} and W_hh can grow, and clipping is what bounds it.",
        },
    ),
    Question(
        "ch06.gru_parameters",
        "How many parameters has `torch.nn.GRU(input_size=10, hidden_size=20)` (one "
        "layer, torch's two bias vectors)?",
        answer=1920,
        explanation="Three blocks (r, z, n), each with a 20 × 10 input matrix, a 20 × 20 "
        "recurrent matrix and two biases of 20: 3 · (200 + 400 + 40) = 1920, three "
        "quarters of the LSTM's 2560.",
        wrong={
            2560: "That is the LSTM, with four blocks; the GRU has three (r, z, n).",
            1860: "That counts one bias per block; torch keeps b_ih and b_hh, 20 each.",
        },
    ),
)

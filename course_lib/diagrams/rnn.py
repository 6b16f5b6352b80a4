"""Chapter 5's diagrams: the recurrent network unrolled over time, and the paths along
which backpropagation through time carries each step's loss back to the shared W_h.

Notation of the chapter (CS224N's column form): words x^(t), embeddings e^(t), states
h^(t), predictions ŷ^(t) = softmax(U h^(t) + b_2), step losses L_t, and one W_e, W_h, U
for every step.
"""

from __future__ import annotations

from course_lib.diagrams import diagram
from course_lib.diagrams.canvas import KINDS, Canvas

GRAD = KINDS["mark"][1]  # the gradients' colour: red, dashed


def _weight(canvas: Canvas, start, end, label: str, *, w=0.72) -> None:
    """An arrow from ``start`` to ``end`` with the parameter box ``label`` on its middle."""
    canvas.arrow(start, end)
    middle = ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)
    canvas.box(middle, label, kind="param", w=w, h=0.5)


@diagram(
    "rnn_unrolled",
    alt=(
        "The RNN language model unrolled over time. At every step t a word x^(t) is "
        "embedded as e^(t), the state h^(t) is computed from h^(t-1) and e^(t), the "
        "prediction y-hat^(t) from h^(t), and the loss L_t compares it with the next word. "
        "The orange boxes W_e, W_h and U repeat on every step, and they are the same three "
        "matrices, shared across time; h^(0) starts the chain."
    ),
)
def rnn_unrolled() -> Canvas:
    canvas = Canvas(13.6, 9.0)
    steps = [(3.3, "1"), (6.1, "2"), (8.9, "3"), (12.75, "T")]
    y_x, y_e, y_h, y_y, y_l = 0.45, 2.2, 4.1, 6.0, 7.65
    canvas.text(
        (6.8, 8.6),
        r"one $W_e$, one $W_h$, one $U$ (orange): the same at every step $t$",
    )
    canvas.text(  # teacher forcing: the target of step t is the next word
        (1.25, y_l - 0.3),
        "$L_t$: how well\n"
        r"$\hat y^{(t)}$ predicts"
        "\nthe next word,\n"
        r"$x^{(t+1)}$",
        size=10.5,
    )
    h0 = canvas.box((1.0, y_h), "$h^{(0)}$", w=1.2)
    previous = h0
    for x, t in steps:
        word = canvas.box((x, y_x), f"$x^{{({t})}}$", kind="io", w=1.2)
        e = canvas.box((x, y_e), f"$e^{{({t})}}$", w=1.2)
        h = canvas.box((x, y_h), f"$h^{{({t})}}$", w=1.2)
        y = canvas.box((x, y_y), rf"$\hat y^{{({t})}}$", w=1.2)
        loss = canvas.box((x, y_l), f"$L_{t}$", kind="mark", w=1.0)
        canvas.arrow(word, e, gap=(0.4, 0.4))
        _weight(canvas, e, h, "$W_e$")
        _weight(canvas, h, y, "$U$")
        canvas.arrow(y, loss, gap=(0.4, 0.4))
        if t == "T":  # the steps 4 .. T-1, left out
            dots = (10.5, y_h)
            canvas.text(dots, r"$\cdots$")
            canvas.arrow(previous, dots, gap=(0.6, 0.35))
            _weight(canvas, (dots[0] + 0.1, y_h), h, "$W_h$")
        else:
            _weight(canvas, previous, h, "$W_h$")
        previous = h
    return canvas


@diagram(
    "rnn_bptt",
    alt=(
        "Backpropagation through time in one window of T = 4 steps. The forward chain "
        "h^(0) to h^(4) is drawn in black. Red dashed arrows carry each loss L_t down to "
        "its state h^(t) as g^(t), then back along the chain, from each state to the one "
        "before it, as far as h^(0). From every state h^(k) a red arrow goes to step k's "
        "copy of W_h, and the four copies' gradients are added into dL/dW_h. h^(0) was "
        "carried over from the previous window detached, so no gradient goes back past it."
    ),
)
def rnn_bptt() -> Canvas:
    canvas = Canvas(13.6, 9.1)
    canvas.text(
        (6.8, 8.75),
        r"red, dashed: the gradient; each step back multiplies it by "
        r"$\partial h^{(j)} / \partial h^{(j-1)}$",
        colour=GRAD,
    )
    xs = [2.5, 5.0, 7.5, 10.0, 12.5]  # h^(0) .. h^(4)
    y_l, y_h, y_w, y_sum = 7.1, 4.6, 2.5, 0.6
    canvas.frame((3.55, 1.65), 10.0, 6.55, "one window of $T = 4$ steps", kind="layer")
    # the previous window: its last state is carried over, detached
    canvas.text((0.85, y_h + 0.8), "previous\nwindow", size=10.5, colour="#555555")
    canvas.text((0.45, y_h), r"$\cdots$")
    canvas.arrow((0.55, y_h), (xs[0], y_h), gap=(0.3, 0.65), dashed=True)
    canvas.text((1.2, y_h - 0.55), "detached", size=10.5, colour="#555555")
    states = []
    for k, x in enumerate(xs):
        states.append(canvas.box((x, y_h), f"$h^{{({k})}}$", w=1.2))
    for k in range(1, 5):
        x = xs[k]
        canvas.arrow(states[k - 1], states[k], gap=(0.65, 0.65))  # the forward step
        # the gradient flows back one step: times dh^(k)/dh^(k-1)
        canvas.arrow(
            states[k],
            states[k - 1],
            bend=0.45,
            gap=(0.55, 0.55),
            colour=GRAD,
            dashed=True,
        )
        loss = canvas.box((x, y_l), f"$L_{k}$", kind="mark", w=1.0)
        canvas.arrow(
            loss,
            states[k],
            f"$g^{{({k})}}$",
            gap=(0.35, 0.45),
            colour=GRAD,
            dashed=True,
            offset=(0.42, 0.0),
        )
        copy = canvas.box((x, y_w), "$W_h$", kind="param", w=0.9, h=0.55)
        canvas.arrow(states[k], copy, gap=(0.45, 0.32), colour=GRAD, dashed=True)
        canvas.arrow(copy, (x, y_sum), gap=(0.32, 0.4), colour=GRAD, dashed=True)
    canvas.text((2.45, y_w), "step $k$'s\ncopy of $W_h$", size=10.5, colour="#555555")
    canvas.box(
        (8.2, y_sum),
        r"$\partial L / \partial W_h$ = the sum of the four copies' gradients",
        kind="param",
        w=9.6,
        h=0.7,
    )
    return canvas

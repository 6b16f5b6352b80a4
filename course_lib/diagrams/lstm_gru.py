"""Chapter 6's diagrams: the LSTM cell and the GRU cell, gate by gate.

Notation of the chapter: the LSTM's gates F_t, I_t, O_t, its new content C̃_t, cell C_t and
state H_t = O_t ⊙ tanh(C_t), read from x_t and h_{t-1}; the GRU's update gate u_t, reset
gate r_t, candidate h̃_t and h_t = (1 - u_t) ⊙ h_{t-1} + u_t ⊙ h̃_t (the lecture's form).
Each cell reads x_t and h_{t-1} along one wire at the bottom (the *bus*) and carries its
memory along one wire at the top.
"""

from __future__ import annotations

from course_lib.diagrams import diagram
from course_lib.diagrams.canvas import KINDS, Canvas

R = 0.32  # an operation's radius
R_TANH = 0.42  # a tanh's, which holds a word
PARAM = KINDS["param"][1]  # the weights' names are written in the parameters' orange


def _read(canvas: Canvas, x: float, bus: float, gate, weights: str, r=R) -> None:
    """The arrow up from the bus to ``gate``, its weights named beside it."""
    canvas.arrow((x, bus), gate, gap=(0.0, r + 0.02))
    canvas.text(
        (x + 0.12, (bus + gate[1]) / 2), weights, size=10.5, colour=PARAM, ha="left"
    )


@diagram(
    "lstm_cell",
    alt=(
        "The LSTM cell. Along the bottom, h_{t-1} and x_t feed four units, three sigmoid "
        "gates F_t, I_t, O_t and a tanh that makes the new content C-tilde_t, each with its "
        "weights W and U. Along the top, the cell C_{t-1} is multiplied by F_t, then I_t "
        "times C-tilde_t is added, giving C_t. C_t also passes through a tanh and is "
        "multiplied by O_t, giving the state H_t."
    ),
)
def lstm_cell() -> Canvas:
    canvas = Canvas(13.6, 7.6)
    top, mid, gates, bus = 6.2, 4.6, 3.0, 1.5
    canvas.frame((2.45, 0.95), 8.75, 6.45, "LSTM cell")
    # the cell state: C_{t-1} -> x F_t -> + I_t C~_t -> C_t
    c_prev = canvas.box((0.9, top), "$C_{t-1}$", w=1.3)
    forget = canvas.op((3.3, top), r"$\times$")
    add = canvas.op((6.8, top), "$+$")
    c_t = canvas.box((12.6, top), "$C_t$", w=1.3)
    canvas.arrow(c_prev, forget, gap=(0.65, R))
    canvas.arrow(forget, add, gap=(R, R))
    canvas.text((5.05, top + 0.35), r"$F_t \odot C_{t-1}$", size=10.5)
    canvas.arrow(add, c_t, gap=(R, 0.65))
    # the inputs, on one bus
    canvas.box((0.9, bus), "$h_{t-1}$", w=1.3)
    x_t = canvas.box((1.75, 0.45), "$x_t$", w=1.0, h=0.65)
    canvas.line([(1.55, bus), (8.7, bus)])
    canvas.arrow(x_t, (x_t[0], bus), gap=(0.33, 0.0))
    # the three gates and the new content
    f = canvas.op((3.3, gates), r"$\sigma$")
    i = canvas.op((5.1, gates), r"$\sigma$")
    c_new = canvas.op((6.8, gates), "tanh", r=R_TANH, size=10.5)
    o = canvas.op((8.7, gates), r"$\sigma$")
    for gate, name in ((f, "f"), (i, "i"), (c_new, "c"), (o, "o")):
        r = R_TANH if name == "c" else R
        _read(canvas, gate[0], bus, gate, f"$W_{name}, U_{name}$", r)
    canvas.arrow(f, forget, "$F_t$", gap=(R, R), offset=(0.35, 0.0))
    write = canvas.op((6.8, mid), r"$\times$")
    canvas.arrow(i, write, "$I_t$", gap=(R, R), offset=(-0.25, 0.25))
    canvas.arrow(c_new, write, r"$\tilde C_t$", gap=(R_TANH, R), offset=(0.38, 0.0))
    canvas.arrow(write, add, gap=(R, R))
    # the state: H_t = O_t * tanh(C_t)
    squash = canvas.op((10.3, mid), "tanh", r=R_TANH, size=10.5)
    canvas.arrow((10.3, top), squash, gap=(0.0, R_TANH))
    show = canvas.op((10.3, gates), r"$\times$")
    canvas.arrow(squash, show, gap=(R_TANH, R))
    canvas.arrow(o, show, "$O_t$", gap=(R, R), offset=(0.0, 0.25))
    h_t = canvas.box((12.6, gates), "$H_t$", w=1.3)
    canvas.arrow(show, h_t, gap=(R, 0.65))
    return canvas


@diagram(
    "gru_cell",
    alt=(
        "The GRU cell in the lecture's form. Along the bottom, h_{t-1} and x_t feed two "
        "sigmoid gates, the update gate u_t and the reset gate r_t. The reset gate "
        "multiplies h_{t-1}, and a tanh reads r_t times h_{t-1} with x_t to make the "
        "candidate h-tilde_t. Along the top, h_{t-1} is multiplied by 1 - u_t, and u_t "
        "times h-tilde_t is added, giving h_t."
    ),
)
def gru_cell() -> Canvas:
    canvas = Canvas(13.6, 7.5)
    top, mix, gates, bus = 6.15, 4.05, 2.35, 0.85
    canvas.frame((2.45, 0.4), 8.95, 6.95, "GRU cell")
    # the state: h_{t-1} -> x (1 - u_t) -> + u_t h~_t -> h_t
    h_prev = canvas.box((0.9, top), "$h_{t-1}$", w=1.3)
    keep = canvas.op((3.6, top), r"$\times$")
    add = canvas.op((10.6, top), "$+$")
    h_t = canvas.box((12.6, top), "$h_t$", w=1.3)
    canvas.arrow(h_prev, keep, gap=(0.65, R))
    canvas.arrow(keep, add, gap=(R, R))
    canvas.text((7.1, top + 0.35), r"$(1 - u_t) \odot h_{t-1}$", size=10.5)
    canvas.arrow(add, h_t, gap=(R, 0.65))
    # the inputs, on one bus: h_{t-1} comes down from the top, x_t joins it
    tap = 1.95
    canvas.line([(tap, top), (tap, bus), (10.6, bus)])
    x_t = canvas.box((0.9, bus), "$x_t$", w=1.0, h=0.65)
    canvas.arrow(x_t, (tap, bus), gap=(0.5, 0.0))
    # the update gate: 1 - u_t keeps the old state, u_t lets the candidate in
    u = canvas.op((3.6, gates), r"$\sigma$")
    _read(canvas, u[0], bus, u, "$W_u, U_u$")
    fork = (3.6, mix)
    canvas.line([(3.6, gates + R), fork])
    canvas.text((4.2, mix + 0.25), "$u_t$")
    one_minus = canvas.op((3.6, (mix + top) / 2), "$1-$", r=R_TANH, size=10.5)
    canvas.arrow(fork, one_minus, gap=(0.0, R_TANH))
    canvas.arrow(one_minus, keep, gap=(R_TANH, R))
    # the reset gate scales h_{t-1} where the candidate reads it
    r = canvas.op((5.6, gates), r"$\sigma$")
    _read(canvas, r[0], bus, r, "$W_r, U_r$")
    reset = canvas.op((7.5, gates), r"$\times$")
    canvas.arrow(r, reset, "$r_t$", gap=(R, R), offset=(0.0, 0.25))
    canvas.arrow((7.5, bus), reset, gap=(0.0, R))
    canvas.text((7.62, (bus + gates) / 2), "$h_{t-1}$", size=10.5, ha="left")
    candidate = canvas.op((10.6, gates), "tanh", r=R_TANH, size=10.5)
    canvas.arrow(
        reset, candidate, r"$r_t \odot h_{t-1}$", gap=(R, R_TANH), offset=(0.0, 0.3)
    )
    canvas.arrow((10.6, bus), candidate, gap=(0.0, R_TANH))
    canvas.text((10.72, (bus + gates) / 2 - 0.1), "$x_t$", size=10.5, ha="left")
    canvas.text((8.9, gates - 0.45), "$W_h, U_h$", size=10.5, colour=PARAM)
    write = canvas.op((10.6, mix), r"$\times$")
    canvas.arrow(fork, write, gap=(0.0, R))
    canvas.arrow(candidate, write, r"$\tilde h_t$", gap=(R_TANH, R), offset=(0.35, 0.0))
    canvas.arrow(write, add, r"$u_t \odot \tilde h_t$", gap=(R, R), offset=(-0.75, 0.0))
    return canvas

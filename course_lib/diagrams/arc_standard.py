"""The arc-standard transition system on the lecture's sentence, "I ate fish". Chapter 4.

Drawn from the library's own oracle trace (``oracle_trace``): one row per configuration
$c = (\\sigma, \\beta, A)$, the stack's top $s_1$ against the buffer's front, and between two
rows the transition that leads from one to the other with the arc it adds. What each transition
does is drawn on the row it starts from: SHIFT moves the buffer's first word (blue) onto the
stack; LEFT-ARC and RIGHT-ARC draw their arc over the stack, from the head to the dependent
(red), which they pop.
"""

from __future__ import annotations

from course_lib.diagrams import diagram
from course_lib.diagrams.canvas import Canvas
from course_lib.parsing import LECTURE_EXAMPLE, oracle_trace

GREY = "#777777"
WIDTH = 13.6
CHIP_W, CHIP_H, CHIP_PITCH = 1.0, 0.6, 1.12
ROW_PITCH = 1.45
STEP_X = 0.35  # the step numbers
DIVIDE_X = 4.35  # between the stack (to its left, top at the right) and the buffer
MOVE_X = 8.35  # the column of the transitions: an arrow down, its name beside it
TOP = 0.9  # the header's band


def _chips(canvas, words, xs, y, kinds) -> None:
    for word, x, kind in zip(words, xs, kinds):
        canvas.box((x, y), word, kind=kind, w=CHIP_W, h=CHIP_H)


def _stack_x(i: int, depth: int) -> float:
    """The centre of stack item ``i`` (0 = bottom) of ``depth`` items: the top at the divide."""
    return DIVIDE_X - 0.15 - CHIP_W / 2 - (depth - 1 - i) * CHIP_PITCH


def _buffer_x(i: int) -> float:
    return DIVIDE_X + 0.15 + CHIP_W / 2 + i * CHIP_PITCH


@diagram(
    "arc_standard",
    alt="The arc-standard transition system parsing 'I ate fish', one row per configuration "
    "from ([ROOT], [I ate fish], {}) to ([ROOT], [], A): SHIFT moves I, then ate, from the "
    "buffer onto the stack; LEFT-ARC(nsubj) adds nsubj(ate → I) and pops I; SHIFT moves "
    "fish; RIGHT-ARC(obj) adds obj(ate → fish) and pops fish; RIGHT-ARC(root) adds "
    "root(ROOT → ate) and pops ate, leaving ROOT alone on the stack and the buffer empty.",
)
def arc_standard() -> Canvas:
    ex = LECTURE_EXAMPLE
    steps = oracle_trace(ex["words"], ex["heads"], ex["deprels"])
    height = TOP + len(steps) * ROW_PITCH + 1.25
    canvas = Canvas(WIDTH, height)
    header = height - 0.45
    canvas.text((STEP_X, header), "step", size=10, colour=GREY)
    canvas.text(
        (DIVIDE_X - 0.15, header), r"stack $\sigma$ (… $s_2$ $s_1$)", ha="right"
    )
    canvas.text((DIVIDE_X + 0.15, header), r"buffer $\beta$ ($b_1$ …)", ha="left")
    canvas.text((MOVE_X - 0.2, header), "transition, and the arc it adds", ha="left")
    y_of = [height - TOP - (k + 0.5) * ROW_PITCH for k in range(len(steps))]
    canvas.line([(DIVIDE_X, y_of[0] + 0.45), (DIVIDE_X, y_of[-1] - 0.4)], colour=GREY)
    for k, (config, move) in enumerate(steps):
        y, words = y_of[k], config.words
        stack, buffer = config.stack, config.buffer
        canvas.text((STEP_X, y), str(k), size=10, colour=GREY)
        stack_kinds = ["io"] * len(stack)
        buffer_kinds = ["io"] * len(buffer)
        if move is not None and move.kind == "SHIFT":
            buffer_kinds[0] = "state"
            canvas.arrow(
                (_buffer_x(0) - 0.2, y - CHIP_H / 2),
                (_stack_x(len(stack), len(stack) + 1) + 0.2, y_of[k + 1] + CHIP_H / 2),
                gap=(0.02, 0.05),
            )
        elif move is not None:  # an arc between s2 and s1, drawn from head to dependent
            s2, s1 = len(stack) - 2, len(stack) - 1
            head, dep = (s1, s2) if move.kind == "LEFT-ARC" else (s2, s1)
            stack_kinds[dep] = "mark"
            x_head, x_dep = _stack_x(head, len(stack)), _stack_x(dep, len(stack))
            canvas.arrow(  # under the chips: the gap below a row is its transition's
                (x_head, y - CHIP_H / 2),
                (x_dep, y - CHIP_H / 2),
                bend=-0.55 if x_dep < x_head else 0.55,
                gap=(0.05, 0.02),
            )
            canvas.text(
                ((x_head + x_dep) / 2, y - CHIP_H / 2 - 0.55), move.label, size=10
            )
        _chips(
            canvas,
            [words[i] for i in stack],
            [_stack_x(i, len(stack)) for i in range(len(stack))],
            y,
            stack_kinds,
        )
        _chips(
            canvas,
            [words[i] for i in buffer],
            [_buffer_x(i) for i in range(len(buffer))],
            y,
            buffer_kinds,
        )
        if not buffer:
            canvas.text((_buffer_x(0), y), "empty", size=10, colour=GREY)
        if move is None:
            continue
        canvas.arrow(
            (MOVE_X - 0.3, y - 0.1), (MOVE_X - 0.3, y_of[k + 1] + 0.1), gap=(0, 0)
        )
        mid = (y + y_of[k + 1]) / 2
        if move.kind == "SHIFT":
            canvas.text((MOVE_X, mid), "SHIFT", ha="left", weight="bold")
            continue
        head, dep, label = steps[k + 1][0].arcs[-1]
        canvas.text((MOVE_X, mid + 0.2), str(move), ha="left", weight="bold")
        canvas.text(
            (MOVE_X, mid - 0.22),
            f"adds {label}({words[head]} → {words[dep]})",
            ha="left",
        )
    final = steps[-1][0]
    arcs = ", ".join(
        f"{r}({final.words[h]} → {final.words[d]})" for h, d, r in final.arcs
    )
    n = len(ex["words"])
    canvas.text(
        (STEP_X - 0.2, 0.85),
        rf"the parse ends in $([\mathrm{{ROOT}}], [\,], A)$ after $2n = {2 * n}$ "
        "transitions, with",
        ha="left",
    )
    canvas.text((STEP_X - 0.2, 0.35), f"A = {{{arcs}}}", ha="left")
    return canvas

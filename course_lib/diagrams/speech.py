"""Chapter 10's diagram: the CTC lattice of the extended label l', with the moves the
forward recursion allows."""

from __future__ import annotations

from course_lib.diagrams import diagram
from course_lib.diagrams.canvas import KINDS, Canvas

BLANK = "_"
SKIP = KINDS["state"][1]
NO = KINDS["mark"][1]


def extended(label: str) -> list[str]:
    """l' = (_, l_1, _, l_2, ..., _)."""
    out = [BLANK]
    for symbol in label:
        out += [symbol, BLANK]
    return out


def moves(ext: list[str], s: int) -> list[int]:
    """The states (0-based) a path in state ``s`` may move to at the next step."""
    nxt = [s, s + 1]
    if s + 2 < len(ext) and ext[s + 2] != BLANK and ext[s + 2] != ext[s]:
        nxt.append(s + 2)
    return [n for n in nxt if n < len(ext)]


def on_a_path(ext: list[str], T: int) -> set[tuple[int, int]]:
    """The (t, s) that some alignment of length ``T`` collapsing to the label visits."""
    S = len(ext)
    forward = [{0, 1}]
    for _ in range(T - 1):
        forward.append({n for s in forward[-1] for n in moves(ext, s)})
    backward = [{S - 1, S - 2}]
    for _ in range(T - 1):
        backward.insert(0, {s for s in range(S) if set(moves(ext, s)) & backward[0]})
    return {(t, s) for t in range(T) for s in forward[t] & backward[t]}


@diagram(
    "ctc_lattice",
    alt=(
        "The CTC lattice for the label a b b over T = 6 steps. Down the side, the extended "
        "label l' = (_, a, _, b, _, b, _), states s = 1 to 7; across, the steps t = 1 to 6. "
        "From each state a path may stay in it, move to the next state, or skip a blank "
        "between two different symbols, from a to b; the skip from the first b to the "
        "second is not allowed, since the blank between them keeps them apart. Paths start "
        "at t = 1 in the first blank or in a, and end at t = 6 in the last b or the last "
        "blank, whose two alpha values sum to p(l | x). States on no such path are grey."
    ),
)
def ctc_lattice() -> Canvas:
    label, T = "abb", 6
    ext = extended(label)
    S = len(ext)
    c = Canvas(13.6, 9.4)
    x0, dx, y0, dy, r = 3.7, 1.55, 7.8, 0.9, 0.22
    gap = (r + 0.04, r + 0.04)

    def at(t, s):
        return (x0 + dx * t, y0 - dy * s)

    def skip_arrow(a, b, colour, dashed=False):
        c.arrow(a, b, gap=gap, colour=colour, dashed=dashed, bend=0.18)

    live = on_a_path(ext, T)
    top = y0 + 0.95
    c.text((0.55, top), "$s$")
    c.text((1.3, top), "$l'_s$")
    for s, symbol in enumerate(ext):
        c.text((0.55, at(0, s)[1]), f"{s + 1}")
        c.text((1.3, at(0, s)[1]), symbol, weight="bold")
    for t in range(T):
        c.text((at(t, 0)[0], top), f"$t={t + 1}$")
    for t in range(T - 1):
        for s in range(S):
            if (t, s) not in live:
                continue
            for n in moves(ext, s):
                if (t + 1, n) not in live:
                    continue
                if n == s + 2:
                    skip_arrow(at(t, s), at(t + 1, n), SKIP)
                else:
                    c.arrow(at(t, s), at(t + 1, n), gap=gap)
    # the skip the recursion forbids: b to b would merge the two b's
    (xa, ya), (xb, yb) = at(1, 3), at(2, 5)
    skip_arrow((xa, ya), (xb, yb), NO, dashed=True)
    mid = ((xa + xb) / 2 + 0.09 * (yb - ya), (ya + yb) / 2 - 0.09 * (xb - xa))
    c.text(mid, "×", colour=NO, size=15, weight="bold")
    for t in range(T):
        for s in range(S):
            if (t, s) in live:
                c.op(at(t, s), "", r=r, kind="state")
            else:
                c.op(at(t, s), "", r=r * 0.6, kind="io")
    # where a path starts, and the two states where it ends: their sum is p(l | x)
    start = (x0 - 0.8, (at(0, 0)[1] + at(0, 1)[1]) / 2)
    c.text(start, "start", ha="right")
    for s in (0, 1):
        c.arrow((start[0] + 0.1, start[1]), at(0, s), gap=(0.05, r + 0.04))
    end = (at(T - 1, 0)[0] + 1.0, (at(0, S - 1)[1] + at(0, S - 2)[1]) / 2)
    c.text(end, r"$p(l \mid x)$", ha="left")
    for s in (S - 2, S - 1):
        c.arrow(at(T - 1, s), end, gap=(r + 0.04, 0.1))
    # the key
    rows = [
        ("#222222", False, 0.0, r"stay, $\alpha_{t-1}(s)$; next, $\alpha_{t-1}(s-1)$"),
        (
            SKIP,
            False,
            0.18,
            r"skip a blank between different symbols, $\alpha_{t-1}(s-2)$",
        ),
        (
            NO,
            True,
            0.18,
            "no skip from b to b: the blank keeps two equal symbols apart",
        ),
    ]
    for i, (colour, dashed, bend, text) in enumerate(rows):
        y = 1.35 - 0.55 * i
        c.arrow(
            (0.4, y + 0.15),
            (1.3, y - 0.15),
            gap=(0, 0),
            colour=colour,
            dashed=dashed,
            bend=bend,
        )
        c.text((1.6, y), text, ha="left")
    c.op((8.6, 1.35), "", r=r * 0.6, kind="io")
    c.text((8.9, 1.35), "on no path to the end", ha="left")
    return c

"""word2vec's two windows on one sentence: skip-gram and CBOW. Chapter 1.

The sentence is Chapter 1's "the cat sat on the mat", the centre word $w_t$ = *sat* and the
window $m = 2$: the outside words are $w_{t+j}$ for $1 \\le |j| \\le m$. Skip-gram's centre
vector $v_c$ predicts each outside word, one softmax $P(o \\mid c)$ a pair; CBOW averages the
context words' vectors into $\\hat v$ and predicts the centre word, one softmax a position.
Both drawings put the words at the same places, so the two read as each other's reverse.
"""

from __future__ import annotations

from course_lib.diagrams import diagram
from course_lib.diagrams.canvas import Canvas

WORDS = "the cat sat on the mat".split()
CENTRE, WINDOW = 2, 2  # w_t = "sat", m = 2
GREY = "#777777"
WIDTH, HEIGHT = 13.4, 5.8
X0, PITCH, ROW = 1.25, 2.1, 1.9  # the first word's centre, word to word, the words' row
WORD_H, HUB_W, HUB_H = 0.7, 1.4, 0.7
HUB = (X0 + CENTRE * PITCH, 3.6)  # v_c (skip-gram) or v-hat (CBOW), above w_t


def _offset(j: int) -> str:
    return "t" if j == 0 else f"t{j:+d}"


def _sentence(canvas: Canvas, subtitle: str) -> list[tuple[float, float]]:
    """The words in a row, each over its position $w_{t+j}$; the window bracketed below.
    Returns the top middle of each word's box, where the arrows meet it."""
    canvas.text((WIDTH / 2, HEIGHT - 0.95), subtitle)
    tops = []
    for i, word in enumerate(WORDS):
        j = i - CENTRE
        inside = abs(j) <= WINDOW
        x = X0 + i * PITCH
        canvas.box((x, ROW), word, kind="state" if j == 0 else "io", w=1.2, h=WORD_H)
        label = f"$w_{{{_offset(j)}}}$"
        canvas.text((x, ROW - 0.7), label, colour="#222222" if inside else GREY)
        tops.append((x, ROW + WORD_H / 2))
    left, right = tops[CENTRE - WINDOW][0] - 0.6, tops[CENTRE + WINDOW][0] + 0.6
    y = ROW - 1.1
    canvas.line([(left, y + 0.15), (left, y), (right, y), (right, y + 0.15)])
    canvas.text(
        ((left + right) / 2, y - 0.35),
        r"the window, $m = 2$: the outside words $w_{t+j}$, $1 \leq |j| \leq m$",
    )
    canvas.text((tops[-1][0], y - 0.35), "outside the window", colour=GREY, size=10)
    return tops


def _spokes(tops: list[tuple[float, float]]) -> list[tuple[tuple, tuple]]:
    """(a point on the hub's lower edge, the top of an outside word) for each outside word."""
    spokes = []
    for i, top in enumerate(tops):
        j = i - CENTRE
        if 0 < abs(j) <= WINDOW:
            spokes.append(
                ((HUB[0] + 0.28 * j + 0.04 * j * abs(j), HUB[1] - HUB_H / 2), top)
            )
    return spokes


@diagram(
    "skipgram_window",
    alt="Skip-gram on the sentence 'the cat sat on the mat' with the centre word w_t = sat "
    "and a window of m = 2: the centre word's vector v_c has four arrows, one to each "
    "outside word w_{t-2} = the, w_{t-1} = cat, w_{t+1} = on, w_{t+2} = the, each a "
    "prediction P(o | c); mat, three words away, is outside the window.",
)
def skipgram_window() -> Canvas:
    canvas = Canvas(
        WIDTH, HEIGHT, title="skip-gram: the centre word predicts each outside word"
    )
    tops = _sentence(
        canvas,
        r"4 predictions $P(o \mid c)$, one per pair (centre word $c$, outside word $o$)",
    )
    canvas.box(HUB, "$v_c$", kind="param", w=HUB_W, h=HUB_H)
    canvas.arrow(tops[CENTRE], (HUB[0], HUB[1] - HUB_H / 2), gap=(0, 0))
    for hub, word in _spokes(tops):
        canvas.arrow(hub, word, gap=(0, 0))
    canvas.text(
        (HUB[0] + HUB_W / 2 + 0.25, HUB[1]), "the centre word's vector", ha="left"
    )
    return canvas


@diagram(
    "cbow_window",
    alt="CBOW on the sentence 'the cat sat on the mat' with the centre word w_t = sat and a "
    "window of m = 2: the vectors of the four context words the, cat, on, the are averaged "
    "into v-hat, which has one arrow to the centre word, the one prediction "
    "P(c | context); mat, three words away, is outside the window.",
)
def cbow_window() -> Canvas:
    canvas = Canvas(
        WIDTH, HEIGHT, title="CBOW: the context words predict the centre word"
    )
    tops = _sentence(
        canvas,
        r"1 prediction $P(c \mid \mathrm{context})$: the centre word $c$ given its window",
    )
    canvas.box(HUB, r"$\hat v$", kind="state", w=HUB_W, h=HUB_H)
    for hub, word in _spokes(tops):
        canvas.arrow(word, hub, gap=(0, 0))
    canvas.arrow((HUB[0], HUB[1] - HUB_H / 2), tops[CENTRE], gap=(0, 0))
    canvas.text(
        (HUB[0] + HUB_W / 2 + 0.25, HUB[1]),
        "the mean of the context words' $v_w$",
        ha="left",
    )
    return canvas

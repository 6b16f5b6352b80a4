"""Chapter 9's diagrams: the three pretraining families, each as what goes in and what
comes out, and what prefix tuning adds to a frozen GPT."""

from __future__ import annotations

from matplotlib.font_manager import FontProperties
from matplotlib.textpath import TextPath

from course_lib.diagrams import diagram
from course_lib.diagrams.canvas import FONT_PT, UNIT, Canvas

GREY = "#8a8a8a"


def text_width(label: str, size: float = FONT_PT, weight: str = "normal") -> float:
    """The width of ``label`` set at ``size`` pt, in units."""
    path = TextPath((0, 0), label, size=size, prop=FontProperties(weight=weight))
    return path.get_extents().width / 72 / UNIT


def token_row(c: Canvas, x0: float, y: float, words, *, kind="io", gap=0.14, h=0.62):
    """A row of token boxes, each as wide as its text, from ``x0``; their centres."""
    centres = []
    x = x0
    for word in words:
        w = text_width(word) + 0.36
        c.box((x + w / 2, y), word, kind=kind, w=w, h=h)
        centres.append((x + w / 2, y))
        x += w + gap
    return centres


def token_box(c: Canvas, xy, word: str, kind: str):
    return c.box(xy, word, kind=kind, w=text_width(word) + 0.36, h=0.62)


def heading(c: Canvas, y: float, title: str, objective: str) -> None:
    """A panel's family in bold and its objective after it, from the left edge."""
    c.text((0.2, y), title, ha="left", weight="bold")
    c.text((0.45 + text_width(title, weight="bold"), y), objective, ha="left")


def attention_lines(c: Canvas, ins, outs, pairs, *, gap=0.34):
    """A thin line from input ``i`` to output ``o`` for each (i, o): what reads what."""
    for i, o in pairs:
        (x1, y1), (x2, y2) = ins[i], outs[o]
        c.line([(x1, y1 + gap), (x2, y2 - gap)], colour=GREY, width=0.9)


@diagram(
    "pretraining_families",
    alt=(
        "Three panels. Decoder-only GPT: the tokens the game was a draw go in and each "
        "position predicts the next token, reading only the positions up to its own. "
        "Encoder-only BERT: [CLS] the [MASK] was a [MASK] goes in and the two masked "
        "words, game and draw, are predicted from every position on both sides. "
        "Encoder-decoder T5: the encoder reads the <extra_id_0> a <extra_id_1> <eos>, and "
        "the decoder writes <extra_id_0> game was <extra_id_1> draw <eos>: each sentinel "
        "followed by the span it hid."
    ),
)
def pretraining_families() -> Canvas:
    c = Canvas(13.6, 13.0)
    pitch, x0 = 1.45, 1.4
    # decoder-only: position t reads x_1 ... x_t and predicts x_{t+1}
    heading(
        c, 12.6, "decoder-only (GPT)", r"next token: $x_{\leq t}$ predicts $x_{t+1}$"
    )
    sentence = ["the", "game", "was", "a", "draw"]
    ins = [token_box(c, (x0 + pitch * t, 9.6), w, "io") for t, w in enumerate(sentence)]
    nexts = sentence[1:] + ["<eos>"]
    outs = [
        token_box(c, (x0 + pitch * t, 11.7), w, "state") for t, w in enumerate(nexts)
    ]
    attention_lines(c, ins, outs, [(i, o) for o in range(5) for i in range(o + 1)])
    c.text((8.8, 10.65), "causal: the prediction at $t$", ha="left")
    c.text((8.8, 10.15), r"reads $x_1 \ldots x_t$ only", ha="left")
    # encoder-only: the masked positions are predicted from both sides
    heading(
        c, 8.5, "encoder-only (BERT)", "masked LM: [MASK] predicted from both sides"
    )
    masked = ["[CLS]", "the", "[MASK]", "was", "a", "[MASK]"]
    kinds = ["io", "io", "mark", "io", "io", "mark"]
    ins = [
        token_box(c, (x0 + pitch * t, 5.5), w, k)
        for t, (w, k) in enumerate(zip(masked, kinds, strict=True))
    ]
    outs = {
        t: token_box(c, (x0 + pitch * t, 7.6), w, "state")
        for t, w in ((2, "game"), (5, "draw"))
    }
    attention_lines(c, ins, outs, [(i, o) for o in outs for i in range(6)])
    c.text((10.3, 6.8), "bidirectional: the", ha="left")
    c.text((10.3, 6.3), "prediction at a [MASK]", ha="left")
    c.text((10.3, 5.8), "reads every position", ha="left")
    # encoder-decoder: sentinels in, the hidden spans out
    heading(
        c,
        4.4,
        "encoder-decoder (T5)",
        "span corruption: each sentinel, then what it hid",
    )
    ins = token_row(c, 0.3, 0.45, ["the", "<extra_id_0>", "a", "<extra_id_1>", "<eos>"])
    for xy, w in ((ins[1], "<extra_id_0>"), (ins[3], "<extra_id_1>")):
        token_box(c, xy, w, "mark")
    targets = ["<extra_id_0>", "game", "was", "<extra_id_1>", "draw", "<eos>"]
    x_start = 13.45 - sum(text_width(w) + 0.5 for w in targets) + 0.14
    outs = token_row(c, x_start, 3.65, targets, kind="state")
    for xy, w in ((outs[0], "<extra_id_0>"), (outs[3], "<extra_id_1>")):
        token_box(c, xy, w, "mark")
    enc_l, enc_r = 0.3, ins[-1][0] + 0.67
    c.box(
        ((enc_l + enc_r) / 2, 1.45),
        "encoder (bidirectional)",
        kind="layer",
        w=enc_r - enc_l,
        h=0.7,
    )
    dec_l, dec_r = x_start, 13.45
    c.box(
        ((dec_l + dec_r) / 2, 2.65),
        "decoder (causal)",
        kind="layer",
        w=dec_r - dec_l,
        h=0.7,
    )
    for x, y in ins:
        c.arrow((x, y), (x, 1.45), gap=(0.31, 0.35))
    for x, y in outs:
        c.arrow((x, 2.65), (x, y), gap=(0.35, 0.31))
    x = (ins[-1][0] + x_start) / 2 + 1.0
    c.arrow((x, 1.45), (x, 2.65), gap=(0.35, 0.35))
    c.text((x + 0.15, 2.05), "cross-attention", ha="left")
    return c


@diagram(
    "prefix_tuning",
    alt=(
        "A frozen GPT: the tokens x_1 to x_T go through the frozen embedding, layers 1 to L "
        "and the output layer. Beside every layer l sits its prefix, P keys and P values "
        "K_prefix and V_prefix, the only trained parameters; the layer's attention reads "
        "them beside the real tokens' own keys and values, over P + T keys. The prefix has "
        "no token, no input and no output of its own."
    ),
)
def prefix_tuning() -> Canvas:
    c = Canvas(13.6, 9.6)
    cols = [6.3, 8.3, 10.3, 12.3]  # x_1, x_2, ..., x_T
    names = ["1", "2", None, "T"]
    left, right = 5.2, 13.1
    mid, width = (left + right) / 2, right - left

    def across(y_from, y_to, gap=(0.45, 0.45)):
        for x, n in zip(cols, names, strict=True):
            if n is not None:
                c.arrow((x, y_from), (x, y_to), gap=gap)

    for x, n in zip(cols, names, strict=True):
        if n is None:
            c.text((x, 0.5), r"$\ldots$")
        else:
            c.box((x, 0.5), f"$x_{n}$", kind="io", w=0.9, h=0.6)
    c.box(
        (mid, 1.7), r"embedding $h^{(0)}_t = E x_t + p_{P+t-1}$", kind="layer", w=width
    )
    across(0.5, 1.7, gap=(0.32, 0.42))
    layers = [(3.4, "1"), (6.1, "L")]
    for y, l in layers:
        label = f"layer ${l}$: attention over $P + T$ keys and values, FFN"
        c.box((mid, y), label, kind="layer", w=width, h=0.9)
        prefix = rf"$K^{{{l}}}_{{\mathrm{{prefix}}}}, V^{{{l}}}_{{\mathrm{{prefix}}}}$"
        c.box((2.2, y), prefix, kind="param", w=3.6, h=0.9)
        c.text((2.2, y - 0.8), "$P$ keys, $P$ values")
        c.arrow((2.2, y), (mid - width / 2, y), gap=(1.8, 0.05))
    across(1.7, 3.4, gap=(0.42, 0.47))
    for x, n in zip(cols, names, strict=True):
        if n is not None:
            c.arrow((x, 3.4), (x, 4.3), gap=(0.47, 0.0))
            c.text((x, 4.75), r"$\vdots$")
            c.arrow((x, 5.0), (x, 6.1), gap=(0.0, 0.47))
    c.text((2.2, 4.75), r"$\vdots$")
    c.box(
        (mid, 7.8),
        r"output $\mathrm{softmax}(E\,\mathrm{LN}(h^{(L)}_t))$",
        kind="layer",
        w=width,
    )
    across(6.1, 7.8, gap=(0.47, 0.42))
    # the key: what trains and what does not
    c.box((0.7, 9.1), kind="param", w=0.6, h=0.45)
    c.text((1.2, 9.1), r"trained: $P \times L \times 2 \times D$ numbers", ha="left")
    c.box((7.9, 9.1), kind="layer", w=0.6, h=0.45)
    c.text((8.4, 9.1), "frozen: the GPT's weights", ha="left")
    return c

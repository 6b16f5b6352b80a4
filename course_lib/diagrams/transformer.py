"""Chapter 8's diagrams: the encoder layer, post-LN and pre-LN; the encoder-decoder
Transformer; the causal and the padding masks as matrices (rows the queries i, columns the
keys j), in the chapter's notation (x, Q/K/V, p_t, LayerNorm, FFN, N layers).
"""

from __future__ import annotations

from course_lib.diagrams import diagram
from course_lib.diagrams.canvas import Canvas

GAP = (0.06, 0.06)  # arrows drawn between edges stop just short of them
WIRE = "#222222"
RESIDUAL = "#2b6cb0"  # the identity path x of x + f(x)
LN_H, BOX_H, R_ADD, SPACE = 0.5, 0.7, 0.24, 0.42


def _up(c: Canvas, x: float, y0: float, y1: float, label: str | None = None) -> None:
    """A vertical arrow from y0 to y1 (both edges), labelled on its left."""
    c.arrow((x, y0), (x, y1), label, gap=GAP, offset=(-0.3, 0.0))


def _residual(c: Canvas, x: float, y_from: float, x_side: float, y_add: float) -> None:
    """The identity path: from the wire at y_from round the right into the ⊕ at y_add."""
    c.line([(x, y_from), (x_side, y_from), (x_side, y_add)], colour=RESIDUAL)
    c.ax.plot([x], [y_from], "o", color=RESIDUAL, ms=4)  # the branch point
    c.arrow((x_side, y_add), (x + R_ADD, y_add), gap=(0.0, 0.04), colour=RESIDUAL)


def _sublayer(
    c: Canvas,
    x: float,
    y: float,
    label: str,
    *,
    w: float,
    pre: bool,
    side: float,
    qkv: bool = False,
    h: float = BOX_H,
    space: float = SPACE,
    lift: float = 0.0,
) -> tuple[float, float]:
    """One residual sub-layer from the wire at y upwards: returns the wire's height after
    it and the height of the sub-layer's box.

    pre-LN: x + f(LN(x)); post-LN: LN(x + f(x)). ``qkv`` splits the input into Q, K, V;
    ``lift`` lengthens the arrow into the box (room for a label)."""
    branch = y + space - 0.12
    ln_y = branch + space + LN_H / 2
    if pre:
        c.box((x, ln_y), "LayerNorm", kind="layer", w=2.2, h=LN_H)
        c.arrow((x, y), (x, ln_y - LN_H / 2), gap=(0.0, 0.04))
        f_in = ln_y + LN_H / 2
    else:
        f_in = branch
        c.line([(x, y), (x, f_in)])
    f_y = f_in + (0.85 if qkv else space) + lift + h / 2
    c.box((x, f_y), label, kind="layer", w=w, h=h)
    if qkv:  # the same input, projected three ways inside the layer
        fork = f_in + 0.25
        c.line([(x, f_in), (x, fork)])
        c.line([(x - 1.0, fork), (x + 1.0, fork)])
        for dx, name in ((-1.0, "$Q$"), (0.0, "$K$"), (1.0, "$V$")):
            c.arrow((x + dx, fork), (x + dx, f_y - h / 2), gap=(0.0, 0.05))
            c.text((x + dx + 0.12, fork + 0.3), name, ha="left")
    else:
        c.arrow((x, f_in), (x, f_y - h / 2), gap=(0.0, 0.05))
    add_y = f_y + h / 2 + space + R_ADD
    c.op((x, add_y), "+", r=R_ADD)
    c.arrow((x, f_y + h / 2), (x, add_y - R_ADD), gap=(0.0, 0.03))
    _residual(c, x, branch, side, add_y)
    top = add_y + R_ADD
    if not pre:
        ln_y = top + space + LN_H / 2
        c.box((x, ln_y), "LayerNorm", kind="layer", w=2.2, h=LN_H)
        c.arrow((x, top), (x, ln_y - LN_H / 2), gap=(0.0, 0.04))
        top = ln_y + LN_H / 2
    return top, f_y


def _encoder_layer(c: Canvas, x: float, *, pre: bool, title: str, formula: str) -> None:
    side = x + 2.45
    c.text((x + 0.1, c.height - 0.35), title, weight="bold")
    c.text((x + 0.1, c.height - 0.9), formula)
    c.box((x, 0.4), "$x$", w=0.9, h=0.6)
    y0 = 0.7
    y, _ = _sublayer(
        c, x, y0, "multi-head self-attention", w=3.9, pre=pre, side=side, qkv=True
    )
    y, _ = _sublayer(c, x, y, "feed-forward (FFN)", w=3.0, pre=pre, side=side)
    y_out = y + 0.45 + 0.3
    c.box((x, y_out), "output", w=1.4, h=0.6)
    c.arrow((x, y), (x, y_out - 0.3), gap=(0.0, 0.04))
    c.frame((x - 2.6, y0 + 0.08), 5.3, y - y0 + 0.1, r"$N\times$")


@diagram(
    "transformer_encoder_layer",
    alt=(
        "The Transformer's encoder layer, twice. Left, post-LN as in the 2017 paper: the "
        "input x is projected to Q, K and V for multi-head self-attention, its output is "
        "added to x by a residual path and normalised by LayerNorm; then a feed-forward "
        "network, another residual addition and another LayerNorm. Right, pre-LN, the "
        "library's default: LayerNorm comes first inside each branch, before the "
        "attention and before the FFN, so the residual path from the input to the output "
        "passes through additions only. Each layer is repeated N times."
    ),
)
def encoder_layer() -> Canvas:
    c = Canvas(13.6, 10.2)
    _encoder_layer(
        c, 3.3, pre=False, title="post-LN (2017)", formula=r"$\mathrm{LN}(x + f(x))$"
    )
    _encoder_layer(
        c,
        10.35,
        pre=True,
        title="pre-LN (the library's default)",
        formula=r"$x + f(\mathrm{LN}(x))$",
    )
    return c


def _embed(c: Canvas, x: float, words: str, w: float) -> float:
    """Tokens, their embeddings, plus the positional encodings p_t: returns the wire's top."""
    c.box((x, 0.4), words, kind="io", w=w, h=0.55)
    c.box((x, 1.3), "embedding", kind="param", w=2.0, h=0.55)
    c.arrow((x, 0.675), (x, 1.025), gap=(0.0, 0.04))
    add = c.op((x, 2.2), "+", r=R_ADD)
    c.arrow((x, 1.575), (x, 2.2 - R_ADD), gap=(0.0, 0.03))
    p = c.box((x - 1.45, 2.2), "$p_t$", w=0.8, h=0.5)
    c.arrow((p[0] + 0.4, 2.2), (x - R_ADD, 2.2), gap=(0.0, 0.03))
    return add[1] + R_ADD


@diagram(
    "transformer_encoder_decoder",
    alt=(
        "The encoder-decoder Transformer, pre-LN as in the library. Left, the encoder: the "
        "source tokens he is tall are embedded and added to the positional encodings p_t, "
        "then N layers of self-attention and a feed-forward network, each with a "
        "LayerNorm first and a residual addition, and a final LayerNorm. Right, the "
        "decoder: the target shifted right, <bos> il est grand, embedded plus p_t, then N "
        "layers of masked self-attention, cross-attention whose queries Q come from the "
        "decoder and whose keys and values K, V are the encoder's output, and a "
        "feed-forward network, each with LayerNorm and a residual addition; a final "
        "LayerNorm, then a linear layer and a softmax give the next tokens il est grand "
        "<eos>."
    ),
)
def encoder_decoder() -> Canvas:
    c = Canvas(13.6, 14.3)
    xe, xd, sp = 3.3, 10.3, 0.34
    compact = dict(pre=True, h=0.6, space=sp)
    # the encoder
    y0 = _embed(c, xe, "he is tall", 2.2)
    y, _ = _sublayer(c, xe, y0, "self-attention", w=2.8, side=xe + 2.05, **compact)
    y, _ = _sublayer(c, xe, y, "FFN", w=2.2, side=xe + 2.05, **compact)
    c.frame((xe - 2.55, y0 + 0.06), 4.9, y - y0 + 0.08, r"$N\times$")
    ln = y + 0.35 + LN_H / 2 + 0.1
    c.box((xe, ln), "LayerNorm", kind="layer", w=2.2, h=LN_H)
    c.arrow((xe, y), (xe, ln - LN_H / 2), gap=(0.0, 0.04))
    enc_top = ln + LN_H / 2
    # the decoder
    side = xd + 2.3
    y0 = _embed(c, xd, "<bos> il est grand", 3.3)
    y, _ = _sublayer(c, xd, y0, "masked self-attention", w=3.6, side=side, **compact)
    y, f_cross = _sublayer(
        c, xd, y, "cross-attention", w=3.0, side=side, lift=0.22, **compact
    )
    y, _ = _sublayer(c, xd, y, "FFN", w=2.2, side=side, **compact)
    c.frame((xd - 2.2, y0 + 0.06), 4.85, y - y0 + 0.08, r"$N\times$")
    ln = y + 0.35 + LN_H / 2 + 0.1
    c.box((xd, ln), "LayerNorm", kind="layer", w=2.2, h=LN_H)
    c.arrow((xd, y), (xd, ln - LN_H / 2), gap=(0.0, 0.04))
    soft = ln + LN_H / 2 + sp + 0.3
    c.box((xd, soft), "linear, softmax", kind="layer", w=2.6, h=0.6)
    c.arrow((xd, ln + LN_H / 2), (xd, soft - 0.3), gap=(0.0, 0.04))
    out = soft + 0.3 + sp + 0.28
    c.box((xd, out), "il est grand <eos>", kind="io", w=3.3, h=0.55)
    c.arrow((xd, soft + 0.3), (xd, out - 0.275), gap=(0.0, 0.04))
    c.text((xd - 2.05, out), r"$P(y_t \mid y_{<t}, x)$", ha="right")
    # the encoder's output is every decoder layer's keys and values
    x_mid, y_mem = (xe + xd) / 2 - 0.9, enc_top + 0.35
    c.line([(xe, enc_top), (xe, y_mem), (x_mid, y_mem), (x_mid, f_cross)], colour=WIRE)
    c.arrow((x_mid, f_cross), (xd - 1.5, f_cross), gap=(0.0, 0.05))
    c.text(((x_mid + xd - 1.5) / 2, f_cross + 0.27), "$K, V$")
    c.text((xd + 0.15, f_cross - 0.3 - (sp + 0.22) / 2), "$Q$", ha="left")
    c.text((xe + 1.15, 1.3), "encoder", weight="bold", ha="left")
    c.text((xd + 1.15, 1.3), "decoder", weight="bold", ha="left")
    return c


def _grid(
    c: Canvas,
    origin: tuple[float, float],
    allowed: list[list[bool]],
    rows: list[str],
    cols: list[str],
    title: str,
    *,
    cell: float = 0.6,
) -> None:
    """A mask as a matrix: row i a query, column j a key, a cell blue (1: may attend) or red
    (0: blocked, its score set to -inf). ``origin`` is the grid's top-left corner."""
    x0, y0 = origin
    for i, row in enumerate(allowed):
        y = y0 - (i + 0.5) * cell
        c.text((x0 - 0.15, y), rows[i], ha="right", size=11)
        for j, ok in enumerate(row):
            x = x0 + (j + 0.5) * cell
            c.box(
                (x, y),
                "1" if ok else "0",
                kind="state" if ok else "mark",
                w=cell - 0.07,
                h=cell - 0.07,
                size=11,
            )
    for j, name in enumerate(cols):
        c.text((x0 + (j + 0.5) * cell, y0 + 0.25), name, size=11)
    c.text((x0 + len(cols) * cell / 2, y0 + 0.7), "key $j$", size=11)
    c.text((x0 + len(cols) * cell / 2, y0 + 1.25), title)


def _legend(c: Canvas, x: float, y: float) -> None:
    for dy, kind, text in [
        (0.0, "state", "1: query $i$ may attend to key $j$"),
        (-0.6, "mark", r"0: blocked, the score set to $-\infty$"),
    ]:
        c.box((x, y + dy), kind=kind, w=0.45, h=0.45)
        c.text((x + 0.4, y + dy), text, ha="left")


@diagram(
    "causal_mask",
    alt=(
        "The causal mask of six positions as a 6 by 6 grid, rows the queries i = 0 to 5, "
        "columns the keys j = 0 to 5. The cells on and below the diagonal, j <= i, are 1: "
        "query i may attend to key j. The cells above it, the future, are 0: their "
        "scores are set to minus infinity before the softmax, so they get no weight."
    ),
)
def causal_mask() -> Canvas:
    T = 6
    c = Canvas(11.0, 5.9)
    allowed = [[j <= i for j in range(T)] for i in range(T)]
    names = [str(i) for i in range(T)]
    _grid(c, (1.3, 4.3), allowed, names, names, "causal_mask(6)")
    c.text((0.5, 4.3 - T * 0.3), "query $i$", size=11, rotation=90)
    _legend(c, 5.6, 3.6)
    c.text((5.38, 2.3), "row $i$ may attend to the keys", ha="left")
    c.text((5.38, 1.75), r"$j \leq i$: itself and the past", ha="left")
    return c


@diagram(
    "padding_masks",
    alt=(
        "The masks of the second sentence of a batch whose source is the ids 11 12 13 "
        "then two pads and whose target is 2 (<bos>) 21 then two pads, as grids with "
        "the queries as rows and the keys as columns. Encoder self-attention, 5 by 5: "
        "the two pad columns are 0 in every row. Cross-attention, 4 target queries by 5 "
        "source keys: the same two pad columns are 0. Decoder self-attention, 4 by 4, "
        "causal and padding: a cell is 1 only where the key is not after the query and "
        "is not a pad."
    ),
)
def padding_masks() -> Canvas:
    src = ["11", "12", "13", "pad", "pad"]
    tgt = ["2", "21", "pad", "pad"]
    c = Canvas(13.6, 5.25)
    cell, top = 0.62, 3.72
    pad = [[name != "pad" for name in src] for _ in src]
    _grid(c, (1.3, top), pad, src, src, "encoder self-attention", cell=cell)
    cross = [[name != "pad" for name in src] for _ in tgt]
    _grid(c, (5.75, top), cross, tgt, src, "cross-attention", cell=cell)
    dec = [[j <= i and tgt[j] != "pad" for j in range(4)] for i in range(4)]
    _grid(c, (10.2, top), dec, tgt, tgt, "decoder self-attention", cell=cell)
    c.text((10.2 + 2 * cell, top - 4 * cell - 0.4), "causal and padding", size=11)
    c.text((0.2, top - 2.5 * cell), "query $i$", size=11, rotation=90)
    return c

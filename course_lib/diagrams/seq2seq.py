"""Chapter 7's diagrams: the encoder-decoder and its bottleneck, the attention read, and
beam search as a tree, in the chapter's notation (source x_1 .. x_S, encoder states h_i,
decoder states s_t, the context c or c_t, the weights alpha_{t,i}, the sentinels <bos>, <eos>).
"""

from __future__ import annotations

from course_lib.diagrams import diagram
from course_lib.diagrams.canvas import Canvas

GAP = (0.06, 0.06)  # arrows drawn between box edges stop just short of them


def _top(xy, h):
    return (xy[0], xy[1] + h / 2)


def _bottom(xy, h):
    return (xy[0], xy[1] - h / 2)


def _left(xy, w):
    return (xy[0] - w / 2, xy[1])


def _right(xy, w):
    return (xy[0] + w / 2, xy[1])


@diagram(
    "seq2seq_encoder_decoder",
    alt=(
        "The encoder-decoder without attention. A bidirectional LSTM encoder reads the "
        "source words he, is, tall into states h_1 to h_3. Its last forward state and its "
        "last backward state, the one at h_1, are joined into one vector c, the bottleneck. "
        "c gives the decoder LSTM its initial state s_0 and is fed to every decoder step "
        "s_1 to s_4. The decoder starts from <bos> and writes il, est, grand, <eos>, each "
        "output fed back as the next step's input."
    ),
)
def encoder_decoder() -> Canvas:
    c = Canvas(13.6, 5.6)
    W, H = 1.0, 0.75  # a state box
    WI, HI = 1.15, 0.6  # a word box
    y_word, y_state, y_out, y_bus = 1.05, 2.85, 4.75, 1.45
    # the encoder: words, then h_i; the BiLSTM's two directions between neighbours
    enc_x = [0.75, 2.35, 3.95]
    hs = []
    for i, (x, word) in enumerate(zip(enc_x, ["he", "is", "tall"]), 1):
        w = c.box((x, y_word), word, kind="io", w=WI, h=HI)
        h = c.box((x, y_state), f"$h_{i}$", w=W, h=H)
        c.arrow(_top(w, HI), _bottom(h, H), gap=GAP)
        hs.append(h)
    for a, b in zip(hs, hs[1:]):
        c.arrow(
            (a[0] + W / 2, a[1] + 0.15), (b[0] - W / 2, b[1] + 0.15), gap=GAP
        )  # forward
        c.arrow(
            (b[0] - W / 2, b[1] - 0.15), (a[0] + W / 2, a[1] - 0.15), gap=GAP
        )  # backward
    c.text((2.35, 0.3), "encoder: bidirectional LSTM", colour="#2f7d32")
    # the bottleneck: c = [->h_3; <-h_1]
    cx = 5.8
    ctx = c.box((cx, y_state), "$c$", kind="mark", w=0.9, h=H)
    c.arrow(
        _right(hs[-1], W),
        _left(ctx, 0.9),
        r"$\overrightarrow{h}_3$",
        gap=GAP,
        offset=(0.0, 0.4),
    )
    c.arrow(
        _top(hs[0], H),
        (cx - 0.2, y_state + H / 2),
        r"$\overleftarrow{h}_1$",
        bend=-0.32,
        gap=GAP,
        offset=(0.0, 1.05),
    )
    # the decoder: s_t, fed <bos> or its previous output, and c at every step
    dec_x = [7.55, 9.2, 10.85, 12.5]
    outs = ["il", "est", "grand", "<eos>"]
    prev = c.box((cx + 0.15, y_out), "<bos>", kind="io", w=WI + 0.05, h=HI)
    prev_w = WI + 0.05
    s_prev = None
    c.line([(cx, y_state - H / 2 - 0.04), (cx, y_bus), (dec_x[-1], y_bus)])
    for t, (x, word) in enumerate(zip(dec_x, outs), 1):
        s = c.box((x, y_state), f"$s_{t}$", kind="layer", w=W, h=H)
        wb = WI + 0.05 if word == "<eos>" else WI
        y = c.box((x, y_out), word, kind="io", w=wb, h=HI)
        c.arrow(_top(s, H), _bottom(y, HI), gap=GAP)
        c.arrow(
            (prev[0] + prev_w / 2 - 0.1, prev[1] - HI / 2),
            (x - W / 2 + 0.1, y_state + H / 2),
            gap=GAP,
            dashed=True,
        )  # the previous output is the next input
        c.arrow((x, y_bus), _bottom(s, H), gap=(0.0, 0.06))
        if s_prev is None:
            c.arrow(_right(ctx, 0.9), _left(s, W), "$s_0$", gap=GAP)
        else:
            c.arrow(_right(s_prev, W), _left(s, W), gap=GAP)
        s_prev, prev, prev_w = s, y, wb
    c.text(
        (9.0, y_bus - 0.38),
        r"$c = [\overrightarrow{h}_3; \overleftarrow{h}_1]$, the same at every step",
    )
    c.text((11.55, 0.3), "decoder: LSTM", colour="#2f7d32")
    return c


@diagram(
    "seq2seq_attention_read",
    alt=(
        "One decoder step with attention, writing grand after est. The decoder's previous "
        "state s_{t-1} is scored against every encoder state h_1, h_2, h_3 of he is tall, "
        "giving e_{t,1} = -1.2, e_{t,2} = 0.3, e_{t,3} = 2.5. A softmax turns them into "
        "the weights alpha_{t,1} = 0.02, alpha_{t,2} = 0.10, alpha_{t,3} = 0.88, and the "
        "weighted sum of the h_i is the context c_t. The decoder LSTM reads the embedding "
        "of y_{t-1} and c_t and updates s_{t-1} to s_t; s_t and c_t, concatenated, go "
        "through tanh and a softmax that predicts y_t."
    ),
)
def attention_read() -> Canvas:
    c = Canvas(13.6, 9.0)
    xs = [1.55, 3.5, 5.45]  # the source positions i
    W, H = 1.75, 0.7  # a per-position box
    left, right = xs[0] - W / 2, xs[-1] + W / 2  # the span of the wide boxes
    mid = (left + right) / 2
    y_word, y_h, y_score, y_e, y_soft, y_a, y_sum = (
        0.5,
        1.65,
        2.9,
        4.05,
        5.2,
        6.35,
        7.65,
    )
    HW = 0.6  # a word box
    e = [-1.2, 0.3, 2.5]
    alpha = [0.02, 0.10, 0.88]  # softmax(e), rounded
    c.box(
        (mid, y_score),
        "score of $s_{t-1}$ and each $h_i$",
        kind="layer",
        w=right - left,
        h=H,
    )
    c.box((mid, y_soft), "softmax over $i$", kind="layer", w=right - left, h=H)
    wsum = c.box(
        (mid, y_sum),
        r"$c_t = \sum_i \alpha_{t,i}\, h_i$",
        kind="op",
        w=right - left,
        h=H,
    )
    for i, (x, word) in enumerate(zip(xs, ["he", "is", "tall"]), 1):
        w = c.box((x, y_word), word, kind="io", w=1.1, h=HW)
        h = c.box((x, y_h), f"$h_{i}$", w=1.0, h=H)
        c.arrow(_top(w, HW), _bottom(h, H), gap=GAP)
        c.arrow(_top(h, H), (x, y_score - H / 2), gap=GAP)
        eb = c.box((x, y_e), f"$e_{{t,{i}}} = {e[i - 1]:.1f}$", kind="op", w=W, h=H)
        c.arrow((x, y_score + H / 2), _bottom(eb, H), gap=GAP)
        c.arrow(_top(eb, H), (x, y_soft - H / 2), gap=GAP)
        ab = c.box((x, y_a), rf"$\alpha_{{t,{i}}} = {alpha[i - 1]:.2f}$", w=W, h=H)
        c.arrow((x, y_soft + H / 2), _bottom(ab, H), gap=GAP)
        c.arrow(_top(ab, H), (x, y_sum - H / 2), gap=GAP)
    # the values h_i come round the left into the weighted sum
    c.line(
        [(xs[0] - 0.5, y_h), (0.4, y_h), (0.4, y_sum)], colour="#2b6cb0", dashed=True
    )
    c.arrow((0.4, y_sum), (left, y_sum), gap=(0.0, 0.06), colour="#2b6cb0")
    c.text((0.05, (y_e + y_soft) / 2), "$h_i$", ha="left", colour="#2b6cb0")
    # the decoder step
    xd = 10.55
    y_lstm, y_s, y_o, y_p = 4.4, 5.65, 7.65, 8.55
    s_prev = c.box((7.85, y_score), "$s_{t-1}$", kind="layer", w=1.2, h=H)
    c.arrow(
        _left(s_prev, 1.2), (right, y_score), "query", gap=GAP, offset=(-0.05, 0.32)
    )
    word = c.box((13.05, y_score), "est", kind="io", w=1.1, h=HW)
    c.text((13.05, y_score - 0.6), "$y_{t-1}$")
    lstm = c.box((xd, y_lstm), "decoder LSTM", kind="layer", w=2.6, h=H)
    c.arrow((8.15, y_score + H / 2), (xd - 0.9, y_lstm - H / 2), gap=GAP)
    c.arrow(
        (12.85, y_score + HW / 2),
        (xd + 0.9, y_lstm - H / 2),
        "embed",
        gap=GAP,
        offset=(0.45, 0.2),
    )
    s_t = c.box((xd, y_s), "$s_t$", kind="layer", w=1.2, h=H)
    c.arrow(_top(lstm, H), _bottom(s_t, H), gap=GAP)
    ctx = c.box((7.85, y_sum), "$c_t$", w=1.2, h=H)
    c.arrow(_right(wsum, right - left), _left(ctx, 1.2), gap=GAP)
    c.arrow((8.0, y_sum - H / 2), (xd - 1.1, y_lstm + H / 2), gap=GAP)
    out = c.box((xd, y_o), r"$\tanh(W[s_t; c_t])$", kind="op", w=2.6, h=H)
    c.arrow(_right(ctx, 1.2), _left(out, 2.6), gap=GAP)
    c.arrow(_top(s_t, H), _bottom(out, H), gap=GAP)
    p = c.box((xd, y_p), "softmax", kind="layer", w=1.6, h=0.6)
    c.arrow(_top(out, H), _bottom(p, 0.6), gap=GAP)
    y_word_out = c.box((13.05, y_p), "grand", kind="io", w=1.1, h=HW)
    c.arrow(_right(p, 1.6), _left(y_word_out, 1.1), gap=GAP)
    c.text((13.05, y_p - 0.6), "$y_t$")
    return c


# the beam search tree, K = 2: (parent, word, summed log-probability, fate, row y); the
# scores of steps 1 and 2 are those of the chapter's one step by hand
KEPT, PRUNED, DONE = "kept", "pruned", "finished"
_BEAM_TREE = [
    [(None, "<bos>", 0.0, KEPT, 4.3)],
    [
        (0, "le", -0.1, KEPT, 5.8),
        (0, "un", -2.0, KEPT, 3.1),
        (0, "la", -2.6, PRUNED, 1.5),
    ],
    [
        (0, "chat", -0.3, KEPT, 6.7),
        (0, "chien", -0.4, KEPT, 5.8),
        (0, "oiseau", -3.1, PRUNED, 4.9),
        (1, "oiseau", -2.5, PRUNED, 4.0),
        (1, "chat", -3.0, PRUNED, 3.1),
        (1, "chien", -4.0, PRUNED, 2.2),
    ],
    [
        (0, "dort", -0.9, KEPT, 7.15),
        (0, "mange", -1.9, PRUNED, 6.35),
        (1, "aboie", -0.8, KEPT, 5.55),
        (1, "dort", -1.7, PRUNED, 4.75),
    ],
    [
        (0, "<eos>", -1.0, DONE, 7.5),
        (0, "bien", -2.5, PRUNED, 6.7),
        (2, "<eos>", -0.9, DONE, 5.9),
        (2, "fort", -2.3, PRUNED, 5.1),
    ],
]


@diagram(
    "beam_search_tree",
    alt=(
        "Beam search with K = 2 as a tree, each node a word and its summed log-probability. "
        "From <bos>, step 1 keeps le (-0.1) and un (-2.0) and prunes la (-2.6). Step 2 "
        "extends both: le chat (-0.3) and le chien (-0.4) are kept, and le oiseau (-3.1), "
        "un oiseau (-2.5), un chat (-3.0), un chien (-4.0) are pruned, so both survivors "
        "extend le. Step 3 keeps le chien aboie (-0.8) and le chat dort (-0.9) and prunes "
        "le chat mange (-1.9) and le chien dort (-1.7). Step 4 finishes both with <eos>: "
        "le chien aboie <eos> (-0.9), the best, and le chat dort <eos> (-1.0)."
    ),
)
def beam_tree() -> Canvas:
    c = Canvas(13.6, 8.4)
    xs = [0.75, 3.3, 5.95, 8.6, 11.3]
    H = 0.62
    widths = [1.3, 2.0, 2.15, 2.1, 2.3]
    kinds = {KEPT: "state", PRUNED: "mark", DONE: "layer"}
    for t, (x, level) in enumerate(zip(xs, _BEAM_TREE)):
        c.text((x, 0.35), "start" if t == 0 else f"step {t}", colour="#555555")
        for parent, word, score, fate, y in level:
            w = widths[t]
            label = word if t == 0 else f"{word}  {score:.1f}".replace("-", "\u2212")
            c.box((x, y), label, kind=kinds[fate], w=w, h=H)
            if parent is None:
                continue
            py = _BEAM_TREE[t - 1][parent][4]
            c.arrow(
                (xs[t - 1] + widths[t - 1] / 2, py),
                (x - w / 2, y),
                gap=GAP,
                dashed=fate == PRUNED,
                colour="#c62828" if fate == PRUNED else "#222222",
            )
    c.text((xs[-1] + widths[-1] / 2 + 0.08, 5.9), "best", ha="left", weight="bold")
    # the legend
    for y, kind, text in [
        (2.9, "state", "kept: one of the $K$ = 2 best"),
        (2.15, "mark", "pruned: not among them"),
        (1.4, "layer", "finished: ends with <eos>"),
    ]:
        c.box((8.3, y), kind=kind, w=0.6, h=0.45)
        c.text((8.75, y), text, ha="left")
    return c

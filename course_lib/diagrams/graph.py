"""A computational graph drawn from the engine's own nodes: micrograd's ``draw_dot``, in the
book's style. Chapter 3.

Every :class:`~course_lib.backprop.Value` that leads to the output is a box holding its name,
its value and its gradient; every gate is a circle naming its operation, just left of the box
it makes, and the arrows into it come from the boxes it reads. Columns follow the forward pass
(inputs on the left, the output on the right), so the backward pass reads right to left; a
node with two consumers (fan-out) has two arrows leaving it, and its gradient is the sum of
what comes back along them.

The layout is a small Sugiyama drawing: a number the engine lifted to a constant leaf (the
``-1`` of ``y - z = y + (-1 × z)``) is folded into its gate's label; a node's column is one
past its deepest input's (a leaf sits just before its first consumer); an edge that skips
columns runs through a waypoint in each, and the members of a column are ordered by the mean
row of their neighbours, then spaced, to keep the arrows short and uncrossed.
"""

from __future__ import annotations

import torch

from course_lib.backprop import Value
from course_lib.diagrams import diagram
from course_lib.diagrams.canvas import FONT_PT, MAX_WIDTH, Canvas

OP_LABELS = {"add": "+", "multiply": "×", "pow": "pow", "matmul": "@"}
BOX_W, BOX_H = 1.3, 0.95  # units, at least: a box holds "name = value" over "grad g"
GAP_X, PITCH_Y = 1.1, 1.25  # between two columns of boxes (a gate's room); row to row
CHAR_W = 0.17  # units: the width of a character of 12 pt text, about
MARGIN = 0.15


def _nodes(root: Value) -> list[Value]:
    """Every node that leads to ``root``, each after its parents (a topological order)."""
    order, seen = [], set()

    def visit(v: Value) -> None:
        if id(v) not in seen:
            seen.add(id(v))
            for p in v._parents:
                visit(p)
            order.append(v)

    visit(root)
    return order


def _number(x: float) -> str:
    text = f"{x:.4g}".replace("-", "−")
    return "0" if text == "−0" else text


def _fmt(t: torch.Tensor | None) -> str:
    if t is None:
        return "–"
    return _number(t.item()) if t.numel() == 1 else "×".join(map(str, t.shape))


def _is_constant(v: Value) -> bool:
    """A number the engine lifted to a leaf (``x * -1``): no name, no gradient, one element."""
    return v.is_leaf and not v.requires_grad and not v.name and v.data.numel() == 1


def _gate_label(v: Value) -> tuple[str, list[Value]]:
    """The gate's label, with a constant operand folded in, and the inputs left to draw."""
    label = OP_LABELS.get(v.op, v.op)
    inputs = [p for p in v._parents if not _is_constant(p)]
    constants = [p for p in v._parents if _is_constant(p)]
    if constants and v.op in ("add", "multiply"):
        label += "".join(_number(c.data.item()) for c in constants)
    elif constants:  # not folded: drawn as boxes
        inputs = list(v._parents)
    return label, inputs


def _columns(nodes: list[Value], inputs: dict[int, list[Value]]) -> dict[int, int]:
    """A gate's node one column past its deepest input; a leaf just before its first reader."""
    col: dict[int, int] = {}
    for v in nodes:
        if inputs[id(v)]:
            col[id(v)] = 1 + max(col.get(id(p), 0) for p in inputs[id(v)])
    for v in nodes:
        if not inputs[id(v)]:
            readers = [col[id(w)] for w in nodes if any(p is v for p in inputs[id(w)])]
            col[id(v)] = min(readers, default=1) - 1
    return col


def _order(layers: list[list], edges: list[tuple], sweeps: int = 4) -> None:
    """Order each layer in place by the barycentre of its neighbours (down, then up)."""
    nbrs: dict = {}
    for a, b in edges:
        nbrs.setdefault(b, ([], []))[0].append(a)
        nbrs.setdefault(a, ([], []))[1].append(b)
    for sweep in range(sweeps):
        side, seq = (0, layers[1:]) if sweep % 2 == 0 else (1, layers[-2::-1])
        pos = {k: i for layer in layers for i, k in enumerate(layer)}
        for layer in seq:
            key = {}
            for i, k in enumerate(layer):
                near = nbrs.get(k, ([], []))[side]
                key[k] = sum(pos[n] for n in near) / len(near) if near else i
            layer.sort(key=lambda k: key[k])
            pos.update({k: i for i, k in enumerate(layer)})


def _rows(layers: list[list], edges: list[tuple], lanes: list[list], passes=12) -> dict:
    """A row (float) for each key: the order kept, one apart, pulled towards neighbours; the
    waypoints of one edge (a lane) pulled to one row, so that a long edge runs straight."""
    row = {k: float(i) for layer in layers for i, k in enumerate(layer)}
    nbrs: dict = {}
    for a, b in edges:
        nbrs.setdefault(a, []).append(b)
        nbrs.setdefault(b, []).append(a)
    for lane in lanes:  # a waypoint's neighbours: its lane and the lane's two ends
        ends = [n for n in nbrs[lane[0]] + nbrs[lane[-1]] if n not in lane]
        for k in lane:
            nbrs[k] = ends + [w for w in lane if w != k] * 2
    for _ in range(passes):
        for layer in layers:
            want = [
                sum(row[n] for n in nbrs.get(k, [])) / len(nbrs[k])
                if nbrs.get(k)
                else row[k]
                for k in layer
            ]
            placed = []
            for w in want:  # keep the order, at least one row apart
                placed.append(max(w, placed[-1] + 1) if placed else w)
            shift = sum(w - p for w, p in zip(want, placed)) / len(layer)
            for k, p in zip(layer, placed):
                row[k] = p + shift
    place = {k: (layer, i) for layer in layers for i, k in enumerate(layer)}
    for (
        lane
    ) in lanes:  # straighten: one row for the lane, the source's if there is room
        lo, hi = -1e9, 1e9
        for k in lane:
            layer, i = place[k]
            if i > 0:
                lo = max(lo, row[layer[i - 1]] + 1)
            if i + 1 < len(layer):
                hi = min(hi, row[layer[i + 1]] - 1)
        if lo <= hi:
            ends = [n for n in nbrs[lane[0]] if n not in lane][:1]
            best = min(max(row[ends[0]] if ends else row[lane[0]], lo), hi)
            row.update({k: best for k in lane})
    for a, b in edges:  # a small step between two rows reads as a mistake: level it
        layer, i = place[b]
        if 0 < abs(row[a] - row[b]) < 0.4 and all(
            abs(row[k] - row[a]) >= 1 for k in layer if k != b
        ):
            row[b] = row[a]
    low = min(row.values())
    return {k: r - low for k, r in row.items()}


def draw_graph(root: Value, *, names: dict[int, str] | None = None) -> Canvas:
    """``root``'s graph, after ``root.backward()``: a box per node (name = data, grad), a
    circle per gate. ``names`` labels intermediate nodes by ``id`` (leaves use their ``name``)."""
    names = names or {}
    nodes = [v for v in _nodes(root) if v is root or not _is_constant(v)]
    gate: dict[int, tuple[str, list[Value]]] = {}
    for v in nodes:
        gate[id(v)] = _gate_label(v) if v._parents else ("", [])
    inputs = {k: g[1] for k, g in gate.items()}
    col = _columns(nodes, inputs)
    n_cols = max(col.values()) + 1
    layers: list[list] = [[] for _ in range(n_cols)]
    for v in nodes:
        layers[col[id(v)]].append(id(v))
    # an edge p -> v runs through a waypoint in each column between them
    edges, routes = [], []
    for v in nodes:
        for p in inputs[id(v)]:
            chain = [id(p)]
            for c in range(col[id(p)] + 1, col[id(v)]):
                layers[c].append(("via", id(p), id(v), c))
                chain.append(layers[c][-1])
            chain.append(id(v))
            edges += list(zip(chain, chain[1:]))
            routes.append(chain)
    _order(layers, edges)
    row = _rows(layers, edges, [c[1:-1] for c in routes if len(c) > 2])
    texts = {}
    for v in nodes:
        name = v.name or names.get(id(v), "")
        head = f"{name} = {_fmt(v.data)}" if name else _fmt(v.data)
        texts[id(v)] = f"{head}\ngrad {_fmt(v.grad)}"
    box_w = max(
        BOX_W, CHAR_W * max(len(t) for s in texts.values() for t in s.split("\n"))
    )
    pitch = box_w + GAP_X
    boxes = [row[id(v)] for v in nodes]
    top = min(min(boxes), min(row.values()) + 0.3 / PITCH_Y)
    bottom = max(max(boxes), max(row.values()) - 0.3 / PITCH_Y)
    width = (n_cols - 1) * pitch + box_w + 2 * MARGIN
    height = (bottom - top) * PITCH_Y + BOX_H + 2 * MARGIN
    if width > MAX_WIDTH:
        raise ValueError(
            f"draw_graph: {n_cols} columns of boxes {box_w:.2f} units wide need {width:.1f} "
            f"units, more than the text column's {MAX_WIDTH:.1f}: draw a smaller expression"
        )
    canvas = Canvas(width, height)
    col_of = {k: c for c, layer in enumerate(layers) for k in layer}

    def at(k) -> tuple[float, float]:
        x = MARGIN + box_w / 2 + col_of[k] * pitch
        return x, height - MARGIN - BOX_H / 2 - (row[k] - top) * PITCH_Y

    def gate_xy(k) -> tuple[float, float]:
        x, y = at(k)
        return x - box_w / 2 - 0.1 - _radius(gate[k][0]), y

    for (
        chain
    ) in routes:  # box (or waypoint) to waypoint, ending in an arrow into the gate
        x0, y0 = at(chain[0])
        points = [(x0 + box_w / 2, y0)]
        for k in chain[1:-1]:
            x, y = at(k)
            points += [(x - box_w / 2 - 0.35, y), (x + box_w / 2, y)]
        if len(points) > 1:
            canvas.line(points)
        end = gate_xy(chain[-1])
        canvas.arrow(points[-1], end, gap=(0.0, _radius(gate[chain[-1]][0])))
    for v in nodes:
        x, y = at(id(v))
        kind = "io" if v.is_leaf else "state"
        canvas.box((x, y), texts[id(v)], kind=kind, w=box_w, h=BOX_H)
        label = gate[id(v)][0]
        if label:
            gx, gy = gate_xy(id(v))
            r = _radius(label)
            canvas.op((gx, gy), label, r=r, size=_gate_font(label))
            canvas.line([(gx + r, gy), (x - box_w / 2, y)])
    return canvas


def _gate_font(label: str) -> float:
    return FONT_PT if len(label) <= 2 else 10.0


def _radius(label: str) -> float:
    return 0.28 if len(label) <= 2 else 0.13 + 0.06 * max(len(label), 4)


def lecture_example() -> tuple[Value, dict[str, Value]]:
    """CS224N lecture 3's example, f = (x + y) max(y, z) at x = 1, y = 2, z = 0, with
    max(y, z) written z + relu(y − z) as Chapter 3 writes it; after ``f.backward()``.
    Returns f and its intermediate nodes by name: a = x + y, −z, d = y − z, r = relu(d),
    b = z + r (= max(y, z)), f = a b."""
    x, y, z = (
        Value(torch.tensor(v), requires_grad=True, name=n)
        for v, n in [(1.0, "x"), (2.0, "y"), (0.0, "z")]
    )
    a, d = x + y, y - z
    r = d.relu()
    b = z + r
    f = a * b
    f.backward()
    return f, {"a": a, "−z": d._parents[1], "d": d, "r": r, "b": b, "f": f}


@diagram(
    "computation_graph",
    alt="The computational graph of f = (x + y) max(y, z) at x = 1, y = 2, z = 0, read left "
    "to right: boxes for x, y, z and each intermediate value (a = x + y, −z, d = y − z, "
    "r = relu(d), b = z + r, f = a b), each holding its value and its gradient, and a circle "
    "for each gate; y feeds two gates, and its gradient 5 is the sum of the 2 and 3 coming "
    "back along the two paths.",
)
def computation_graph() -> Canvas:
    f, inner = lecture_example()
    return draw_graph(f, names={id(v): k for k, v in inner.items()})

"""Chapter 3's computational graph (course_lib/diagrams/graph.py): draw_graph draws the engine's
own nodes, values and gradients, one gate circle per computed node, boxes that do not overlap."""

from __future__ import annotations

import pytest
import torch
from matplotlib.patches import Circle, FancyBboxPatch

from course_lib.backprop import Value
from course_lib.diagrams.graph import _nodes, draw_graph, lecture_example


def _drawn(canvas):
    """The texts, the gate circles and the boxes (as (x0, y0, x1, y1)) of a drawing."""
    texts = [t.get_text() for t in canvas.ax.texts]
    circles = [p for p in canvas.ax.patches if isinstance(p, Circle)]
    boxes = [
        p.get_bbox().extents for p in canvas.ax.patches if isinstance(p, FancyBboxPatch)
    ]
    return texts, circles, boxes


def test_the_lecture_example_is_drawn_with_the_engines_values_and_gradients():
    f, inner = lecture_example()
    canvas = draw_graph(f, names={id(v): k for k, v in inner.items()})
    texts, circles, boxes = _drawn(canvas)
    assert sorted(t for t in texts if "grad" in t) == sorted(
        [
            "x = 1\ngrad 2",
            "y = 2\ngrad 5",  # the two paths into y: 2 + 3
            "z = 0\ngrad 0",
            "a = 3\ngrad 2",
            "−z = 0\ngrad 3",
            "d = 2\ngrad 3",
            "r = 2\ngrad 3",
            "b = 2\ngrad 3",
            "f = 6\ngrad 1",
        ]
    )
    # the numbers are the engine's: every node's value and gradient, by its name
    names = {id(v): k for k, v in inner.items()}
    for v in _nodes(f):
        if v.requires_grad:
            name = v.name or names[id(v)]
            value, grad = v.data.item() + 0.0, v.grad.item() + 0.0  # -0.0 drawn as 0
            text = f"{name} = {value:g}\ngrad {grad:g}"
            assert text.replace("-", "−") in texts, name
    # one gate per computed node; the engine's constant -1 (y - z = y + (-1 × z)) is folded
    # into its gate's label, not drawn as a box
    computed = [v for v in _nodes(f) if not v.is_leaf]
    assert len(circles) == len(computed) == 6
    assert sorted(t for t in texts if "grad" not in t) == sorted(
        ["+", "+", "+", "×", "×−1", "relu"]
    )
    assert len(boxes) == 9


def test_boxes_do_not_overlap_and_stay_on_the_canvas():
    f, inner = lecture_example()
    canvas = draw_graph(f, names={id(v): k for k, v in inner.items()})
    _, circles, boxes = _drawn(canvas)
    shapes = boxes + [
        (c.center[0] - c.radius, c.center[1] - c.radius)
        + (c.center[0] + c.radius, c.center[1] + c.radius)
        for c in circles
    ]
    for i, (a0, b0, a1, b1) in enumerate(shapes):
        assert 0 <= a0 and a1 <= canvas.width and 0 <= b0 and b1 <= canvas.height
        for c0, d0, c1, d1 in shapes[i + 1 :]:
            assert a1 <= c0 or c1 <= a0 or b1 <= d0 or d1 <= b0, "two shapes overlap"


def test_a_number_is_folded_into_its_gate_and_a_wide_graph_is_refused():
    x = Value(torch.tensor(3.0), requires_grad=True, name="x")
    out = (x + 2.0) * x
    out.backward()
    texts, circles, _ = _drawn(draw_graph(out, names={id(out): "out"}))
    assert "+2" in texts and "x = 3\ngrad 8" in texts and "out = 15\ngrad 1" in texts
    assert len(circles) == 2 and not any(t.startswith("2") for t in texts)

    deep = x
    for _ in range(8):
        deep = deep.tanh()
    deep.backward()
    with pytest.raises(ValueError, match="smaller expression"):
        draw_graph(deep)

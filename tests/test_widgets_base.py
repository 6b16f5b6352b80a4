"""The widget pattern: to_jsonable, the mode switch, the module text, show()."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import traitlets as t

from course_lib.widgets import HeatmapExplorer, base
from course_lib.widgets.base import CourseWidget, js_path, show, to_jsonable


def test_to_jsonable_rounds_and_maps_nonfinite_to_none():
    assert to_jsonable(np.array([0.12345, -0.0001, np.nan, np.inf])) == [
        0.123,
        0.0,
        None,
        None,
    ]
    assert str(to_jsonable(np.array([-0.0001]))) == "[0.0]"  # no "-0.0" on the page
    assert to_jsonable(torch.tensor([[1.23456]]), decimals=2) == [[1.23]]
    assert to_jsonable(np.arange(3)) == [0, 1, 2]
    assert to_jsonable(np.array([True, False])) == [True, False]
    assert to_jsonable(2.71828) == 2.718
    with pytest.raises(TypeError):
        to_jsonable(np.array(["a"]))


def test_widget_mode(monkeypatch):
    monkeypatch.delenv("COURSE_WIDGET_MODE", raising=False)
    assert base.widget_mode() == "live"
    monkeypatch.setenv("COURSE_WIDGET_MODE", " HTML ")
    assert base.widget_mode() == "html"
    monkeypatch.setenv("COURSE_WIDGET_MODE", "pdf")
    with pytest.raises(ValueError, match="COURSE_WIDGET_MODE"):
        base.widget_mode()


def test_esm_is_read_once_as_text_no_file_watching():
    source = js_path("heatmap").read_text(encoding="utf-8")
    assert HeatmapExplorer._esm == source  # a str, not anywidget's FileContents
    assert HeatmapExplorer._esm_source == source
    with pytest.raises(FileNotFoundError, match="nope"):
        js_path("nope")


def test_js_modules_follow_the_pattern():
    for path in base.JS_DIR.glob("*.js"):
        text = path.read_text(encoding="utf-8")
        assert "export default" in text, path
        assert not any(
            line.lstrip().startswith("import ") for line in text.splitlines()
        )
        assert "import(" not in text and "fetch(" not in text, path
        assert "http://" not in text and "https://" not in text, path
        assert "data-lm-suppress-shortcuts" in text, path


class _Tiny(CourseWidget):
    _esm = js_path("heatmap")
    values = t.List().tag(sync=True)
    hidden = t.Int(0)  # not synced: stays out of the page

    def __init__(self):
        super().__init__(values=to_jsonable(np.linspace(0, 1, 4)))


def test_html_state_holds_only_the_subclass_traits(monkeypatch):
    monkeypatch.setenv("COURSE_WIDGET_MODE", "html")
    state = _Tiny().html_state()
    assert state == {"_kernel": False, "values": [0.0, 0.333, 0.667, 1.0]}
    with pytest.raises(NotImplementedError, match="_Tiny must implement"):
        _Tiny().static_figure()


def test_show_displays_the_widget_and_a_png(monkeypatch):
    import IPython.display

    monkeypatch.setenv("COURSE_WIDGET_MODE", "html")
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj: shown.append(obj))
    w = HeatmapExplorer({"a": np.eye(2), "b": np.ones((2, 2))}, ["x", "y"])
    w.show()
    assert shown[0] is w
    assert isinstance(shown[1], IPython.display.Image)
    assert shown[1].data.startswith(b"\x89PNG")
    with pytest.raises(TypeError, match="CourseWidget"):
        show("not a widget")

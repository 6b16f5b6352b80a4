"""The widget pattern: to_jsonable, the mode switch, the module text, show()."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
import traitlets as t

from course_lib.widgets import HeatmapExplorer, base
from course_lib.widgets.base import CourseWidget, js_path, js_source, show, to_jsonable


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
    source = js_source("heatmap")
    assert HeatmapExplorer._esm == source  # a str, not anywidget's FileContents
    assert HeatmapExplorer._esm_source == source
    module = js_path("heatmap").read_text(encoding="utf-8")
    assert source.endswith(module) and "function make(" in source
    assert "function askForm(" not in source  # only the shared files the module uses
    with pytest.raises(FileNotFoundError, match="nope"):
        js_path("nope")


def test_js_modules_follow_the_pattern():
    for shared in base.SHARED_DIR.glob("*.js"):
        lines = [
            line.lstrip() for line in shared.read_text(encoding="utf-8").splitlines()
        ]
        assert not any(line.startswith(("import ", "export ")) for line in lines), (
            shared
        )
    modules = list(base.JS_DIR.glob("*.js"))
    assert len(modules) >= 7
    for path in modules:
        text = js_source(path.stem)  # what runs: the shared helpers, then the module
        assert text.count("export default") == 1, path
        assert not any(
            line.lstrip().startswith("import ") for line in text.splitlines()
        )
        assert "import(" not in text and "fetch(" not in text, path
        assert "http://" not in text and "https://" not in text, path
        assert "data-lm-suppress-shortcuts" in text, path


def test_js_modules_do_not_redeclare_the_shared_helpers():
    # one module scope: a name declared twice is a SyntaxError only a browser would show
    top = re.compile(r"^(?:function|const|let|var|class)\s+([A-Za-z_$][\w$]*)", re.M)
    seen: dict[str, str] = {}
    for path in sorted(base.SHARED_DIR.glob("*.js")):
        for name in top.findall(path.read_text(encoding="utf-8")):
            assert name not in seen, (name, seen.get(name), path.name)
            seen[name] = path.name
    assert {"make", "control", "svg", "viridisColour", "uniqueId", "widgetRoot"} <= set(
        seen
    )
    for path in base.JS_DIR.glob("*.js"):
        own = set(top.findall(path.read_text(encoding="utf-8")))
        assert not own & (set(seen) | {"WIDGET_CSS"}), (path, own & set(seen))


def test_js_source_takes_whole_files_a_module_needs(tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "a.js").write_text(
        "// tick, with the counter it keeps\nlet n = 0;\n\nfunction tick() {\n\n"
        "  return ++n + twice(1);\n}\n",
        encoding="utf-8",
    )
    (shared / "b.js").write_text("function twice(x) {\n  return 2 * x;\n}\n")
    (shared / "c.js").write_text("function unused() {}\n", encoding="utf-8")
    (shared / "widget.css").write_text(".cw { color: red; }\n", encoding="utf-8")
    module = "export default { render() { tick(); } };\n"
    (tmp_path / "w.js").write_text(module, encoding="utf-8")
    monkeypatch.setattr(base, "JS_DIR", tmp_path)
    monkeypatch.setattr(base, "SHARED_DIR", shared)
    monkeypatch.setattr(base, "WIDGET_CSS", shared / "widget.css")
    assert js_source("w") == (
        "// js/shared/a.js\nlet n = 0;\n\nfunction tick() {\n\n  return ++n + twice(1);\n}"
        "\n// js/shared/b.js\nfunction twice(x) {\n  return 2 * x;\n}\n// js/w.js\n"
        + module
    )  # a whole (a blank line inside tick is kept), b that a uses; not c, nor comments
    (shared / "c.js").write_text("// nothing declared\n", encoding="utf-8")
    with pytest.raises(ValueError, match="c.js declares no function"):
        js_source("w")


def test_every_widget_root_carries_the_one_stylesheet():
    for path in base.JS_DIR.glob("*.js"):
        text = js_source(path.stem)
        assert text.startswith("const WIDGET_CSS = "), path
        assert "widgetRoot(" in path.read_text(encoding="utf-8"), path


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


def _shown_bundles(monkeypatch):
    import IPython.display

    shown = []
    monkeypatch.setattr(
        IPython.display, "display", lambda obj, **kw: shown.append((obj, kw))
    )
    return shown


def test_show_in_the_book_puts_the_png_in_the_noscript_only(monkeypatch):
    monkeypatch.setenv("COURSE_WIDGET_MODE", "html")
    shown = _shown_bundles(monkeypatch)
    w = HeatmapExplorer({"a": np.eye(2), "b": np.ones((2, 2))}, ["x", "y"])
    w.show()
    assert len(shown) == 1  # one output: the widget, not the widget and a copy under it
    data, kw = shown[0]
    assert kw["raw"] is True
    assert "image/png" not in data
    html = data["text/html"]
    noscript = html[html.index("<noscript>") : html.index("</noscript>")]
    assert '<img src="data:image/png;base64,iVBORw0KGgo' in noscript
    assert html.count("<img") == 1
    with pytest.raises(TypeError, match="CourseWidget"):
        show("not a widget")


def test_show_live_bundles_the_widget_view_and_its_png(monkeypatch):
    monkeypatch.delenv("COURSE_WIDGET_MODE", raising=False)
    shown = _shown_bundles(monkeypatch)
    w = HeatmapExplorer({"a": np.eye(2)}, ["x", "y"])
    monkeypatch.setattr(
        type(w),
        "_repr_mimebundle_",
        lambda self, **kw: {
            "text/plain": "w",
            "application/vnd.jupyter.widget-view+json": {"model_id": "m"},
        },
    )
    w.show()
    ((data, _),) = shown
    assert set(data) == {
        "text/plain",
        "application/vnd.jupyter.widget-view+json",
        "image/png",
    }
    assert data["image/png"].startswith("iVBORw0KGgo")

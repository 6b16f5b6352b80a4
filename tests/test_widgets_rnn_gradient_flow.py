"""The Chapter 6 gradient-flow explorer (course_lib.widgets.rnn_gradient_flow): every setting
precomputed, the static figure, and the controls driven in headless Chromium."""

from __future__ import annotations

import pytest
from widget_browser import assert_offline, offline_page, write_widget_page

from course_lib.rnn.long_range import LongRangeClassifier
from course_lib.widgets.gradient_flow import GradientFlowExplorer
from course_lib.widgets.rnn_gradient_flow import RNN_INITS, rnn_gradient_flow_explorer


def test_explorer_holds_every_setting_and_draws(html):
    trained = {k: LongRangeClassifier(k, hidden=8) for k in ("rnn", "lstm")}
    w = rnn_gradient_flow_explorer(("rnn", "lstm"), (3, 6), trained=trained, hidden=8)
    assert isinstance(w, GradientFlowExplorer)
    assert len(w.states) == 2 * 2 * (len(RNN_INITS) + 1)
    assert w.selection == {"cell": "RNN", "length": "6", "init": "trained on the task"}
    assert w.stats({"length": 3}).names == ("t = 1", "t = 2", "t = 3")
    assert 'data-course-widget="GradientFlowExplorer"' in w.to_html()
    fig = w.static_figure()
    assert len(fig.axes) == 2 and "LSTM" in fig.axes[1].get_title()
    with pytest.raises(ValueError, match="one model per cell"):
        rnn_gradient_flow_explorer(("rnn", "gru"), (3,), trained=trained)


def test_without_trained_models_it_starts_at_scale_one(html):
    w = rnn_gradient_flow_explorer(("rnn",), (4,), hidden=4)
    assert w.selection["init"] == "W_h s=1" and len(w.states) == len(RNN_INITS)


def test_playwright_drives_the_controls(tmp_path, html):
    w = rnn_gradient_flow_explorer(("rnn", "lstm", "gru"), (5, 20), hidden=8)
    url = write_widget_page(tmp_path / "rnn_gradient_flow.html", w)
    with offline_page() as browser:
        widget = browser.page.locator(".cw-gf")
        browser.page.goto(url)
        cols = widget.locator(".cw-gf-col")
        cols.first.wait_for()

        def norms() -> list[float]:
            return [
                float(v)
                for v in cols.evaluate_all(
                    "cs => cs.map(c => c.getAttribute('data-norm'))"
                )
            ]

        def pick(control: str, option: str) -> None:
            widget.locator("fieldset", has_text=control).get_by_text(
                option, exact=True
            ).click()

        assert cols.count() == 20
        assert norms() == w.states["RNN|20|W_h s=1"]["norm"]
        pick("cell", "LSTM")
        pick("init", "s=1, keep-gate bias 3")
        assert norms() == w.states["LSTM|20|s=1, keep-gate bias 3"]["norm"]
        pick("length", "5")
        assert cols.count() == 5
        assert norms() == w.states["LSTM|5|s=1, keep-gate bias 3"]["norm"]
    assert_offline(browser)

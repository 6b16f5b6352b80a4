"""PositionalExplorer: traits, the kernel observer, static figure, and a headless browser."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from widget_browser import (
    assert_offline,
    offline_page,
    unsuppressed_controls,
    write_widget_page,
)

from course_lib.transformer import sinusoidal_encoding, wavelengths
from course_lib.widgets.positional import PositionalExplorer, similarity_by_offset


def test_traits_hold_the_rounded_table_and_wavelengths():
    w = PositionalExplorer(16, 20, offset=3, dim=2)
    np.testing.assert_allclose(
        w.table(), sinusoidal_encoding(20, 16).numpy(), atol=5e-4
    )
    np.testing.assert_allclose(w.wavelengths, wavelengths(16).numpy(), atol=5e-3)
    assert w.learned == []


def test_similarity_is_constant_along_t_for_sinusoids():
    pe = sinusoidal_encoding(50, 32, dtype=torch.float64).numpy()
    for k in (1, 7, 20):
        s = similarity_by_offset(pe, k)
        assert s.shape == (50 - k,)
        assert np.ptp(s) < 1e-12


def test_kernel_controls_recompute_the_table():
    w = PositionalExplorer(16, 20, offset=15, dim=7)
    w.length = 10
    w.d_model = 8
    assert np.shape(w.pe) == (10, 8)
    assert len(w.wavelengths) == 4
    assert w.offset == 9 and w.dim == 3
    w.base = 100.0
    np.testing.assert_allclose(
        w.table(), sinusoidal_encoding(10, 8, base=100.0).numpy(), atol=5e-4
    )


def test_learned_table_and_static_figure():
    w = PositionalExplorer(16, 20, learned=torch.randn(12, 16))
    assert np.shape(w.learned) == (12, 16)
    fig = w.static_figure()
    assert len(fig.axes) >= 4


def test_bad_inputs():
    with pytest.raises(ValueError, match="even int"):
        PositionalExplorer(15, 20)
    with pytest.raises(ValueError, match="offset"):
        PositionalExplorer(16, 20, offset=20)
    with pytest.raises(ValueError, match=r"\(T, D\)"):
        PositionalExplorer(16, 20, learned=np.zeros(5))


def test_html_mode_hides_kernel_controls(monkeypatch):
    monkeypatch.setenv("COURSE_WIDGET_MODE", "html")
    w = PositionalExplorer(8, 10)
    html = w._repr_mimebundle_()["text/html"]
    assert '"_kernel":false' in html
    assert 'data-course-widget="PositionalExplorer"' in html


def test_browser_offset_slider_and_hover(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_WIDGET_MODE", "html")
    w = PositionalExplorer(
        16, 24, learned=np.random.default_rng(0).normal(size=(20, 16))
    )
    url = write_widget_page(tmp_path / "pe.html", w)
    with offline_page() as browser:
        page = browser.page
        page.goto(url)
        root = page.locator(".cw-pe").first
        readout = root.locator(".cw-pe-readout")
        readout.wait_for()
        assert readout.inner_text().startswith("k = 1, t = 0")
        assert not root.locator("input[type=number]").first.is_visible()  # no kernel
        slider = root.locator("input[type=range]").first
        slider.focus()
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        text = readout.inner_text()
        assert text.startswith("k = 3, t = 0")
        spread = float(re.search(r"varies by ([\d.]+) over t", text).group(1))
        assert spread < 0.01  # sinusoids: the same similarity at every t
        assert "learned: mean" in text
        heat = root.locator("canvas").first
        box = heat.bounding_box()
        page.mouse.move(box["x"] + 5, box["y"] + box["height"] * 0.5)
        assert re.match(r"k = 3, t = (1[0-9]|20)", readout.inner_text())
        dim = root.locator("input[type=range]").nth(1)
        dim.focus()
        page.keyboard.press("End")
        assert "i = 7" in root.locator("output").nth(1).inner_text()
        assert unsuppressed_controls(page) == []
    assert_offline(browser)

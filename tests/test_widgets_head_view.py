"""HeadView: traits, validation, static figure, and a headless browser (hover, click)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from widget_browser import (
    assert_offline,
    offline_page,
    unsuppressed_controls,
    write_widget_page,
)

from course_lib.transformer import Transformer, TransformerConfig
from course_lib.widgets.head_view import HeadView

SRC = ["a", "b", "</script>", "d", "e"]
TGT = ["<bos>", "x", "y", "z"]


def _attention():
    torch.manual_seed(0)
    model = Transformer(
        TransformerConfig(
            12,
            12,
            d_model=16,
            n_heads=2,
            d_ff=32,
            n_encoder_layers=2,
            n_decoder_layers=3,
        )
    )
    maps = model.attention(
        torch.tensor([[4, 5, 6, 7, 8]]), torch.tensor([[2, 5, 6, 7]])
    )
    return {k: v[:, 0] for k, v in maps.items()}


def test_traits_and_weights():
    view = HeadView(_attention(), SRC, TGT)
    assert view.kind == "cross"
    assert view.weights().shape == (3, 2, 4, 5)
    assert view.weights("encoder").shape == (2, 2, 5, 5)
    np.testing.assert_allclose(view.weights("decoder").sum(-1), 1, atol=5e-3)
    assert np.triu(view.weights("decoder")[0, 0], 1).max() == 0  # causal


def test_static_figure_has_one_panel_per_layer_and_head():
    view = HeadView(_attention(), SRC, TGT)
    assert len(view.static_figure().axes) == 3 * 2
    assert len(view.static_figure("encoder").axes) == 2 * 2


def test_bad_inputs():
    att = _attention()
    with pytest.raises(ValueError, match="unknown attention kinds"):
        HeadView({"bogus": att["cross"]}, SRC, TGT)
    with pytest.raises(ValueError, match="tokens give"):
        HeadView(att, SRC[:3], TGT)
    with pytest.raises(ValueError, match=r"\(L, H, T_q, T_k\)"):
        HeadView({"encoder": att["encoder"][0]}, SRC)
    with pytest.raises(ValueError, match="layer, head"):
        HeadView(att, SRC, TGT, layer=5)


def test_browser_click_heads_hover_tokens(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_WIDGET_MODE", "html")
    view = HeadView(_attention(), SRC, TGT, title="head view")
    url = write_widget_page(tmp_path / "hv.html", view)
    with offline_page() as browser:
        page = browser.page
        page.goto(url)
        root = page.locator(".cw-hv").first
        thumbs = root.locator("button.cw-hv-thumb")
        thumbs.first.wait_for()
        assert thumbs.count() == 3 * 2
        assert root.locator("svg line").count() == 4 * 5
        readout = root.locator(".cw-hv-readout")
        assert readout.inner_text().startswith("cross, layer 0, head 0")
        # hover a query token: only its 5 lines stay visible, readout lists top keys
        root.locator(".cw-left .cw-hv-tok").nth(1).hover()
        visible = root.locator("svg line[visibility=visible]")
        assert 1 <= visible.count() <= 5
        assert readout.inner_text().startswith("“x” attends to:")
        w = view.weights()[0, 0, 1]
        best = SRC[int(np.argmax(w))]
        assert f"{best} {w.max():.2f}" in readout.inner_text()
        # hover a key token: the lines into it
        root.locator(".cw-right .cw-hv-tok").nth(2).hover()
        assert readout.inner_text().startswith("attending to “</script>”")
        # click another layer/head and another kind
        thumbs.nth(5).click()  # layer 2, head 1
        assert readout.inner_text().startswith("cross, layer 2, head 1")
        root.get_by_role("button", name="encoder self").click()
        assert root.locator("button.cw-hv-thumb").count() == 2 * 2
        assert root.locator("svg line").count() == 5 * 5
        assert readout.inner_text().startswith("encoder self, layer 1, head 1")
        # keyboard: focusing a token shows its attention too
        root.locator(".cw-left .cw-hv-tok").first.focus()
        assert readout.inner_text().startswith("“a” attends to:")
        assert unsuppressed_controls(page) == []
    assert_offline(browser)

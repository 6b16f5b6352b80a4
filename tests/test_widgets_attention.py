"""AttentionExplorer: examples and candidates, validation, kernel requests, figure, and the
html-mode widget in headless Chromium (offline, from file://)."""

from __future__ import annotations

import json
import re

import live_lab as live_harness
import numpy as np
import pytest
import torch
from live_lab import lab  # noqa: F401 - the module-scoped JupyterLab server
from matplotlib.figure import Figure
from widget_browser import (
    assert_offline,
    offline_page,
    unsuppressed_controls,
    write_widget_page,
)

from course_lib.widgets.attention import (
    AttentionExplorer,
    attention_candidate,
    attention_example,
)

SRC = ["the", "black", "cat", "</script>"]
TGT = ["le", "chat", "noir", "<eos>"]


def _weights(t=4, s=4, seed=0, lead=()):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(*lead, t, s, generator=g).softmax(-1)


def _example(name=None):
    neural, ibm = _weights(), _weights(seed=1).numpy()
    ibm[-1] = np.nan  # IBM Model 1 has no <eos> row
    cands = [
        attention_candidate(
            TGT, -0.2, -0.3, {"neural": neural, "IBM": ibm}, source_len=4
        ),
        attention_candidate(
            ["un", "chat", "noir", "<eos>"],
            -0.9,
            -1.1,
            {"neural": _weights(4, 4, 2), "IBM": ibm},
            source_len=4,
        ),
        attention_candidate(["chat"], -2.0),
    ]
    return attention_example(
        SRC,
        TGT,
        {"neural": neural, "IBM": ibm},
        candidates=cands,
        name=name,
        note="rows: target",
    )


def test_examples_hold_rounded_stacks_with_names(live):
    ex = _example()
    assert ex["map_names"] == ["neural", "IBM"]
    assert np.array(ex["maps"][0]).shape == (4, 4)
    assert ex["maps"][1][3] == [None] * 4  # NaN travels as null
    assert ex["candidates"][0]["score"] == -0.2 and ex["candidates"][2]["maps"] is None
    w = AttentionExplorer([ex, _example("second")], title="attention")
    v = w.view()
    np.testing.assert_allclose(v["maps"][0], _weights().numpy(), atol=5e-4)
    assert v["target"] == TGT and v["source"] == SRC
    w.candidate = 1
    assert w.view()["target"] == ["un", "chat", "noir", "<eos>"]
    w.index = 1
    assert w.candidate == -1  # a new sentence shows its own target
    with pytest.raises(Exception, match=r"index must be in 0\.\.1"):
        w.index = 2


def test_a_stack_of_layers_and_heads_for_chapter_8(live):
    weights = _weights(5, 5, lead=(2, 3))  # (L, H, T, S)
    toks = list("abcde")
    w = AttentionExplorer.from_stack(weights, toks, title="self-attention")
    ex = w.examples[0]
    assert ex["map_names"][:2] == ["layer 1 · head 1", "layer 1 · head 2"]
    assert len(ex["map_names"]) == 6 and ex["target"] == toks
    np.testing.assert_allclose(w.view()["maps"][4], weights[1, 1].numpy(), atol=5e-4)
    heads = attention_example(toks, toks[:3], _weights(3, 5, lead=(4,)))
    assert heads["map_names"] == [f"head {h}" for h in range(1, 5)]


def test_validation_messages(live):
    with pytest.raises(ValueError, match=r"\(T_tgt, T_src\) = \(4, 4\)"):
        attention_example(SRC, TGT, _weights(3, 4))
    with pytest.raises(ValueError, match="source is empty"):
        attention_example([], TGT, _weights())
    with pytest.raises(ValueError, match="non-empty list"):
        AttentionExplorer([])
    with pytest.raises(ValueError, match="needs source_len"):
        attention_candidate(["a"], 0.0, maps=_weights(1, 4))
    with pytest.raises(ValueError, match="2 maps but 3 names"):
        attention_example(SRC, TGT, _weights(lead=(2,)), names=["a", "b", "c"])
    with pytest.raises(TypeError, match="list of tokens"):
        attention_example("the cat", TGT, _weights())


def test_kernel_request_translates_and_reports_errors(live):
    def translate(text):
        words = text.split()
        if len(words) > 3:
            raise ValueError("too long for this toy translator")
        return attention_example(words, words[::-1], np.eye(len(words))[::-1])

    w = AttentionExplorer([_example()], translate=translate)
    assert w.can_translate
    w.request = "a b c"
    assert len(w.examples) == 2 and w.index == 1 and w.error == "" and w.request == ""
    assert w.view()["target"] == ["c", "b", "a"]
    w.request = "a b c d"
    assert w.error == "too long for this toy translator" and len(w.examples) == 2
    with pytest.raises(ValueError, match="too long"):
        w.add("a b c d e")
    assert not AttentionExplorer([_example()]).can_translate


def test_static_figure_and_html_bundle(monkeypatch):
    monkeypatch.setenv("COURSE_WIDGET_MODE", "html")
    w = AttentionExplorer([_example()], title="t")
    fig = w.static_figure()
    assert isinstance(fig, Figure) and len(fig.axes) == 3  # two maps and the colour bar
    html = w._repr_mimebundle_()["text/html"]
    state = json.loads(
        re.search(r'id="[^"]+-state">(.*?)</script>', html, re.S).group(1)
    )
    assert (
        state["_kernel"] is False and state["examples"][0]["source"][3] == "</script>"
    )
    assert '</script>"' not in html.split('-state">', 1)[1].split("</script>", 1)[0]


def test_browser_switches_maps_candidates_sentences_offline(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_WIDGET_MODE", "html")
    w = AttentionExplorer(
        [_example("first"), _example("second")], title="attention <b>x</b>"
    )
    url = write_widget_page(tmp_path / "attention.html", w)
    with offline_page() as browser:
        page = browser.page
        page.goto(url)
        root = page.locator(".cw-at")
        cells = root.locator(".cw-at-cell")
        cells.first.wait_for()
        assert cells.count() == 16
        assert root.locator("[data-kernel-only]").is_hidden()  # no kernel in the book

        def colours():
            return cells.evaluate_all(
                "cs => cs.map(c => getComputedStyle(c).backgroundColor)"
            )

        neural = colours()
        cells.nth(1 * 4 + 2).hover()  # target "chat", source "cat"
        readout = root.locator(".cw-at-readout")
        assert readout.inner_text() == f"chat ← cat = {w.examples[0]['maps'][0][1][2]}"
        # switch to IBM Model 1: other colours, grey (missing) <eos> row
        root.get_by_role("button", name="next map").click()
        ibm = colours()
        assert ibm != neural and ibm[12:] == ["rgb(208, 208, 208)"] * 4
        assert readout.inner_text() == f"chat ← cat = {w.examples[0]['maps'][1][1][2]}"
        # keyboard on the grid
        root.locator(".cw-at-grid").focus()
        page.keyboard.press("ArrowDown")
        assert readout.inner_text().startswith("noir ← cat = ")
        page.keyboard.press("PageUp")  # back to the neural map
        assert root.locator("select").nth(1).input_value() == "0"
        # candidates: a click shows the second candidate's own attention and tokens
        table = root.locator(".cw-at-cands")
        assert table.locator("tr").count() == 4
        table.get_by_role("button", name="show candidate 2").click()
        assert root.locator(".cw-at-row").all_inner_texts() == [
            "un",
            "chat",
            "noir",
            "<eos>",
        ]
        assert table.locator("tr.cw-on").get_attribute("data-k") == "1"
        assert table.get_by_role("button", name="show candidate 3").is_disabled()
        # another sentence resets the candidate
        root.locator("select").first.select_option("1")
        assert root.locator(".cw-at-row").all_inner_texts() == TGT
        assert root.locator(".cw-at-title").inner_text() == "attention <b>x</b>"
        assert unsuppressed_controls(page) == []
    assert_offline(browser)


def test_translation_example_packs_the_beam_and_ibm_alignments(live):
    from course_lib.seq2seq import Seq2Seq, Seq2SeqConfig, train_ibm_model1
    from course_lib.seq2seq.translation import build_vocab
    from course_lib.widgets.attention import translation_example

    pairs = [(["the", "cat"], ["le", "chat"]), (["a", "cat"], ["un", "chat"])]
    sv = build_vocab([s for s, _ in pairs])
    tv = build_vocab([t for _, t in pairs])
    torch.manual_seed(0)
    model = Seq2Seq(Seq2SeqConfig(len(sv), len(tv), d_emb=4, d_hidden=5, d_attn=3))
    with torch.no_grad():
        model.out.bias[3] += 1.0  # <eos> early: a short, finished beam
    ibm = train_ibm_model1(pairs, 5)
    ex = translation_example(
        model, ["the", "cat"], sv, tv, ibm=ibm, beam_size=3, max_len=4
    )
    assert ex["map_names"] == ["neural attention", "IBM Model 1"]
    assert len(ex["candidates"]) == 3 and ex["target"] == ex["candidates"][0]["tokens"]
    scores = [c["score"] for c in ex["candidates"]]
    assert scores == sorted(scores, reverse=True)
    neural = np.array(ex["maps"][0], dtype=float)
    np.testing.assert_allclose(neural.sum(-1), 1.0, atol=0.01)
    w = AttentionExplorer([ex])
    assert w.view()["maps"].shape == (2, len(ex["target"]), 2)


# -- live in JupyterLab (the harness and server of tests/test_widgets_live.py) -----------
LIVE_CELLS = [
    "import numpy as np\n"
    "from course_lib.widgets.attention import AttentionExplorer, attention_example\n"
    "from course_lib.widgets import widget_mode\n"
    'assert widget_mode() == "live", widget_mode()\n'
    "def toy(text):\n"
    "    words = text.split()\n"
    "    out = words[::-1]\n"
    "    flip = np.eye(len(words))[::-1]\n"
    "    return attention_example(words, out, {'flip': flip, 'uniform': "
    "np.full_like(flip, 1 / len(words))})\n"
    "w = AttentionExplorer([toy('the black cat')], title='live attention', "
    "translate=toy)\n"
    "w",
]
LIVE_PROBE = "print(w.index, w.map_index, len(w.examples), repr(w.error))"


def test_attention_explorer_live_in_jupyterlab(lab):  # noqa: F811 - the fixture
    path = lab.root / "live_attention.ipynb"
    live_harness.write_notebook(path, LIVE_CELLS)
    with offline_page(allow=(lab.url + "/",)) as browser:
        page = browser.page
        page.set_default_timeout(live_harness.STEP_TIMEOUT_MS)

        def run_cell(code: str) -> str:
            return live_harness.run_cell(page, code)

        live_harness.open_notebook(page, lab, path.name)
        page.evaluate(live_harness.JS_RUN_ALL)
        root = page.locator(".cw-at")
        root.locator(".cw-at-cell").first.wait_for(timeout=live_harness.RUN_TIMEOUT_MS)
        assert root.get_attribute("data-kernel") == "true"
        assert page.locator(".course-widget").count() == 0  # anywidget, not html mode
        assert root.locator(".cw-at-row").all_inner_texts() == ["cat", "black", "the"]
        assert live_harness.kernel_sees(page, LIVE_PROBE, "0 0 1 ''\n") == "0 0 1 ''\n"
        # the map switch reaches the kernel
        root.get_by_role("button", name="next map").click()
        assert live_harness.kernel_sees(page, LIVE_PROBE, "0 1 1 ''\n") == "0 1 1 ''\n"
        # a typed sentence is translated by the kernel and shown
        form = root.locator("form.cw-at-ask")
        assert form.is_visible()
        form.locator("input").fill("a new sentence here")
        form.get_by_role("button", name="translate").click()
        page.wait_for_function(
            "() => document.querySelectorAll('.cw-at select')[0].options.length === 2"
        )
        rows = root.locator(".cw-at-row")
        # the option arrives before the view redraws its rows: wait for the new sentence
        page.wait_for_function(
            "() => [...document.querySelectorAll('.cw-at .cw-at-row')]"
            ".map(r => r.innerText).join(' ') === 'here sentence new a'"
        )
        assert rows.all_inner_texts() == ["here", "sentence", "new", "a"]
        assert live_harness.kernel_sees(page, LIVE_PROBE, "1 1 2 ''\n") == "1 1 2 ''\n"
        # a change made in the kernel reaches the view
        assert run_cell("w.index = 0\nprint('set')") == "set\n"
        page.wait_for_function(
            "() => document.querySelectorAll('.cw-at .cw-at-row').length === 3"
        )
    assert_offline(browser, allow=(lab.url + "/",), websockets=True)

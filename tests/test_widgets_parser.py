"""ParserStateExplorer: precomputed states, the kernel text box, html bundle, figure, browser."""

from __future__ import annotations

import json
import re

import pytest
import torch
import traitlets
from matplotlib.figure import Figure
from widget_browser import (
    assert_offline,
    offline_page,
    unsuppressed_controls,
    write_widget_page,
)

from course_lib.parsing import (
    LECTURE_EVAL_EXAMPLE,
    LECTURE_EXAMPLE,
    ChenManningParser,
    ParserConfig,
    build_vocabs,
    parse_one,
)
from course_lib.widgets.base import js_source
from course_lib.widgets.parser import ParserStateExplorer, parse_tagged_text

EX = LECTURE_EXAMPLE
I_ATE_FISH = (EX["words"], EX["upos"], EX["heads"], EX["deprels"])
EV = LECTURE_EVAL_EXAMPLE
SHE_SAW = (
    EV["words"],
    ("PRON", "VERB", "DET", "NOUN", "NOUN"),
    EV["gold_heads"],
    EV["gold_deprels"],
)


@pytest.fixture(scope="module")
def parser():
    class S:  # build_vocabs reads .words .upos .deprels
        def __init__(self, t):
            self.words, self.upos, self.heads, self.deprels = t

    vocabs = build_vocabs([S(I_ATE_FISH), S(SHE_SAW)], min_freq=1)
    torch.manual_seed(0)
    model = ChenManningParser(ParserConfig.for_vocabs(vocabs, embed_dim=8, hidden=16))
    return model, vocabs


def test_oracle_states_are_the_lectures_trace(live):
    w = ParserStateExplorer([I_ATE_FISH], title="I ate fish")
    assert w.has_model is False and w.index == 0 and w.step == 0
    record = w.sentences[0]
    assert record["name"] == "I ate fish" and record["score"] == "UAS 3/3, LAS 3/3"
    assert [s["t"] for s in record["steps"]] == [
        "SHIFT",
        "SHIFT",
        "LEFT-ARC(nsubj)",
        "SHIFT",
        "RIGHT-ARC(obj)",
        "RIGHT-ARC(root)",
        "",
    ]
    assert w.state(step=3) == {
        "stack": [0, 2],
        "buffer": [3],
        "arcs": [[2, 1, "nsubj"]],
        "transition": "SHIFT",
        "top": [],
    }
    assert w.state(step=6)["arcs"] == [[2, 1, "nsubj"], [2, 3, "obj"], [0, 2, "root"]]
    with pytest.raises(traitlets.TraitError, match=r"step must be in 0\.\.6"):
        w.step = 7


def test_model_states_carry_the_top_k_probabilities(live, parser):
    model, vocabs = parser
    w = ParserStateExplorer([I_ATE_FISH, SHE_SAW], model, vocabs, top_k=3)
    assert w.has_model and [r["name"] for r in w.sentences] == [
        "I ate fish",
        "She saw the video lecture",
    ]
    tree, steps = parse_one(model, vocabs, SHE_SAW[0], SHE_SAW[1], top_k=3)
    record = w.sentences[1]
    assert len(record["steps"]) == 11
    for mine, ref in zip(record["steps"], steps, strict=True):
        assert mine["stack"] == list(ref.config.stack)
        assert mine["t"] == ("" if ref.transition is None else str(ref.transition))
        assert [name for name, _ in mine["top"]] == [name for name, _ in ref.top]
        assert all(p == round(p, 3) for _, p in mine["top"])
    assert record["steps"][0]["top"] == [["SHIFT", 1.0]]  # the only legal move
    w.step = 4
    w.index = 1  # choosing a sentence starts it from its first state
    assert w.step == 0
    with pytest.raises(traitlets.TraitError, match=r"index must be in 0\.\.1"):
        w.index = 2


def test_the_text_box_parses_a_new_sentence_with_the_kernel(live, parser):
    model, vocabs = parser
    w = ParserStateExplorer([I_ATE_FISH], model, vocabs)
    w.request = "She/PRON ate/VERB fish/NOUN"
    assert w.error == "" and w.request == "" and w.index == 1 and w.step == 0
    assert w.sentences[1]["words"] == ["She", "ate", "fish"]
    assert w.sentences[1]["gold_heads"] is None and w.sentences[1]["score"] == ""
    w.request = "She ate/VERB"
    assert "token 'She' has no tag" in w.error and len(w.sentences) == 2
    w.add_sentence(["and/or"], ["CCONJ"])
    assert w.sentences[-1]["words"] == ["and/or"]
    oracle = ParserStateExplorer([I_ATE_FISH])
    oracle.request = "a/DET"
    assert "no model" in oracle.error
    assert parse_tagged_text("and/or/CCONJ x/X") == (["and/or", "x"], ["CCONJ", "X"])
    with pytest.raises(ValueError, match="word/UPOS"):
        parse_tagged_text("   ")


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        (([],), {}, ValueError, "at least one sentence"),
        (("I ate fish",), {}, TypeError, "list of sentences"),
        (([(["a"], ["X"])],), {}, ValueError, "no gold tree"),
        (([I_ATE_FISH],), {"names": ["a", "b"]}, ValueError, "expected 1, got 2"),
        (([I_ATE_FISH],), {"index": 1}, ValueError, r"index must be in 0\.\.0"),
        (([I_ATE_FISH],), {"top_k": 0}, ValueError, "top_k must be a positive"),
    ],
)
def test_bad_arguments_are_explained(live, args, kwargs, error, match):
    with pytest.raises(error, match=match):
        ParserStateExplorer(*args, **kwargs)


def test_model_and_vocabs_go_together(live, parser):
    with pytest.raises(ValueError, match="model and vocabs together"):
        ParserStateExplorer([I_ATE_FISH], parser[0])


def test_html_bundle_is_self_contained(html, parser):
    model, vocabs = parser
    w = ParserStateExplorer([I_ATE_FISH, SHE_SAW], model, vocabs, title="a </script>")
    assert w.comm is None
    page = w._repr_mimebundle_()["text/html"]
    state = json.loads(
        re.search(r'id="[^"]+-state">(.*?)</script>', page, re.S).group(1)
    )
    assert state["sentences"] == w.sentences and state["_kernel"] is False
    assert state["title"] == "a </script>" and state["step"] == 0
    esm = json.loads(re.search(r'id="[^"]+-esm">(.*?)</script>', page, re.S).group(1))
    assert esm == js_source("parser")
    assert page.count("</script") == 3
    assert not re.search(r"<script[^>]*\bsrc=", page) and "http" not in page
    assert len(page) < 60_000  # two short sentences with top-4 probabilities


def test_static_figure(live, parser):
    model, vocabs = parser
    w = ParserStateExplorer([SHE_SAW], model, vocabs, title="parse")
    fig = w.static_figure(max_rows=6)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    arcs_ax, table_ax = fig.axes
    assert arcs_ax.get_title().startswith("She saw the video lecture  (UAS ")
    cells = table_ax.tables[0].get_celld()
    assert cells[(0, 3)].get_text().get_text() == "transition taken"
    assert cells[(5, 0)].get_text().get_text() == "…"  # 6 rows: 4 first, …, the last
    assert cells[(6, 3)].get_text().get_text() == "(done)"


def test_browser_steps_forward_back_and_switches_sentence(tmp_path, html, parser):
    model, vocabs = parser
    w = ParserStateExplorer([I_ATE_FISH, SHE_SAW], model, vocabs, title="parse")
    oracle = ParserStateExplorer([I_ATE_FISH], title="oracle")
    url = write_widget_page(tmp_path / "parser.html", w, oracle)
    with offline_page() as browser:
        page = browser.page
        page.goto(url)
        view = page.locator(".cw-ps").first
        where = view.locator(".cw-ps-where")
        where.wait_for()
        stack = view.locator(".cw-ps-stack .cw-ps-chip")
        buffer = view.locator(".cw-ps-buffer .cw-ps-chip")
        assert where.inner_text() == "state 0 / 6"
        assert stack.all_inner_texts() == ["ROOT"]
        assert buffer.all_inner_texts() == ["I", "ate", "fish"]
        assert view.locator(".cw-ps-probs span").first.inner_text() == "SHIFT"
        assert view.get_by_role("button", name="previous state").is_disabled()
        next_button = view.get_by_role("button", name="next state")
        next_button.click()
        next_button.click()
        assert where.inner_text() == "state 2 / 6"
        assert stack.all_inner_texts() == ["ROOT", "I", "ate"]
        assert buffer.all_inner_texts() == ["fish"]
        t2 = w.sentences[0]["steps"][2]["t"]
        assert view.locator(".cw-ps-transition").inner_text() == t2
        view.get_by_role("button", name="previous state").click()
        assert stack.all_inner_texts() == ["ROOT", "I"]
        # the last state: every arc drawn, the scores against the gold tree
        view.get_by_role("button", name="last state").click()
        assert where.inner_text() == "state 6 / 6"
        assert view.locator("path.cw-arc").count() == 3
        assert view.locator("path.cw-gold").count() == 3
        assert view.locator(".cw-ps-score").inner_text() == (
            f"Final tree: {w.sentences[0]['score']}"
        )
        # the keyboard moves the slider
        view.locator("input[type=range]").focus()
        page.keyboard.press("ArrowLeft")
        assert where.inner_text() == "state 5 / 6"
        # choosing another sentence starts it from its first state
        view.locator("select").select_option(label="She saw the video lecture")
        assert where.inner_text() == "state 0 / 10"
        assert buffer.all_inner_texts() == list(EV["words"])
        assert view.locator("path.cw-arc").count() == 0
        assert view.locator("text.cw-word").count() == 6
        # kernel-only controls are hidden without a kernel; the oracle has no select
        assert not view.locator("input[type=text]").is_visible()
        second = page.locator(".cw-ps").nth(1)
        assert not second.locator("select").is_visible()
        assert second.locator(".cw-ps-probs").is_hidden()
        assert second.locator(".cw-ps-next .cw-ps-key").inner_text() == "Oracle"
        assert unsuppressed_controls(page) == []
    assert_offline(browser)

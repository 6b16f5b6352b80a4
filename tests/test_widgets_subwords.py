"""SubwordExplorer: precomputed merge states, the kernel observer, figure, and a browser."""

from __future__ import annotations

import pytest
from widget_browser import offline_page, unsuppressed_controls, write_widget_page

from course_lib.data import wikitext_lines
from course_lib.subwords import Tokenizer
from course_lib.widgets import SubwordExplorer
from course_lib.widgets.subwords import subword_record

WORDS = ["hat", "learn", "laern", "Transformerify"]


@pytest.fixture(scope="module")
def tokenizers():
    lines = wikitext_lines("train")[:600]
    bpe = Tokenizer.train(
        lines, kind="bpe", vocab_size=900, special_tokens=["<unk>"], unk_token="<unk>"
    )
    wp = Tokenizer.train(lines, kind="wordpiece", vocab_size=900)
    byte = Tokenizer.train(lines, kind="byte_bpe", vocab_size=600)
    return bpe, wp, byte


def test_record_replays_the_encoding(tokenizers):
    bpe, wp, _ = tokenizers
    r = subword_record("learn Transformerify", bpe, wp)
    steps = r["steps"]
    assert steps[0]["segs"] == [list("learn"), list("Transformerify")]
    assert steps[0]["rank"] is None
    final = steps[-1]["segs"]
    assert sum(final, []) == bpe.encode("learn Transformerify").pieces
    assert sum(r["ids"], []) == bpe.encode("learn Transformerify").ids
    for before, after in zip(steps, steps[1:]):
        w, at = after["word"], after["at"]
        assert "".join(after["pair"]) == after["segs"][w][at]
        assert len(after["segs"][w]) == len(before["segs"][w]) - 1
    assert [p for p, _ in r["wordpiece"][0]] == wp.model.split("learn")
    assert r["wordpiece"][1][0][1] == wp.token_to_id(r["wordpiece"][1][0][0])


def test_traits_steps_and_request(tokenizers, monkeypatch):
    monkeypatch.delenv("COURSE_WIDGET_MODE", raising=False)
    bpe, wp, _ = tokenizers
    w = SubwordExplorer(bpe, WORDS, wp, title="subwords")
    assert [it["name"] for it in w.items] == WORDS
    w.step = len(w.items[0]["steps"]) - 1
    w.index = 2
    assert w.step == 0  # a new word starts from its characters
    with pytest.raises(Exception, match="step must be"):
        w.step = 999
    w.add_text("taaaaasty laern")
    assert w.index == len(WORDS) and w.items[-1]["words"] == ["taaaaasty", "laern"]
    with pytest.raises(ValueError, match="at most 12 words"):
        w.add_text(" ".join(["a"] * 13))
    assert w.error and len(w.items) == len(WORDS) + 1
    assert "SubwordExplorer(5 words" in w._plain_text()


def test_plain_bpe_request_with_unknown_character_is_an_error(tokenizers):
    _, wp, _ = tokenizers
    strict = Tokenizer.train(["hat learn"], kind="bpe", vocab_size=20)
    w = SubwordExplorer(strict, ["hat"])
    with pytest.raises(ValueError, match="not in the alphabet"):
        w.add_text("hôtel")


def test_byte_level_and_static_figure(tokenizers):
    bpe, wp, byte = tokenizers
    w = SubwordExplorer(byte, [" hat", "😀 taaaaasty"], wp)
    assert w.kind == "byte_bpe" and w.items[0]["words"] == ["Ġhat"]
    fig = w.static_figure()
    assert len(fig.axes) == 1
    w.index = 1
    assert len(w.static_figure(max_rows=5).axes[0].texts) > 5


def test_bad_inputs(tokenizers):
    bpe, wp, _ = tokenizers
    with pytest.raises(ValueError, match="non-empty list"):
        SubwordExplorer(bpe, "hat")
    with pytest.raises(ValueError, match="index"):
        SubwordExplorer(bpe, ["hat"], index=3)
    with pytest.raises(TypeError, match="kind 'bpe'"):
        SubwordExplorer(wp, ["hat"])
    with pytest.raises(TypeError, match="wordpiece"):
        SubwordExplorer(bpe, ["hat"], bpe)
    with pytest.raises(ValueError, match="no words"):
        subword_record("   ", bpe)


def test_browser_steps_through_merges(tmp_path, tokenizers, monkeypatch):
    monkeypatch.setenv("COURSE_WIDGET_MODE", "html")
    bpe, wp, _ = tokenizers
    w = SubwordExplorer(bpe, WORDS, wp, title="subwords")
    url = write_widget_page(tmp_path / "subwords.html", w)
    n = len(w.items[0]["steps"]) - 1
    with offline_page() as browser:
        page = browser.page
        page.goto(url)
        view = page.locator(".cw-sw").first
        where = view.locator(".cw-sw-where")
        where.wait_for()
        current = view.locator(".cw-sw-current .cw-sw-piece")
        assert where.inner_text() == f"merge 0 / {n}"
        assert current.all_inner_texts() == list("hat")
        assert view.get_by_role("button", name="previous merge").is_disabled()
        view.get_by_role("button", name="next merge").click()
        assert where.inner_text() == f"merge 1 / {n}"
        assert current.count() == 2
        assert view.locator(".cw-sw-current .cw-new").count() == 1
        view.locator("select").select_option(label="Transformerify")
        assert where.inner_text().startswith("merge 0 / ")
        assert current.count() == len("Transformerify")
        view.get_by_role("button", name="final pieces").click()
        pieces = view.locator(".cw-sw-final .cw-sw-piece span").all_inner_texts()
        assert pieces == bpe.encode("Transformerify").pieces
        ids = view.locator(".cw-sw-final .cw-sw-piece small").all_inner_texts()
        assert ids == [str(i) for i in bpe.encode("Transformerify").ids]
        assert current.all_inner_texts() == pieces
        wp_pieces = view.locator(".cw-sw-wordpiece .cw-sw-piece span").all_inner_texts()
        assert wp_pieces == wp.model.split("Transformerify")
        view.get_by_role("button", name="characters").click()
        view.locator("input[type=range]").focus()
        page.keyboard.press("ArrowRight")
        assert where.inner_text().startswith("merge 1 / ")
        assert not view.locator("input[type=text]").is_visible()  # kernel only
        assert view.locator(".cw-sw-legend").inner_text().startswith("WordPiece:")
        assert unsuppressed_controls(page) == []
    assert browser.blocked == [] and browser.errors == []

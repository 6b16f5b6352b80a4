"""EmbeddingExplorer: precomputed neighbours, analogies and map; the query observer; html
bundle; static figure; and the html-mode page driven in headless Chromium."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
import torch
from matplotlib.figure import Figure
from widget_browser import (
    assert_offline,
    offline_page,
    unsuppressed_controls,
    write_widget_page,
)

from course_lib.embeddings import OutOfVocabularyError, analogy, nearest_neighbours
from course_lib.viz import project_2d
from course_lib.widgets.base import js_source
from course_lib.widgets.embedding_explorer import EmbeddingExplorer

WORDS = [
    "the",
    ",",
    "king",
    "queen",
    "man",
    "woman",
    "prince",
    "princess",
    "boy",
    "girl",
]
WORDS += [f"filler{chr(97 + i)}" for i in range(26)] + ["w1", "x"]  # map fillers
VOCAB = {w: i for i, w in enumerate(WORDS)}
ANALOGIES = [("man", "king", "woman", "queen"), ("boy", "prince", "girl")]


def _vectors() -> torch.Tensor:
    g = torch.Generator().manual_seed(0)
    E = torch.randn(len(WORDS), 6, generator=g)
    royal, female = torch.zeros(6), torch.zeros(6)
    royal[0], female[1] = 3.0, 3.0
    base = {"man": 0, "boy": 0.5}
    for w, b in base.items():  # king = man + royal, queen = woman + royal ...
        E[VOCAB[w], 2] = 2 + b
    E[VOCAB["woman"]] = E[VOCAB["man"]] + female
    E[VOCAB["girl"]] = E[VOCAB["boy"]] + female
    E[VOCAB["king"]] = E[VOCAB["man"]] + royal
    E[VOCAB["queen"]] = E[VOCAB["woman"]] + royal
    E[VOCAB["prince"]] = E[VOCAB["boy"]] + royal
    E[VOCAB["princess"]] = E[VOCAB["girl"]] + royal
    return E


def _widget(**kwargs) -> EmbeddingExplorer:
    args = dict(words=["king", "woman"], analogies=ANALOGIES, k=3, n_points=20)
    return EmbeddingExplorer(_vectors(), VOCAB, **{**args, **kwargs})


def test_traits_hold_neighbours_analogies_and_the_map(live):
    E = _vectors()
    w = _widget(title="toy vectors")
    assert w.words == ["king", "woman"] and w.word_index == 0 == w.analogy_index
    for word, got in zip(w.words, w.neighbours, strict=True):
        want = nearest_neighbours(E, VOCAB, word, 3)
        assert [n for n, _ in got] == [n for n, _ in want]
        assert [c for _, c in got] == [round(c, 3) for _, c in want]
    first = w.analogies[0]
    assert (first["a"], first["b"], first["c"], first["expected"]) == ANALOGIES[0]
    assert (
        first["answers"][0][0]
        == "queen"
        == analogy(E, VOCAB, "man", "king", "woman")[0][0]
    )
    assert w.analogies[1]["expected"] == ""
    # the map: queries, neighbours and analogy words first, then frequent words, 20 in all
    assert len(w.labels) == 20 == len(w.points) and "king" in w.labels
    assert {"man", "woman", "queen", "boy", "prince", "girl"} <= set(w.labels)
    assert "," not in w.labels  # default filler words are alphabetic
    want_map = project_2d(E[[VOCAB[x] for x in w.labels]].double())
    np.testing.assert_allclose(np.array(w.points), want_map, atol=6e-3)  # = viz's PCA
    assert all(type(v) is float for v in w.points[0])


def test_defaults_and_validation(live):
    w = EmbeddingExplorer(_vectors(), VOCAB)
    assert w.words == [
        "the",
        "king",
        "queen",
        "man",
        "woman",
        "prince",
        "princess",
        "boy",
    ]
    assert w.analogies == [] and {
        x for x in WORDS if x.isalpha() and len(x) > 1
    } <= set(
        w.labels
    )  # the map: alphabetic words, and others only as someone's neighbours
    shown = set(w.words) | {n for near in w.neighbours for n, _ in near}
    assert all(x in shown for x in w.labels if not (x.isalpha() and len(x) > 1))
    with pytest.raises(OutOfVocabularyError, match="'duke'.*'duchess'"):
        _widget(words=["king", "duke"], analogies=[("duke", "duchess", "man")])
    with pytest.raises(ValueError, match=r"an analogy is \(a, b, c\)"):
        _widget(analogies=[("man", "king")])
    with pytest.raises(ValueError, match=r"E must be a \(V, D\) tensor"):
        EmbeddingExplorer(torch.zeros(3), VOCAB)
    with pytest.raises(Exception, match=r"word_index must be in 0\.\.1"):
        _widget().word_index = 2


def test_the_query_observer_looks_up_any_word_or_analogy(live):
    w = _widget()
    n_map = len(w.labels)
    w.query = "Princess"  # case-insensitive fallback
    assert w.words[-1] == "princess" and w.word_index == 2 and w.message == ""
    assert len(w.neighbours) == 3 and "princess" in w.labels
    assert len(w.labels) == len(w.points) >= n_map
    w.query = "king"  # already there: just selected
    assert w.word_index == 0 and len(w.words) == 3
    w.query = "xyzzy"
    assert "Not in the vocabulary: 'xyzzy'" in w.message and len(w.words) == 3
    w.query = "boy : girl :: prince : ?"
    assert w.message == "" and w.analogy_index == 2
    assert w.analogies[2]["answers"][0][0] == "princess"
    w.query = "one two"
    assert "three words" in w.message


def test_static_figure_highlights_queries(live):
    fig = _widget().static_figure()
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert "king" in texts and "woman" in texts
    assert len(ax.collections) == 1 + 2  # all points, then one group per query word


def _script(page: str, suffix: str):
    m = re.search(
        rf'<script type="application/json" id="[^"]+{suffix}">(.*?)</script>',
        page,
        re.S,
    )
    assert m, f"no {suffix} block"
    return json.loads(m.group(1))


def test_html_bundle_is_self_contained(html):
    w = _widget(title="</script> & <!--")
    assert w.comm is None and w._kernel is False
    bundle = w._repr_mimebundle_()
    page = bundle["text/html"]
    state = _script(page, "-state")
    for key in ("words", "neighbours", "analogies", "points", "labels", "word_index"):
        assert state[key] == getattr(w, key)
    assert state["_kernel"] is False and state["title"] == w.title
    assert _script(page, "-esm") == js_source("embedding_explorer")
    assert page.count("</script") == 3 and "<!--" not in page
    assert "http://" not in page and "https://" not in page
    assert not re.search(r"<script[^>]*\bsrc=", page, re.I)
    assert "EmbeddingExplorer" in bundle["text/plain"]


def test_playwright_select_hover_and_no_network(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_WIDGET_MODE", "html")
    w = _widget(title="toy vectors")
    url = write_widget_page(tmp_path / "explorer.html", w)
    with offline_page() as browser:
        page = browser.page
        page.goto(url)
        root = page.locator(".cw-ee")
        root.locator(".cw-ee-neighbours li").first.wait_for()
        assert root.locator(".cw-ee-title").inner_text() == "toy vectors"

        def words(selector):
            return root.locator(f"{selector} .cw-ee-word").all_inner_texts()

        assert words(".cw-ee-neighbours") == [n for n, _ in w.neighbours[0]]
        marked = {
            "king",
            *(n for n, _ in w.neighbours[0]),
            "man",
            "woman",
            "queen",
        }
        assert root.locator(".cw-ee-label").count() == len(marked)  # query, k, analogy
        # pick another word: its neighbours and the map's highlight follow
        root.get_by_label("Word", exact=True).select_option(label="woman")
        assert words(".cw-ee-neighbours") == [n for n, _ in w.neighbours[1]]
        assert "“woman”" in root.inner_text()
        assert root.locator("circle.cw-q title").text_content() == "woman"
        # pick an analogy: its answers, the expected one ticked
        assert (
            root.locator(".cw-ee-answers li").first.inner_text().startswith("queen ✓")
        )
        root.get_by_label("Analogy", exact=True).select_option(index=1)
        assert (
            root.locator(".cw-ee-answers li").first.inner_text().startswith("princess")
        )
        assert root.locator("circle.cw-ans title").text_content() == "princess"
        # hover a point on the map: the readout names it
        i = w.labels.index("girl")
        root.locator(f'circle[data-i="{i}"]').hover(force=True)
        readout = root.locator(".cw-ee-readout")
        assert readout.inner_text().startswith("girl")
        # the keyboard moves a cursor through the points
        root.locator("svg").focus()
        page.keyboard.press("ArrowRight")
        assert readout.inner_text().startswith(w.labels[(i + 1) % len(w.labels)])
        # the kernel-only look-up box is hidden in the book
        assert not root.locator("input[type=text]").is_visible()
        assert unsuppressed_controls(page) == []
    assert_offline(browser)

"""Four more widget families LIVE in JupyterLab: two-way sync with a kernel.

The server and the page harness are ``tests/live_lab.py``'s (its module-scoped ``lab``
fixture: one offline JupyterLab for this module). One notebook builds
a ``ParserStateExplorer`` (the static oracle on two tiny sentences, no model), a
``PositionalExplorer``, a ``HeadView`` (random small attention stacks) and an
``EmbeddingExplorer`` (random small vectors, a dict vocabulary). Headless Chromium runs all
cells and, for each widget: the view renders from the kernel's traits; a control changed in
the view changes what is shown and reaches the kernel (a new cell prints the traits); a
trait set in the kernel reaches the view; every control carries
``data-lm-suppress-shortcuts`` (JupyterLab leaves its keys alone).
"""

from __future__ import annotations

import re

import live_lab as harness
from live_lab import lab  # noqa: F401 - the module-scoped JupyterLab server
from widget_browser import assert_offline, offline_page, unsuppressed_controls

NOTEBOOK = "live_families.ipynb"
CELLS = [
    "import numpy as np\n"
    "import torch\n"
    "from course_lib.widgets import widget_mode\n"
    "from course_lib.widgets.embedding_explorer import EmbeddingExplorer\n"
    "from course_lib.widgets.head_view import HeadView\n"
    "from course_lib.widgets.parser import ParserStateExplorer\n"
    "from course_lib.widgets.positional import PositionalExplorer\n"
    'assert widget_mode() == "live", widget_mode()',
    # the static oracle (model=None) on two three-word sentences: 7 states each
    "tree = (2, 0, 2), ('nsubj', 'root', 'obj')\n"
    "ps = ParserStateExplorer(\n"
    "    [(('I', 'ate', 'fish'), ('PRON', 'VERB', 'NOUN'), *tree),\n"
    "     (('She', 'saw', 'it'), ('PRON', 'VERB', 'PRON'), *tree)],\n"
    "    title='live parser')\n"
    "ps",
    "pe = PositionalExplorer(8, 10, title='live positional')\npe",
    "g = torch.Generator().manual_seed(0)\n"
    "def stack(tq, tk):  # (L, H, T_q, T_k) = (2, 2, tq, tk), rows sum to 1\n"
    "    return torch.rand(2, 2, tq, tk, generator=g).softmax(-1)\n"
    "hv = HeadView({'encoder': stack(3, 3), 'decoder': stack(2, 2),\n"
    "               'cross': stack(2, 3)}, ['a', 'b', 'c'], ['x', 'y'],\n"
    "              title='live heads')\n"
    "hv",
    "words = ['king', 'queen', 'man', 'woman', 'boy', 'girl'] + [\n"
    "    'fill' + chr(97 + i) * 2 for i in range(14)]\n"
    "vocab = {w: i for i, w in enumerate(words)}\n"
    "E = torch.randn(len(words), 6, generator=torch.Generator().manual_seed(1))\n"
    "ee = EmbeddingExplorer(E, vocab, words=['king', 'woman'],\n"
    "    analogies=[('man', 'king', 'woman', 'queen')], k=3, n_points=20,\n"
    "    title='live vectors')\n"
    "ee",
]
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def test_four_widget_families_live_in_jupyterlab(lab):  # noqa: F811 - the fixture
    harness.write_notebook(lab.root / NOTEBOOK, CELLS)
    with offline_page(allow=(lab.url + "/",)) as browser:
        page = browser.page
        page.set_default_timeout(harness.STEP_TIMEOUT_MS)
        step = harness.stepper(page, browser, lab, "live widget families")

        def run_cell(code: str) -> str:
            return harness.run_cell(page, code)

        def wait_text(selector: str, pattern: str) -> None:
            """Wait until the first element matching ``selector`` has text matching."""
            page.wait_for_function(
                "([s, p]) => { const e = document.querySelector(s);"
                " return !!e && new RegExp(p).test(e.textContent); }",
                arg=[selector, pattern],
            )

        ps, pe = page.locator(".cw-ps"), page.locator(".cw-pe")
        hv, ee = page.locator(".cw-hv"), page.locator(".cw-ee")

        with step("open the notebook, run all cells, render the four widgets"):
            harness.open_notebook(page, lab, NOTEBOOK)
            page.evaluate(harness.JS_RUN_ALL)
            error = page.locator(
                ".jp-OutputArea [data-mime-type='application/vnd.jupyter.error']"
            )
            ready = ee.locator("circle.cw-ee-pt").first.or_(error.first)
            ready.wait_for(timeout=harness.RUN_TIMEOUT_MS)
            assert error.count() == 0, f"a cell failed: {error.first.inner_text()}"
            for root in (ps, pe, hv, ee):
                root.wait_for()
                assert root.count() == 1
            mimes = page.evaluate(harness.JS_OUTPUT_MIMES)
            assert mimes[1:5] == [[WIDGET_MIME]] * 4, mimes  # anywidget views
            assert page.locator(".course-widget").count() == 0  # not html mode
            for root in (ps, pe, ee):
                assert root.get_attribute("data-kernel") == "true"

        # -- ParserStateExplorer -------------------------------------------------------
        probe_ps = "print(ps.index, ps.step, repr(ps.error))"
        where = ps.locator(".cw-ps-where")
        stack = ps.locator(".cw-ps-stack .cw-ps-chip")
        with step("parser: the initial state of the oracle's parse"):
            assert ps.locator(".cw-ps-title").inner_text() == "live parser"
            assert where.inner_text() == "state 0 / 6"
            assert stack.all_inner_texts() == ["ROOT"]
            assert ps.locator(".cw-ps-next .cw-ps-key").inner_text() == "Oracle"
            assert ps.locator(".cw-ps-transition").inner_text() == "SHIFT"
            assert ps.locator("text.cw-word").all_text_contents() == [
                "ROOT",
                "I",
                "ate",
                "fish",
            ]
            assert ps.locator("path.cw-gold").count() == 3
            assert ps.locator("path.cw-arc").count() == 0
            assert ps.get_by_role("button", name="previous state").is_disabled()
            assert unsuppressed_controls(ps) == []
            assert harness.kernel_sees(page, probe_ps, "0 0 ''\n") == "0 0 ''\n"

        with step("parser: buttons, slider and select change the view and the kernel"):
            ps.get_by_role("button", name="next state").click()
            assert where.inner_text() == "state 1 / 6"
            assert stack.all_inner_texts() == ["ROOT", "I"]
            ps.get_by_role("button", name="next state").click()
            ps.get_by_role("button", name="next state").click()  # LEFT-ARC(nsubj)
            assert where.inner_text() == "state 3 / 6"
            assert ps.locator("path.cw-arc").count() == 1
            assert harness.kernel_sees(page, probe_ps, "0 3 ''\n") == "0 3 ''\n"
            ps.get_by_role("button", name="last state").click()
            assert ps.locator(".cw-ps-score").inner_text() == (
                "Final tree: UAS 3/3, LAS 3/3"
            )
            assert ps.locator("path.cw-arc").count() == 3
            slider = ps.locator("input[type=range]")
            slider.focus()
            page.keyboard.press("ArrowLeft")
            assert where.inner_text() == "state 5 / 6"
            assert harness.kernel_sees(page, probe_ps, "0 5 ''\n") == "0 5 ''\n"
            ps.locator("select").select_option(label="She saw it")
            assert where.inner_text() == "state 0 / 6"
            assert ps.locator("text.cw-word").nth(1).text_content() == "She"
            assert harness.kernel_sees(page, probe_ps, "1 0 ''\n") == "1 0 ''\n"

        with step("parser: the text box asks the kernel, which has no model"):
            form = ps.locator("form.cw-ps-ask")
            assert form.is_visible()  # a kernel: the text box is there
            form.locator("input").fill("a/DET cat/NOUN")
            form.locator("input").press(
                "Enter"
            )  # submits (JupyterLab would swallow it)
            wait_text(".cw-ps .cw-ps-error", "no model")
            assert run_cell(probe_ps) == (
                "1 0 'this widget has no model: it can only show gold trees'\n"
            )

        with step("parser: a state set in the kernel reaches the view"):
            assert run_cell("ps.index = 0\nps.step = 4\nprint('set')") == "set\n"
            wait_text(".cw-ps .cw-ps-where", "^state 4 / 6$")
            assert ps.locator("select").input_value() == "0"
            assert ps.locator("text.cw-word").nth(1).text_content() == "I"
            assert ps.locator("path.cw-arc").count() == 1  # nsubj; obj comes next

        # -- PositionalExplorer ----------------------------------------------------------
        probe_pe = "print(pe.offset, pe.dim, pe.d_model, len(pe.pe), len(pe.pe[0]))"
        readout = pe.locator(".cw-pe-readout")
        offset = pe.locator("input[type=range]").nth(0)
        dim = pe.locator("input[type=range]").nth(1)
        d_model = pe.locator("label", has_text="d_model").locator("input")
        canvas = pe.locator("canvas").first
        with step("positional: the table, the sliders and the kernel-only numbers"):
            assert pe.locator(".cw-pe-title").inner_text() == "live positional"
            assert readout.inner_text().startswith("k = 1, t = 0: ")
            assert d_model.is_visible() and d_model.input_value() == "8"
            assert dim.get_attribute("max") == "3"  # D/2 - 1 pairs
            panels = pe.locator(".cw-pe-panel")
            assert panels.first.is_visible()
            assert not panels.last.is_visible()  # no learned table given: hidden
            assert unsuppressed_controls(pe) == []
            assert harness.kernel_sees(page, probe_pe, "1 0 8 10 8\n") == "1 0 8 10 8\n"

        with step("positional: the offset slider's arrow key moves the view, not lab"):
            before_canvas = canvas.evaluate("c => c.toDataURL()")
            offset.focus()
            before_cell = page.evaluate(harness.JS_ACTIVE)
            page.keyboard.press("ArrowRight")
            assert page.evaluate(harness.JS_ACTIVE) == before_cell
            assert offset.input_value() == "2"
            assert readout.inner_text().startswith("k = 2, t = 0: ")
            spread = float(re.search(r"varies by ([\d.]+)", readout.inner_text())[1])
            assert spread < 0.01  # the sinusoids: one similarity at every t
            assert canvas.evaluate("c => c.toDataURL()") != before_canvas  # t, t+k
            canvas.scroll_into_view_if_needed()
            box = canvas.bounding_box()
            page.mouse.move(box["x"] + 5, box["y"] + box["height"] * 0.55)
            assert re.match(r"k = 2, t = [1-9]:", readout.inner_text())
            assert harness.kernel_sees(page, probe_pe, "2 0 8 10 8\n") == "2 0 8 10 8\n"

        with step("positional: a new d_model is recomputed by the kernel and shown"):
            d_model.fill("12")
            d_model.press("Enter")  # committed at once, focus stays in the box
            page.wait_for_function(
                "() => document.querySelectorAll('.cw-pe input[type=range]')[1]"
                ".max === '5'"
            )
            assert (
                harness.kernel_sees(page, probe_pe, "2 0 12 10 12\n")
                == "2 0 12 10 12\n"
            )

        with step("positional: offset and dim set in the kernel reach the view"):
            assert run_cell("pe.offset = 6\npe.dim = 4\nprint('set')") == "set\n"
            wait_text(".cw-pe .cw-pe-readout", "^k = 6, ")
            assert offset.input_value() == "6" and dim.input_value() == "4"
            assert "i = 4 (dims 8, 9)" in pe.locator("output").nth(1).inner_text()

        # -- HeadView --------------------------------------------------------------------
        probe_hv = "print(hv.kind, hv.layer, hv.head)"
        hv_readout = hv.locator(".cw-hv-readout")
        thumbs = hv.locator("button.cw-hv-thumb")
        left = hv.locator(".cw-hv-col.cw-left .cw-hv-tok")

        def visible_lines() -> int:
            return hv.locator("line[visibility=visible]").count()

        with step("head view: the grid of layers x heads and the cross-attention"):
            assert hv.locator(".cw-hv-title").inner_text() == "live heads"
            assert thumbs.count() == 4
            assert hv.locator(".cw-hv-kinds button").all_inner_texts() == [
                "encoder self",
                "decoder self",
                "cross",
            ]
            assert hv_readout.inner_text().startswith("cross, layer 0, head 0: ")
            assert left.all_inner_texts() == ["x", "y"]
            assert hv.locator("line").count() == 6  # 2 queries x 3 keys
            assert unsuppressed_controls(hv) == []
            assert harness.kernel_sees(page, probe_hv, "cross 0 0\n") == "cross 0 0\n"

        with step(
            "head view: a thumbnail, a kind and a hover change the view and kernel"
        ):
            widths = hv.locator("line").evaluate_all(
                "ls => ls.map(l => l.getAttribute('stroke-width'))"
            )
            thumbs.nth(3).click()  # layer 1, head 1
            assert thumbs.nth(3).get_attribute("aria-pressed") == "true"
            assert hv_readout.inner_text().startswith("cross, layer 1, head 1: ")
            assert (
                hv.locator("line").evaluate_all(
                    "ls => ls.map(l => l.getAttribute('stroke-width'))"
                )
                != widths
            )
            assert harness.kernel_sees(page, probe_hv, "cross 1 1\n") == "cross 1 1\n"
            hv.get_by_role("button", name="encoder self").click()
            assert hv_readout.inner_text().startswith("encoder self, layer 1, head 1: ")
            assert left.all_inner_texts() == ["a", "b", "c"]
            assert hv.locator("line").count() == 9
            all_lines = visible_lines()
            left.nth(1).hover()  # only the query "b"'s lines stay
            assert re.match(r"“b” attends to: [abc] \d\.\d\d", hv_readout.inner_text())
            assert visible_lines() <= 3 < all_lines
            assert (
                harness.kernel_sees(page, probe_hv, "encoder 1 1\n") == "encoder 1 1\n"
            )

        with step("head view: kind, layer and head set in the kernel reach the view"):
            out = run_cell(
                "hv.kind = 'decoder'\nhv.layer = 0\nhv.head = 1\nprint('set')"
            )
            assert out == "set\n"
            wait_text(".cw-hv .cw-hv-readout", "^decoder self, layer 0, head 1: ")
            assert left.all_inner_texts() == ["x", "y"]
            assert thumbs.nth(1).get_attribute("aria-pressed") == "true"
            pressed = hv.get_by_role("button", name="decoder self")
            assert pressed.get_attribute("aria-pressed") == "true"

        # -- EmbeddingExplorer -----------------------------------------------------------
        probe_ee = "print(ee.word_index, ee.words, repr(ee.message), len(ee.labels))"
        head = ee.locator(".cw-ee-side > div").nth(3)  # "Nearest neighbours of …"
        word_select = ee.locator("select").first
        circles = ee.locator("circle.cw-ee-pt")
        with step("embeddings: neighbours, the analogy and the map"):
            assert ee.locator(".cw-ee-title").inner_text() == "live vectors"
            assert head.inner_text() == "Nearest neighbours of “king” (cosine)"
            assert ee.locator(".cw-ee-neighbours li").count() == 3
            assert ee.locator(".cw-ee-answers li").count() == 3
            assert circles.count() == 20
            assert ee.locator("circle.cw-q").count() == 1
            assert unsuppressed_controls(ee) == []
            assert (
                harness.kernel_sees(page, probe_ee, "0 ['king', 'woman'] '' 20\n")
                == "0 ['king', 'woman'] '' 20\n"
            )

        with step("embeddings: the select and a hover change the view and the kernel"):
            before = ee.locator(".cw-ee-neighbours").inner_text()
            word_select.select_option(label="woman")
            assert head.inner_text() == "Nearest neighbours of “woman” (cosine)"
            assert ee.locator(".cw-ee-neighbours").inner_text() != before
            circles.nth(5).hover()
            label = circles.nth(5).locator("title").text_content()
            assert ee.locator(".cw-ee-readout").text_content().startswith(f"{label}  (")
            assert (
                harness.kernel_sees(page, probe_ee, "1 ['king', 'woman'] '' 20\n")
                == "1 ['king', 'woman'] '' 20\n"
            )

        with step("embeddings: the text box looks a word up in the kernel"):
            query = ee.locator("input[type=text]")
            assert query.is_visible()
            query.fill("nowhere")
            ee.get_by_role("button", name="Look up").click()
            wait_text(".cw-ee .cw-ee-message", "Not in the vocabulary: 'nowhere'")
            query.fill("MAN")  # looked up lower-cased too
            ee.get_by_role("button", name="Look up").click()
            page.wait_for_function(
                "() => document.querySelector('.cw-ee select').options.length === 3"
            )
            wait_text(".cw-ee .cw-ee-side", "Nearest neighbours of “man”")
            assert word_select.input_value() == "2"
            assert ee.locator(".cw-ee-message").inner_text() == ""
            assert (
                harness.kernel_sees(
                    page, probe_ee, "2 ['king', 'woman', 'man'] '' 20\n"
                )
                == "2 ['king', 'woman', 'man'] '' 20\n"
            )

        with step("embeddings: a word chosen in the kernel reaches the view"):
            assert run_cell("ee.word_index = 0\nprint('set')") == "set\n"
            wait_text(".cw-ee .cw-ee-side", "Nearest neighbours of “king”")
            assert word_select.input_value() == "0"

        with step("nothing left the machine, no page errors"):
            assert_offline(browser, allow=(lab.url + "/",), websockets=True)

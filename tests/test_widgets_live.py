"""The widgets LIVE in JupyterLab: anywidget's front end, two-way sync with a kernel.

A module-scoped JupyterLab server (``COURSE_WIDGET_MODE=live``, no token, every network
feature off, its config, data, settings and runtime directories in a temporary folder)
serves a small notebook that builds a ``HeatmapExplorer`` and a tiny
``mlp_gradient_flow_explorer``. Headless Chromium (the harness of ``widget_browser.py``:
only the server, data: and blob: URLs get through) opens it, runs all cells, drives the
controls with the keyboard and the mouse, and checks that the view changes, that each
change reaches the kernel (a new cell prints the traits), that a change made in the kernel
reaches the view, and that JupyterLab leaves the controls' arrow keys alone
(``data-lm-suppress-shortcuts``). Missing JupyterLab, Chromium or Playwright is a
failure, not a skip. On failure the message names the step and a screenshot is saved.
"""

from __future__ import annotations

import re

from live_lab import (  # noqa: F401 - lab: the module-scoped JupyterLab server
    JS_ACTIVE,
    JS_OUTPUT_MIMES,
    JS_RUN_ALL,
    RUN_TIMEOUT_MS,
    STEP_TIMEOUT_MS,
    WIDGET_MIME,
    kernel_sees,
    lab,
    open_notebook,
    run_cell,
    stepper,
    write_notebook,
)
from widget_browser import assert_offline, offline_page

NOTEBOOK = "live_widgets.ipynb"
CELLS = [
    "import numpy as np\n"
    "from course_lib.widgets import (\n"
    "    HeatmapExplorer, mlp_gradient_flow_explorer, widget_mode)\n"
    'assert widget_mode() == "live", widget_mode()',
    "heat = HeatmapExplorer(\n"
    '    {"a": np.zeros((2, 2)), "b": np.eye(2), "c": np.ones((2, 2))},\n'
    '    ["x", "y"], title="live heatmap", value_range=(0, 1))\n'
    "heat",
    "grad = mlp_gradient_flow_explorer(\n"
    '    depths=(4, 8), activations=("tanh", "relu"), init_scales={"1": 1.0},\n'
    "    width=8, batch=8)\n"
    "grad",
]
# What the kernel holds, printed by a new cell: heatmap index, depth, activation, shared axis
PROBE = (
    'print(heat.index, grad.selection["depth"], grad.selection["activation"], '
    "grad.shared_axis)"
)


def test_widgets_live_in_jupyterlab(lab):  # noqa: F811 - the fixture
    write_notebook(lab.root / NOTEBOOK, CELLS)
    with offline_page(allow=(lab.url + "/",)) as browser:
        page = browser.page
        page.set_default_timeout(STEP_TIMEOUT_MS)
        step = stepper(page, browser, lab, "live widgets")

        def active() -> list:
            return page.evaluate(JS_ACTIVE)

        heat = page.locator(".cw-hm")
        grad = page.locator(".cw-gf")
        cells = heat.locator(".cw-hm-cell")
        name = heat.locator("output.cw-hm-name")
        readout = heat.locator(".cw-hm-readout")
        columns = grad.locator(".cw-gf-col")

        def colours() -> list[str]:
            return cells.evaluate_all(
                "cs => cs.map(c => getComputedStyle(c).backgroundColor)"
            )

        def norms() -> list[str]:
            return columns.evaluate_all(
                "gs => gs.map(g => g.getAttribute('data-norm'))"
            )

        def radio(control: str, option: str):
            fieldset = grad.locator("fieldset").filter(
                has=page.locator("legend", has_text=re.compile(f"^{control}$"))
            )
            return fieldset.locator(f"input[type=radio][value='{option}']")

        with step("open the notebook in JupyterLab"):
            open_notebook(page, lab, NOTEBOOK)

        with step("run all cells and render both widgets"):
            page.evaluate(JS_RUN_ALL)
            error = page.locator(
                ".jp-OutputArea [data-mime-type='application/vnd.jupyter.error']"
            )
            ready = grad.locator(".cw-gf-col").first.or_(error.first)
            ready.wait_for(timeout=RUN_TIMEOUT_MS)
            assert error.count() == 0, f"a cell failed: {error.first.inner_text()}"
            heat.wait_for()
            assert heat.count() == 1 and grad.count() == 1
            # anywidget's views, not the html-mode fallback
            mimes = page.evaluate(JS_OUTPUT_MIMES)
            assert mimes[1:3] == [[WIDGET_MIME], [WIDGET_MIME]], mimes
            assert page.locator(".course-widget").count() == 0
            assert heat.get_attribute("data-kernel") == "true"
            assert grad.get_attribute("data-kernel") == "true"
            zeros = colours()
            assert cells.count() == 4 and len(set(zeros)) == 1  # all zeros
            assert name.text_content().startswith("a  (1/3)")
            assert columns.count() == 8  # depth 16 is not there: 8 is the nearest
            assert radio("depth", "8").is_checked()
            assert radio("activation", "tanh").is_checked()
            assert kernel_sees(page, PROBE, "0 8 tanh True\n") == "0 8 tanh True\n"

        with step("heatmap: the slider's arrow key moves the view, not the notebook"):
            slider = heat.locator("input[type=range]")
            slider.focus()
            before_cell = active()  # focusing an output makes its cell active
            before = colours()
            page.keyboard.press("ArrowUp")  # JupyterLab: notebook:move-cursor-up
            assert active() == before_cell, "JupyterLab took the slider's arrow key"
            assert slider.input_value() == "1"
            assert name.text_content().startswith("b  (2/3)"), name.text_content()
            assert colours() != before

        with step("heatmap: the grid's arrow keys move its cursor, not the notebook"):
            heat.locator(".cw-hm-grid").focus()
            assert readout.inner_text() == "x · x = 1"
            before_cell = active()
            page.keyboard.press("ArrowDown")  # JupyterLab: notebook:move-cursor-down
            assert active() == before_cell, "JupyterLab took the grid's arrow key"
            assert readout.inner_text() == "y · x = 0"

        with step("heatmap: the slider's value reaches the kernel"):
            assert kernel_sees(page, PROBE, "1 8 tanh True\n") == "1 8 tanh True\n"

        with step("gradient flow: a radio's arrow key and clicks change the view"):
            radio("depth", "8").focus()
            before_cell = active()
            page.keyboard.press("ArrowUp")  # the previous option; JupyterLab: cell up
            assert active() == before_cell, "JupyterLab took the radio's arrow key"
            assert radio("depth", "4").is_checked()
            assert columns.count() == 4
            before = norms()
            radio("activation", "relu").locator("xpath=..").click()  # its label
            assert radio("activation", "relu").is_checked()
            assert columns.count() == 4 and norms() != before
            grad.get_by_label(
                "same y axis for every setting"
            ).uncheck()  # on by default in this explorer

        with step("gradient flow: the controls reach the kernel"):
            assert kernel_sees(page, PROBE, "1 4 relu False\n") == "1 4 relu False\n"

        with step("a change made in the kernel reaches both views"):
            out = run_cell(
                page,
                'heat.index = 2\ngrad.selection = {"depth": 8, "activation": "tanh"}\n'
                'print("set")',
            )
            assert out == "set\n"
            page.wait_for_function(
                "() => document.querySelector('.cw-hm output').textContent"
                ".startsWith('c  (3/3)')"
            )
            assert heat.locator("input[type=range]").input_value() == "2"
            ones = colours()
            assert len(set(ones)) == 1 and ones != zeros
            page.wait_for_function(
                "() => document.querySelectorAll('.cw-gf .cw-gf-col').length === 8"
            )
            assert radio("depth", "8").is_checked()
            assert radio("activation", "tanh").is_checked()

        with step(
            "control: without data-lm-suppress-shortcuts JupyterLab takes arrows"
        ):
            # Shows that the checks above can fail: the same key on the slider, attribute
            # removed. (JupyterLab 4 skips keydowns a handler has already preventDefault-ed,
            # so the grid is safe either way; native controls such as the slider and the
            # radios are not.)
            slider = heat.locator("input[type=range]")
            slider.focus()
            before_cell = active()
            slider.evaluate("s => s.removeAttribute('data-lm-suppress-shortcuts')")
            page.keyboard.press(
                "ArrowDown"
            )  # the slider: 2 -> 1; JupyterLab: next cell
            after_cell = active()
            assert after_cell[0] == before_cell[0] + 1, (
                "JupyterLab no longer takes an arrow key from an output's control "
                f"(active cell {before_cell} -> {after_cell}); the checks that it leaves "
                "them alone prove nothing"
            )
            assert slider.input_value() == "2"

        with step("nothing left the machine, no page errors"):
            assert_offline(browser, allow=(lab.url + "/",), websockets=True)

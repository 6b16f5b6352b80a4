"""The JupyterLab harness of the live widget tests (tests/test_widgets_live*.py and the
attention widget's live test): a module-scoped, offline JupyterLab server in live widget
mode (``lab``), a notebook writer, and page helpers that open a notebook, run cells and
name the failing step. Imported as a plain module (``from live_lab import ...``).

The server: no token, every network feature off, its config, data, settings and runtime
directories in a temporary folder. Missing JupyterLab is a failure, not a skip.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import pathlib
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent
START_TIMEOUT_S = 90  # JupyterLab's server on two busy cores
LOAD_TIMEOUT_MS = 90_000  # the JupyterLab page (a few MB of JavaScript) and the kernel
RUN_TIMEOUT_MS = 90_000  # run all cells: import torch, compute the gradient grid
STEP_TIMEOUT_MS = 15_000  # every other wait

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"

# the page's side: the app is exposed as window.jupyterapp (LabApp.expose_app_in_browser)
JS_APP_READY = """() => {
  const app = window.jupyterapp;
  const panel = app && app.shell && app.shell.currentWidget;
  return !!(panel && panel.sessionContext && panel.content && panel.content.widgets.length);
}"""
# the document is loaded and its kernel connected and idle (polled: every wait is bounded)
JS_KERNEL_READY = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const session = panel.sessionContext.session;
  const kernel = session && session.kernel;
  return panel.context.isReady && panel.sessionContext.isReady && !!kernel &&
    kernel.connectionStatus === "connected" && kernel.status === "idle";
}"""
# Commands are started, not awaited (a dead kernel must not hang the test): their effects
# are waited for with timeouts. Lumino runs a command's body synchronously.
JS_RUN_ALL = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  panel.content.activeCellIndex = 0;
  void window.jupyterapp.commands.execute("notebook:run-all-cells");
}"""
# a new cell at the end with this source, started; returns its index
JS_RUN_NEW_CELL = """(code) => {
  const app = window.jupyterapp;
  const nb = app.shell.currentWidget.content;
  nb.activeCellIndex = nb.widgets.length - 1;
  void app.commands.execute("notebook:insert-cell-below");
  const cell = nb.activeCell;
  if (nb.widgets.indexOf(cell) !== nb.widgets.length - 1) throw new Error("no new cell");
  cell.model.sharedModel.setSource(code);
  void app.commands.execute("notebook:run-cell");
  return nb.widgets.indexOf(cell);
}"""
# the output of cell i once it has run and printed: {count, text} (streams, results, errors)
JS_CELL_OUTPUT = """(i) => {
  const cell = window.jupyterapp.shell.currentWidget.content.widgets[i];
  if (!cell || cell.model.executionCount === null) return null;
  const text = cell.model.outputs.toJSON().map((o) => {
    if (o.output_type === "stream") return [].concat(o.text).join("");
    if (o.output_type === "error") return `${o.ename}: ${o.evalue}`;
    return [].concat((o.data || {})["text/plain"] || "").join("");
  }).join("");
  return text ? { count: cell.model.executionCount, text } : null;
}"""
# the mime types of each cell's display outputs, each sorted, less text/plain
JS_OUTPUT_MIMES = """() => window.jupyterapp.shell.currentWidget.content.widgets.map(
  (cell) => (cell.model.outputs ? cell.model.outputs.toJSON() : [])
    .filter((o) => o.data)
    .map((o) => Object.keys(o.data).filter((k) => k !== "text/plain").sort().join(" "))
)"""
JS_ACTIVE = """() => {
  const nb = window.jupyterapp.shell.currentWidget.content;
  return [nb.activeCellIndex, nb.mode];
}"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_notebook(path: pathlib.Path, sources: list[str]) -> None:
    """A notebook of code cells with these sources and no outputs, for the server."""
    cells = [
        {
            "cell_type": "code",
            "execution_count": None,
            "id": f"cell-{i}",
            "metadata": {},
            "outputs": [],
            "source": source,
        }
        for i, source in enumerate(sources)
    ]
    notebook = {
        "cells": cells,
        "metadata": {
            "kernelspec": {
                "display_name": "Python 3 (ipykernel)",
                "language": "python",
                "name": "python3",
            }
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook, indent=1), encoding="utf-8")


def run_cell(page, code: str) -> str:
    """Run ``code`` in a new cell at the end of the open notebook; return its output."""
    index = page.evaluate(JS_RUN_NEW_CELL, code)
    handle = page.wait_for_function(JS_CELL_OUTPUT, arg=index)
    return handle.json_value()["text"]


def kernel_sees(
    page, probe: str, expected: str, *, tries: int = 20, pause_ms: int = 250
) -> str:
    """Run ``probe`` until it prints ``expected`` and return its last output: a change made
    in the view can reach the kernel a moment after the view shows it (busy cores)."""
    out = run_cell(page, probe)
    for _ in range(tries - 1):
        if out == expected:
            break
        page.wait_for_timeout(pause_ms)
        out = run_cell(page, probe)
    return out


def stepper(page, browser, lab: Lab, what: str):
    """A ``step(name)`` context manager: a failure inside names the step, the time since
    this call, the page's errors and blocked requests, and saves a screenshot."""
    started = time.monotonic()

    @contextlib.contextmanager
    def step(name: str) -> Iterator[None]:
        try:
            yield
        except Exception as err:
            shot = lab.tmp / f"failed-{re.sub(r'[^a-z0-9]+', '-', name.lower())}.png"
            try:
                page.screenshot(path=str(shot), timeout=5_000)
                where = f"screenshot: {shot}"
            except Exception as shot_err:  # noqa: BLE001 - best effort
                where = f"(no screenshot: {shot_err})"
            pytest.fail(
                f"{what}, step {name!r} failed after "
                f"{time.monotonic() - started:.0f} s: {type(err).__name__}: {err}\n"
                f"{where}\npage errors: {browser.errors}\nblocked: {browser.blocked}\n"
                f"server log {lab.log}:\n{lab.log_tail()}"
            )

    return step


@dataclass
class Lab:
    url: str  # "http://127.0.0.1:<port>"
    root: pathlib.Path  # the server's root_dir
    log: pathlib.Path  # the server's stdout and stderr
    tmp: pathlib.Path  # screenshots go here

    def log_tail(self, n: int = 25) -> str:
        try:
            lines = self.log.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError as err:
            return f"(no server log: {err})"
        return "\n".join(lines[-n:])


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM (the server shuts its kernels down), then SIGKILL what is left of the group."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)  # a kernel the server left behind


@pytest.fixture(scope="module")
def lab(tmp_path_factory) -> Iterator[Lab]:
    """A JupyterLab server on a free local port, offline, in live widget mode."""
    if importlib.util.find_spec("jupyterlab") is None:
        pytest.fail(
            "the live widget test needs JupyterLab in the venv: "
            ".venv/bin/pip install -r requirements.txt (jupyterlab==4.6.6)"
        )
    tmp = tmp_path_factory.mktemp("jupyterlab")
    root = tmp / "root"
    root.mkdir()
    settings = tmp / "settings"
    notification = settings / "@jupyterlab" / "apputils-extension"
    notification.mkdir(parents=True)
    # no "would you like news?" toast over the page, and no update check
    (notification / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}), encoding="utf-8"
    )
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = dict(
        os.environ,
        COURSE_WIDGET_MODE="live",
        JUPYTER_CONFIG_DIR=str(tmp / "config"),  # no user config
        JUPYTER_DATA_DIR=str(tmp / "data"),  # no user extensions; the venv's are kept
        JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
        IPYTHONDIR=str(tmp / "ipython"),  # no user startup files in the kernel
        PYTHONPATH=os.pathsep.join(
            p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p
        ),
    )
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--allow-root",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        "--ServerApp.disable_check_xsrf=True",
        "--ServerApp.terminals_enabled=False",
        f"--ServerApp.root_dir={root}",
        # nothing leaves the machine: no news, no update check, no PyPI extension listing
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
        f"--LabApp.user_settings_dir={settings}",
        f"--LabApp.workspaces_dir={tmp / 'workspaces'}",
        "--LabApp.expose_app_in_browser=True",  # window.jupyterapp, to run commands
    ]
    log = tmp / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            command,
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, kernels included
        )
    server = Lab(url, root, log, tmp)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                pytest.fail(
                    f"JupyterLab exited with code {proc.returncode} while starting; "
                    f"log {log}:\n{server.log_tail()}"
                )
            try:
                with urllib.request.urlopen(f"{url}/api/status", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(
                    f"JupyterLab did not answer on {url} within {START_TIMEOUT_S} s; "
                    f"log {log}:\n{server.log_tail()}"
                )
            time.sleep(0.25)
        yield server
    finally:
        _stop(proc)


def open_notebook(page, lab: Lab, name: str) -> None:
    """Open ``name`` (under the server's root) and wait until its kernel is idle."""
    page.goto(f"{lab.url}/lab/tree/{name}", timeout=LOAD_TIMEOUT_MS)
    page.wait_for_function(JS_APP_READY, timeout=LOAD_TIMEOUT_MS)
    page.wait_for_function(JS_KERNEL_READY, timeout=LOAD_TIMEOUT_MS)

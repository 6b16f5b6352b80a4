"""The repository's address is set once, as ``repository.url`` in ``_config.yml`` (the book's
buttons take it from there), and every place that must repeat it, because it is read where
the configuration is not (a chapter's first cell on Colab, the setup page), repeats it exactly:
a fork changes ``_config.yml`` and this test names every other place to change."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
URL = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["repository"][
    "url"
]
GITHUB = re.compile(r"github\.com/[\w.-]+/[\w.-]+?(?=[\"'/\s)`]|\.git|$)")


def test_the_configured_address_is_a_github_repository():
    assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", URL), URL


def test_every_chapter_installs_the_course_from_the_configured_repository():
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        first = next("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        assert f'"course_lib @ git+{URL}"' in first, (
            f"{path.name}'s first cell must install course_lib from {URL} (_config.yml's "
            f"repository.url); it reads:\n{first}"
        )


def test_the_setup_page_names_the_same_repository():
    text = (ROOT / "book" / "setup.md").read_text(encoding="utf-8")
    found = {f"https://{m}" for m in GITHUB.findall(text) if "colab" not in m}
    assert found == {URL}, f"book/setup.md names {found}, _config.yml {URL}"

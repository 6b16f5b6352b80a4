"""The Results page's tables (course_lib.results_report) and the anchors they cite."""

import re
from pathlib import Path

import pytest
import yaml

from course_lib import results
from course_lib.results_report import (
    MISSING,
    chapter_table,
    coverage,
    find_root,
    format_value,
    lookup,
    results_markdown,
    toc_chapters,
)

ROOT = Path(__file__).resolve().parents[1]


def test_every_anchor_cites_a_reference_and_every_chapter_is_in_the_toc():
    anchors = yaml.safe_load(
        (ROOT / "book" / "anchors.yml").read_text(encoding="utf-8")
    )
    keys = set(
        re.findall(
            r"^@\w+\{([^,]+),", (ROOT / "book" / "references.bib").read_text(), re.M
        )
    )
    assert set(anchors) <= set(toc_chapters(ROOT))
    for chapter, rows in anchors.items():
        for row in rows:
            assert {"key", "label"} <= set(row), (chapter, row)
            assert "target" not in row, (chapter, row)  # results and anchors, no goals
            if "published" in row:
                assert row.get("setting"), (chapter, row)
                assert (row.get("cite") in keys) != bool(row.get("measured")), (
                    chapter,
                    row,
                )
            if row.get("measured"):  # a number measured for the course: by this script
                assert (ROOT / row["measured"]).is_file(), (chapter, row)


def test_missing_results_are_shown_missing_never_filled_in(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_RESULTS_DIR", str(tmp_path))
    results.record("ch01", "skip_gram_wordsim", 0.41234, glue=False)
    page = results_markdown(ROOT)
    ch01 = page.split("**1. ")[1].split("\n\n**")[0]
    assert (
        "| skip-gram, WordSim-353 Spearman ρ | 0.412 | 0.373 (measured by "
        "`benchmarks/word2vec_vs_gensim.py`) |" in ch01
    )
    # the PPMI-SVD and analogy rows were not recorded, nor the two counts of items scored
    assert ch01.count(MISSING) == 4
    assert "profile" in ch01
    assert "No results were recorded" in page.split("**2. ")[1].split("\n\n**")[0]


def test_a_chapter_without_anchor_rows_shows_what_it_recorded(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_RESULTS_DIR", str(tmp_path))
    results.record(
        "ch42", "digit_accuracy", 0.75, glue=False
    )  # a chapter not in the toc
    page = results_markdown(ROOT)
    assert (
        "**Chapter 42** (ch42)" in page and "| digit_accuracy | 0.75 | none |" in page
    )


def test_helpers():
    assert lookup({"a": {"b": 2}}, "a.b") == 2 and lookup({"a": 1}, "a.b") is None
    assert format_value(None) == MISSING and format_value(0.1234, ".1%") == "12.3%"
    assert format_value("ADJ → NOUN") == "ADJ → NOUN"
    assert "a\\|b" in chapter_table({"x": "a|b"}, None)
    with pytest.raises(ValueError, match="key"):
        chapter_table({}, [{"label": "no key"}])
    assert find_root(ROOT / "book") == ROOT
    with pytest.raises(ValueError, match="_toc.yml"):
        find_root("/")


def test_the_results_page_is_read_after_every_chapter():
    # Sphinx reads (and myst-nb executes) pages in sorted order of their names.
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    pages = [c["file"] for part in toc["parts"] for c in part["chapters"]]
    results_page = [p for p in pages if p.endswith("results")]
    assert results_page and (ROOT / f"{results_page[0]}.md").is_file()
    chapters = [
        str(p.relative_to(ROOT).with_suffix("")) for p in toc_chapters(ROOT).values()
    ]
    assert all(results_page[0] > chapter for chapter in chapters)


def test_coverage_says_how_many_items_each_side_scored():
    row = {"key": "acc", "covered": "n", "anchor_covered": 8087, "items": "questions"}
    assert coverage({"n": 8087}, row) == (
        " Ours scored on 8,087 questions, the anchor on 8,087 (the same count)."
    )
    assert coverage({"n": 1865}, row).endswith(
        "the anchor on 8,087 (not the same items)."
    )
    assert (
        coverage({}, row)
        == f" Ours scored on {MISSING} questions, the anchor on 8,087."
    )
    assert (
        coverage({"n": 299}, {"key": "ws", "covered": "n"})
        == " Ours scored on 299 items."
    )
    assert coverage({"n": 5}, {"key": "ws"}) == ""
    table = chapter_table({"acc": 0.5, "n": 10}, [{**row, "setting": "gensim."}])
    assert (
        "| gensim. Ours scored on 10 questions, the anchor on 8,087 (not the same"
        in table
    )

"""The bilingual glossary: the terms the issue lists, each with a Chinese name, and every
{term} link of the chapters and pages resolving to one (the -W build fails on the rest)."""

import importlib.util
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CJK = re.compile(r"[\u4e00-\u9fff]")


def entries() -> list[list[str]]:
    text = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    body = text.split("```{glossary}\n", 1)[1].rsplit("```", 1)[0]
    return [
        t.strip().split("\n") for t in re.findall(r"^((?:\S[^\n]*\n)+)  ", body, re.M)
    ]


def test_every_entry_has_an_english_term_and_a_chinese_name():
    for names in entries():
        assert not CJK.search(names[0]), names
        assert CJK.search(names[-1]), f"no Chinese name for {names[0]!r}"


def test_the_listed_terms_are_there():
    terms = {n.lower() for names in entries() for n in names}
    wanted = [
        "hidden state",
        "隐状态",
        "forget gate",
        "遗忘门",
        "input gate",
        "输入门",
        "output gate",
        "输出门",
        "update gate",
        "更新门",
        "reset gate",
        "重置门",
        "memory cell",
        "记忆元",
        "scaled dot-product attention",
        "缩放点积注意力",
        "attention pooling",
        "注意力汇聚",
        "ppmi",
        "greedy decoding",
        "kv cache",
        "pre-ln",
        "post-ln",
        "label smoothing",
        "subword",
        "bpe",
        "wordpiece",
        "mlm",
        "span corruption",
        "prefix tuning",
        "ctc",
        "blank",
        "trigger word detection",
    ]
    assert not [w for w in wanted if w not in terms]


def test_every_term_link_resolves():
    terms = {n.lower() for names in entries() for n in names}
    sources = [p.read_text(encoding="utf-8") for p in (ROOT / "book").glob("*.md")]
    for path in sorted(ROOT.glob("notebooks/[0-9][0-9]_*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        sources += ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    links = [m for s in sources for m in re.findall(r"\{term\}`([^`]+)`", s)]
    targets = [re.sub(r"^.*<(.+)>$", r"\1", link).strip().lower() for link in links]
    assert len(links) > 100
    assert not [t for t in targets if t not in terms]


def _link_terms():
    if str(ROOT / "tools") not in sys.path:  # it imports notebooks_sync, beside it
        sys.path.insert(0, str(ROOT / "tools"))
    spec = importlib.util.spec_from_file_location(
        "link_terms", ROOT / "tools" / "link_terms.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_link_terms_links_first_uses_in_prose_only():
    tool = _link_terms()
    texts = [
        "## Hidden state\n\nThe `hidden state` and $hidden state$ stay.",
        "An RNN keeps hidden states; backpropagation through time, then hidden state.",
    ]
    terms = ["backpropagation through time", "hidden state", "backpropagation", "RNN"]
    out, done = tool.link_chapter(texts, terms)
    assert out[0] == texts[0]
    assert out[1] == (
        "An {term}`RNN` keeps {term}`hidden states <hidden state>`; "
        "{term}`backpropagation through time`, then hidden state."
    )
    assert sorted(done) == ["RNN", "backpropagation through time", "hidden state"]


def test_every_chapter_links_the_first_use_of_each_term():
    assert _link_terms().main(["--check"]) == 0, "run: python tools/link_terms.py"

"""The registry's pins, checked against the real offline mirror, and the corpus counts.

The mirror is ``COURSE_LIB_DATA`` (CI sets it) or else ``<repo>/../shared/data``; when
neither exists these tests FAIL rather than skip, so a missing mirror is noticed.
Nothing is downloaded: the opener is replaced by one that fails the test.
"""

import gzip
import hashlib
import importlib
import os
import re
from collections import Counter
from pathlib import Path

import pytest

from course_lib.data import (
    DATASETS,
    analogy_questions,
    ewt,
    similarity_pairs,
    sst2,
    translation_pairs,
    wikitext_sentences,
    wikitext_tokens,
)

REPO = Path(__file__).resolve().parents[1]
PINNED_URL = re.compile(
    r"https://raw\.githubusercontent\.com/[\w.-]+/[\w.-]+/"
    r"([0-9a-f]{40}|r\d+\.\d+|\d+\.\d+\.\d+)/"
)


# --- structure (no data needed) ------------------------------------------------------


def test_every_file_is_pinned_to_a_tag_or_commit():
    assert set(DATASETS) == {
        "ud_english_ewt",
        "wikitext-2",
        "tatoeba_eng_fra",
        "multi30k_en_de",
        "word_vector_eval",
        "fsdd",
        "sst2",
    }
    for ds in DATASETS.values():
        assert ds.licence and ds.citation and ds.homepage, ds.name
        for name, spec in ds.files.items():
            if ds.name == "fsdd":  # the mirror's archive; upstream serves each WAV
                assert PINNED_URL.match(spec.url), spec.url
                assert spec.url.endswith("/recordings/"), spec.url
                continue
            assert PINNED_URL.match(spec.url), spec.url
            assert spec.url.endswith("/" + name) or spec.member, spec.url
            assert spec.bytes > 0 and len(spec.sha256) == 64


def test_multi30k_is_download_only():
    ds = DATASETS["multi30k_en_de"]
    assert not ds.redistributable and "non-commercial" in ds.licence
    assert all(s.gzipped for s in ds.files.values())
    download_only = {"multi30k_en_de", "sst2"}
    assert all(d.redistributable for n, d in DATASETS.items() if n not in download_only)


def test_sst2_is_download_only():
    ds = DATASETS["sst2"]
    assert not ds.redistributable and "download only" in ds.licence
    assert set(ds.files) == {"train.tsv", "dev.tsv", "test.tsv"}


def test_no_multi30k_text_in_the_fixtures():
    fixtures = REPO / "tests" / "fixtures"
    names = [p.name for p in fixtures.rglob("*")]
    assert not any(n.endswith((".en.gz", ".de.gz", ".en", ".de")) for n in names)


# --- against the mirror --------------------------------------------------------------


@pytest.fixture(scope="module")
def mirror_dir() -> Path:
    """The real offline mirror; fails (does not skip) when none is found."""
    entries = [e for e in os.environ.get("COURSE_LIB_DATA", "").split(os.pathsep) if e]
    for candidate in [*map(Path, entries), REPO.parent / "shared" / "data"]:
        if candidate.resolve().is_dir():
            return candidate.resolve()
    pytest.fail(
        "No data mirror: set COURSE_LIB_DATA to the course's shared/data folder "
        f"(looked in {entries or 'COURSE_LIB_DATA (unset)'} and "
        f"{REPO.parent / 'shared' / 'data'})."
    )


@pytest.fixture(scope="module")
def real_data(mirror_dir, tmp_path_factory):
    """Point fetch() at the mirror and a fresh cache; any download fails the test."""
    fetch_mod = importlib.import_module("course_lib.data.fetch")

    def offline(url, timeout):
        raise AssertionError(f"tests must not download ({url})")

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("COURSE_LIB_DATA", str(mirror_dir))
        mp.setenv("COURSE_LIB_CACHE", str(tmp_path_factory.mktemp("cache")))
        mp.setattr(fetch_mod, "_urlopen", offline)
        yield mirror_dir


def _digest(path: Path, decompress: bool) -> tuple[str, int]:
    data = gzip.decompress(path.read_bytes()) if decompress else path.read_bytes()
    return hashlib.sha256(data).hexdigest(), len(data)


@pytest.mark.parametrize(
    ("dataset", "name"),
    [(d, f) for d, ds in DATASETS.items() for f in ds.files],
)
def test_pin_matches_the_mirror_copy(mirror_dir, dataset, name):
    spec = DATASETS[dataset].files[name]
    plain, packed = mirror_dir / dataset / name, mirror_dir / dataset / f"{name}.gz"
    if plain.is_file():
        digest = _digest(plain, decompress=False)
    elif packed.is_file() and not spec.gzipped:
        digest = _digest(packed, decompress=True)
    else:
        pytest.fail(f"{dataset}/{name}: neither {plain} nor {packed} exists")
    assert digest == (spec.sha256, spec.bytes)


def test_ewt_counts(real_data):
    counts = {
        "train": (12_544, 204_577),
        "dev": (2_001, 25_147),
        "test": (2_077, 25_094),
    }
    surface = {"train": 201_962, "dev": 24_787, "test": 24_740}
    for split, (n_sents, n_words) in counts.items():
        sents = ewt(split)
        words = sum(map(len, sents))
        assert (len(sents), words) == (n_sents, n_words), split
        merged = sum(last - first for s in sents for first, last, _ in s.multiwords)
        assert words - merged == surface[split], split
    root_once = all(s.heads.count(0) == 1 for s in sents)
    assert root_once and all(max(s.heads) <= len(s) for s in sents)


def test_wikitext_counts(real_data):
    for split, n in {"train": 2_088_628, "valid": 217_646, "test": 245_569}.items():
        assert len(wikitext_tokens(split)) == n, split
    sents = wikitext_sentences("train")
    assert (len(sents), sum(map(len, sents))) == (17_556, 2_007_146)
    assert len({t for s in sents for t in s}) == 28_910


def test_translation_pair_counts(real_data):
    pairs = translation_pairs("tatoeba_eng_fra")
    assert len(pairs) == 167_130 and pairs[0] == ("Go.", "Va !")
    assert not any("\u202f" in f or "\u00a0" in f for _, f in pairs)
    for split, n in {"train": 29_000, "val": 1_014, "test_2016_flickr": 1_000}.items():
        pairs = translation_pairs("multi30k_en_de", split)
        assert len(pairs) == n and all(en and de for en, de in pairs), split


def test_sst2_counts(real_data):
    counts = {"train": (67_349, 37_569), "dev": (872, 444), "test": (1_821, 909)}
    for split, (n, positive) in counts.items():
        pairs = sst2(split)
        assert (len(pairs), sum(label for label, _ in pairs)) == (n, positive), split


def test_eval_set_counts(real_data):
    questions = analogy_questions()
    sections = Counter(q[0] for q in questions)
    assert len(questions) == 19_544 and len(sections) == 14
    assert sections["capital-world"] == 4_524 and sections["gram9-plural-verbs"] == 870
    semantic = sum(n for s, n in sections.items() if not s.startswith("gram"))
    assert semantic == 8_869
    assert len(similarity_pairs("wordsim353")) == 353
    assert len(similarity_pairs("simlex999")) == 999

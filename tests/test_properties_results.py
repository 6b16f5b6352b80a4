"""Property tests: malformed inputs to the results store and the data layer's name checks.

Each checked entry point gets whatever Hypothesis makes (odd strings, paths, wrong types,
values JSON cannot hold) and must give either a correct result or the library's own
error, whose message names the input: never a raw ``TypeError`` from ``difflib``, a
``FileNotFoundError`` for a temporary path, or a file written outside the results folder.
"""

import json
import math
import os
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib import results
from course_lib.data import (
    UnknownNameError,
    ewt,
    fetch,
    get_dataset,
    read_conllu,
    similarity_pairs,
    sst2,
    translation_pairs,
    wikitext_lines,
)

NOTES = (results.RUN_KEY, results.EXAMPLES_KEY, results.VERDICTS_KEY)  # record()'s own
NAMES = st.one_of(
    st.text(max_size=10),
    st.text(alphabet="ch0123456789_./ -", max_size=8),
    st.sampled_from(["ch01", "ch_01", "_run", "_verdicts", "..", "ch01.json", ".ch01"]),
    st.none(),
    st.integers(),
    st.lists(st.text(max_size=3), max_size=2),
)
JSONISH = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False),
        st.text(max_size=5),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.tuples(inner, inner),
        st.dictionaries(st.text(max_size=3), inner, max_size=3),
    ),
    max_leaves=8,
)
VALUES = st.one_of(
    JSONISH,
    st.sets(st.integers(), max_size=2),
    st.builds(object),
    st.just(Path("x.txt")),
    st.floats(allow_nan=False).map(torch.tensor),
    st.integers(-(2**31), 2**31).map(np.int64),
    st.lists(st.floats(-1e6, 1e6), max_size=4).map(np.array),
)


def _identifier(text):
    return isinstance(text, str) and text.replace("_", "").isalnum()


def _same(a, b):
    """Equal, as JSON holds it (tuples are lists, -0.0 is 0.0, inf is inf)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isinf(a) and a == b)
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """One results folder for every example (the checks hold as the files grow)."""
    tmp_path = tmp_path_factory.mktemp("store")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("COURSE_RESULTS_DIR", str(tmp_path / "results"))
        mp.setenv("COURSE_PROFILE", "smoke")
        mp.setenv("COURSE_DEVICE", "cpu")
        yield tmp_path


@settings(max_examples=150)
@given(chapter=NAMES, name=NAMES, value=VALUES)
def test_record_stores_the_value_or_refuses_the_input_by_name(
    folder, chapter, name, value
):
    outside = sorted(p for p in folder.rglob("*") if "results" not in p.parts)
    try:
        results.record(chapter, name, value, glue=False)
    except ValueError as err:
        assert "identifier" in str(err) or "keeps its own notes" in str(err)
        assert not (_identifier(chapter) and _identifier(name) and name not in NOTES)
    except TypeError as err:
        assert f"record({name!r}) needs a JSON-serialisable value" in str(err)
    else:
        assert _identifier(chapter) and _identifier(name)
        assert _same(results.load(chapter)[name], results._plain(value))
        run = {"profile": "smoke", "device": "cpu", "seed": 0}
        assert results.run_info(chapter) == run
        assert chapter in results.recorded_chapters()
    assert sorted(p for p in folder.rglob("*") if "results" not in p.parts) == outside
    made = folder / "results"
    assert not made.is_dir() or not list(made.glob(".*.tmp"))


@settings(max_examples=100)
@given(chapter=NAMES)
def test_recorder_load_and_run_info_check_the_chapter(folder, chapter):
    for call in (results.recorder, results.load, results.run_info):
        try:
            out = call(chapter)
        except ValueError as err:
            assert "chapter must be a non-empty identifier" in str(err)
            assert not _identifier(chapter)
        else:
            assert _identifier(chapter)
            assert isinstance(out, dict) or out is None or callable(out)


SPLIT_READERS = {
    "wikitext_lines": (wikitext_lines, ("train", "valid", "test")),
    "ewt": (ewt, ("train", "dev", "test")),
    "sst2": (sst2, ("train", "dev", "test")),
    "similarity_pairs": (similarity_pairs, ("wordsim353", "simlex999")),
    "translation_pairs": (
        translation_pairs,
        ("tatoeba", "tatoeba_eng_fra", "multi30k", "multi30k_en_de"),
    ),
    "multi30k split": (
        lambda s: translation_pairs("multi30k_en_de", s),
        ("train", "val", "test", "test_2016_flickr"),
    ),
    "get_dataset": (get_dataset, ()),
    "fetch (data set)": (lambda s: fetch(s, "train.txt"), ()),
    "fetch (file)": (lambda s: fetch("wikitext-2", s), ()),
}


@pytest.mark.parametrize("reader", sorted(SPLIT_READERS))
@settings(max_examples=60)
@given(name=NAMES)
def test_the_readers_name_an_unknown_split_or_data_set(reader, name):
    call, valid = SPLIT_READERS[reader]
    if name in valid or (reader.startswith("get") and name in ("sst2", "fsdd")):
        return  # a valid name: read by the readers' own tests
    with pytest.raises(UnknownNameError, match=r"Unknown .*(choose|Known)"):
        call(name)


@pytest.fixture(scope="module")
def empty_cwd(tmp_path_factory):
    return tmp_path_factory.mktemp("cwd")


@settings(max_examples=100)
@given(name=NAMES)
def test_read_conllu_names_what_it_was_given(empty_cwd, name):
    before = os.getcwd()
    os.chdir(empty_cwd)
    try:
        if name in ("train", "dev", "test"):
            return
        read_conllu(name)
    except UnknownNameError as err:
        assert "Unknown EWT split" in str(err) and "train, dev, test" in str(err)
    except TypeError as err:
        assert str(err).startswith("read_conllu takes a path or an EWT split name")
    except (FileNotFoundError, IsADirectoryError) as err:
        assert "read_conllu takes a" in str(err)
    else:
        pytest.fail(f"read_conllu({name!r}) read something in an empty folder")
    finally:
        os.chdir(before)

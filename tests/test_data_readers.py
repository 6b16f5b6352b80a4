"""Readers on the committed samples (tests/fixtures/data) and on made-up files.

Each sample is installed as a one-file mirror of its data set, pinned on the fly, so the
readers run the whole path: fetch -> verify -> parse. No Multi30k text is used: its
reader is tested on invented sentences.
"""

import gzip
import importlib
from dataclasses import replace
from pathlib import Path

import pytest

from course_lib.data import (
    DATASETS,
    ConlluError,
    DataError,
    FileSpec,
    UnknownNameError,
    analogy_questions,
    ewt,
    read_conllu,
    similarity_pairs,
    translation_pairs,
    wikitext_lines,
    wikitext_sentences,
    wikitext_tokens,
)

FIXTURES = Path(__file__).parent / "fixtures" / "data"
EWT_SAMPLE = FIXTURES / "ewt_dev_sample.conllu"


@pytest.fixture
def install(tmp_path, monkeypatch):
    """install(dataset, {name: bytes}) pins the files and puts them in a fake mirror."""
    mirror = tmp_path / "mirror"
    monkeypatch.setenv("COURSE_LIB_DATA", str(mirror))
    monkeypatch.setenv("COURSE_LIB_CACHE", str(tmp_path / "cache"))

    def offline(url, timeout):
        raise AssertionError(f"unexpected download of {url}")

    fetch_mod = importlib.import_module("course_lib.data.fetch")
    monkeypatch.setattr(fetch_mod, "_urlopen", offline)

    def _install(dataset: str, files: dict[str, bytes]) -> None:
        (mirror / dataset).mkdir(parents=True, exist_ok=True)
        specs = []
        for name, data in files.items():
            (mirror / dataset / name).write_bytes(data)
            specs.append(FileSpec.for_file(mirror / dataset / name))
        ds = DATASETS[dataset]
        pinned = {**ds.files, **{s.name: s for s in specs}}
        monkeypatch.setitem(DATASETS, dataset, replace(ds, files=pinned))

    return _install


# --- CoNLL-U -------------------------------------------------------------------------


def test_read_conllu_sample():
    sents = read_conllu(EWT_SAMPLE)
    assert len(sents) == 4
    first = sents[0]
    assert first.words[:3] == ("From", "the", "AP")
    assert first.heads == (3, 3, 4, 0, 6, 4, 4)
    assert first.deprels[3] == "root" and first.upos[0] == "ADP"
    assert first.text == "From the AP comes this story :"
    assert first.sent_id.endswith("-0001")
    mwt = sents[2]
    assert mwt.multiwords == ((1, 2, "Today's"),)
    assert mwt.words[:2] == ("Today", "'s") and len(mwt) == 16
    empty = sents[3]  # empty nodes 10.1 and 21.1 are not words of the basic tree
    assert len(empty) == 26 and "has" not in empty.words
    assert empty.multiwords == ((1, 2, "It's"),)
    for s in sents:
        assert len(s.words) == len(s.heads) == len(s.upos) == len(s.deprels)
        assert s.heads.count(0) == 1 and all(0 <= h <= len(s) for h in s.heads)


def test_read_conllu_gz_and_ewt_split(tmp_path, install):
    gz = tmp_path / "sample.conllu.gz"
    gz.write_bytes(gzip.compress(EWT_SAMPLE.read_bytes()))
    assert read_conllu(gz) == read_conllu(EWT_SAMPLE)
    install("ud_english_ewt", {"en_ewt-ud-dev.conllu": EWT_SAMPLE.read_bytes()})
    assert ewt("dev") == read_conllu(EWT_SAMPLE)
    with pytest.raises(UnknownNameError, match="train, dev, test"):
        ewt("valid")


def _broken(tmp_path, line_no: int, column: int | None, value: str | None) -> Path:
    """The sample with one field (or, when column is None, the whole line) replaced."""
    lines = EWT_SAMPLE.read_text(encoding="utf-8").split("\n")
    if column is None:
        lines[line_no - 1] = value
    else:
        fields = lines[line_no - 1].split("\t")
        fields[column] = value
        lines[line_no - 1] = "\t".join(fields)
    path = tmp_path / "broken.conllu"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("column", "value", "pattern"),
    [
        (
            None,
            "1\tFrom\tfrom\tADP\tIN\t_\t3\tcase",
            "expected 10 tab-separated fields",
        ),
        (None, "1 From from ADP IN _ 3 case 3:case _", "separated by tabs"),
        (6, "three", "HEAD 'three' of word 2 is not an integer"),
        (6, "", "HEAD '' of word 2 is not an integer"),
        (6, "40", "HEAD 40 points past the last word"),
        (0, "x", "ID 'x' is not an integer"),
        (0, "5", "word ID 5 out of order: expected 2"),
        (7, "_", "has no DEPREL"),
    ],
)
def test_malformed_conllu_names_file_and_line(tmp_path, column, value, pattern):
    # line 5 is the first word of the first sentence ("From"), line 6 the second
    line_no = 5 if column is None else 6
    path = _broken(tmp_path, line_no, column, value)
    with pytest.raises(ConlluError, match=pattern) as err:
        read_conllu(path)
    assert f"{path}, line {line_no}:" in str(err.value)
    assert isinstance(err.value, ValueError)


# --- WikiText-2 ------------------------------------------------------------------------


def test_wikitext_readers(install):
    raw = (FIXTURES / "wikitext_valid_sample.txt").read_bytes()
    install("wikitext-2", {"valid.txt": raw})
    lines = wikitext_lines("valid")
    assert len(lines) == 8 and lines[0] == " " and lines[1] == " = Homarus gammarus = "
    tokens = wikitext_tokens("valid")
    assert len(tokens) == len(raw.split()) + 8 and tokens.count("<eos>") == 8
    assert tokens[:6] == ["<eos>", "=", "Homarus", "gammarus", "=", "<eos>"]
    assert "<eos>" not in wikitext_tokens("valid", add_eos=False)
    sents = wikitext_sentences("valid")
    headings = sum(1 for line in lines if line.startswith(" = "))
    empty = sum(1 for line in lines if not line.strip())
    assert len(sents) == 8 - headings - empty
    assert sents[0][:2] == ["homarus", "gammarus"] and "<unk>" in sents[0]
    assert len(wikitext_sentences("valid", skip_headings=False)) == 8 - empty
    assert wikitext_sentences("valid", lowercase=False)[0][0] == "Homarus"
    with pytest.raises(UnknownNameError, match="train, valid, test"):
        wikitext_lines("dev")


# --- translation pairs ---------------------------------------------------------------


def test_tatoeba_pairs_normalise_spaces(install):
    raw = (FIXTURES / "tatoeba_fra_sample.txt").read_bytes()
    assert "\u202f".encode() in raw and "\u00a0".encode() in raw
    install("tatoeba_eng_fra", {"fra.txt": raw})
    pairs = translation_pairs("tatoeba_eng_fra")
    assert len(pairs) == 8 and pairs[0] == ("Go.", "Va !")
    assert pairs[2] == ("Run!", "Cours !")  # was U+202F
    assert pairs[6] == ("Who fell?", "Qui est tombé ?")  # was U+00A0
    assert not any("\u202f" in s or "\u00a0" in s for pair in pairs for s in pair)
    assert translation_pairs("tatoeba") == pairs
    with pytest.raises(UnknownNameError, match="no official split"):
        translation_pairs("tatoeba", "train")


def test_tatoeba_bad_line(install):
    install("tatoeba_eng_fra", {"fra.txt": b"Go.\tVa !\nno tab here\n"})
    with pytest.raises(DataError, match="line 2: expected 2 tab-separated"):
        translation_pairs("tatoeba")


def test_multi30k_reader_on_invented_sentences(install):
    en = "A dog runs on grass.\nTwo children play.\n"
    de = "Ein Hund läuft über Gras.\nZwei Kinder spielen.\n"
    install(
        "multi30k_en_de",
        {
            "val.en.gz": gzip.compress(en.encode()),
            "val.de.gz": gzip.compress(de.encode()),
            "train.en.gz": gzip.compress(en.encode()),
            "train.de.gz": gzip.compress(de.encode() + b"extra\n"),
        },
    )
    assert translation_pairs("multi30k_en_de", "val") == [
        ("A dog runs on grass.", "Ein Hund läuft über Gras."),
        ("Two children play.", "Zwei Kinder spielen."),
    ]
    with pytest.raises(DataError, match="do not align"):
        translation_pairs("multi30k", "train")
    with pytest.raises(UnknownNameError, match="train, val, test_2016_flickr"):
        translation_pairs("multi30k", "dev")
    with pytest.raises(UnknownNameError, match="split None"):
        translation_pairs("multi30k")
    with pytest.raises(UnknownNameError, match="Unknown parallel corpus"):
        translation_pairs("europarl")


# --- evaluation sets -----------------------------------------------------------------


def test_eval_sets_on_invented_files(install):
    install(
        "word_vector_eval",
        {
            "questions-words.txt": b": sec-a\nA B C D\nE F G H\n: gram-b\nw x y z\n",
            "wordsim353.tsv": b"# comment\n# Word 1\tWord 2\tHuman\nsun\tmoon\t6.5\n",
            "simlex999.txt": b"# comment\nold\tnew\t1.58\nhard\tdifficult\t8.77\n",
        },
    )
    assert analogy_questions() == [
        ("sec-a", "A", "B", "C", "D"),
        ("sec-a", "E", "F", "G", "H"),
        ("gram-b", "w", "x", "y", "z"),
    ]
    assert similarity_pairs("wordsim353") == [("sun", "moon", 6.5)]
    assert similarity_pairs("simlex999")[1] == ("hard", "difficult", 8.77)
    with pytest.raises(UnknownNameError, match="wordsim353, simlex999"):
        similarity_pairs("men3000")


def test_eval_sets_bad_lines(install):
    install(
        "word_vector_eval",
        {
            "questions-words.txt": b": sec\nA B C\n",
            "wordsim353.tsv": b"sun\tmoon\tbright\n",
        },
    )
    with pytest.raises(DataError, match="line 2: expected 4 words, found 3"):
        analogy_questions()
    with pytest.raises(DataError, match="line 1: expected 'word1<TAB>word2<TAB>score'"):
        similarity_pairs("wordsim353")

"""Intrinsic word-vector benchmarks: Google analogies, WordSim-353 and SimLex-999.

Chapter: word vectors (evaluation). ``analogy_questions()`` gives the 19,544 questions
"a is to b as c is to d" of Mikolov et al. (2013) in 14 sections (5 semantic, 9
syntactic ``gram*``); ``similarity_pairs(name)`` the human-scored word pairs of
Finkelstein et al. (2002) and Hill et al. (2015). The files are gensim's copies.
"""

from __future__ import annotations

from course_lib.data.errors import DataError, UnknownNameError
from course_lib.data.fetch import fetch, open_text

SIMILARITY_SETS = {"wordsim353": "wordsim353.tsv", "simlex999": "simlex999.txt"}


def analogy_questions() -> list[tuple[str, str, str, str, str]]:
    """The Google analogy questions as ``(section, a, b, c, d)``: a : b = c : d.

    Words keep the file's case (``Athens Greece Baghdad Iraq``); lower-case them to match
    a lower-cased vocabulary. Returns 19,544 questions; sections in file order.
    """
    path = fetch("word_vector_eval", "questions-words.txt")
    questions = []
    section = None
    with open_text(path) as f:
        for number, line in enumerate(f, start=1):
            if line.startswith(":"):
                section = line[1:].strip()
                continue
            words = line.split()
            if not words:
                continue
            if section is None or len(words) != 4:
                problem = (
                    "a question before the first ': section' header"
                    if section is None
                    else f"expected 4 words, found {len(words)}"
                )
                raise DataError(f"{path}, line {number}: {problem}.")
            questions.append((section, *words))
    return questions


def similarity_pairs(name: str) -> list[tuple[str, str, float]]:
    """Scored word pairs ``(w1, w2, score)`` of ``"wordsim353"`` or ``"simlex999"``.

    Scores are on 0-10 (human means). Comment lines starting with ``#`` are skipped.
    Returns 353 (WordSim-353, one pair listed twice) or 999 (SimLex-999) pairs.
    """
    if not isinstance(name, str) or name not in SIMILARITY_SETS:
        raise UnknownNameError(
            f"Unknown similarity set {name!r}; choose one of "
            f"{', '.join(SIMILARITY_SETS)}."
        )
    path = fetch("word_vector_eval", SIMILARITY_SETS[name])
    pairs = []
    with open_text(path) as f:
        for number, line in enumerate(f, start=1):
            if line.startswith("#") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            try:
                pairs.append((fields[0], fields[1], float(fields[2])))
            except (IndexError, ValueError) as exc:
                raise DataError(
                    f"{path}, line {number}: expected 'word1<TAB>word2<TAB>score', "
                    f"got {line.rstrip()!r}"
                ) from exc
    return pairs

r"""Attachment scores: UAS, LAS, with and without punctuation; errors by relation and kind. Ch. 4.

CS224N lecture 4 ("Evaluation of dependency parsing"): compare each word's predicted head (and
label) with the gold one,

    UAS = #words with the correct head / #words,
    LAS = #words with the correct head *and* label / #words.

On the lecture's example, *She saw the video lecture*, the parse gets 4 of 5 heads (UAS 80 %)
and 2 of 5 (head, label) pairs right (LAS 40 %): :data:`LECTURE_EVAL_EXAMPLE`. Scores are
micro-averaged over all words of all sentences, as in the CoNLL shared tasks. Without
punctuation, words whose gold deprel is ``punct`` or whose gold UPOS is ``PUNCT`` are left out
(UD attaches punctuation by convention, so it is often excluded, as Chen & Manning do on the PTB).

:func:`error_types` sorts the head errors into the kinds of attachment CS224N's parser
assignment asks students to find by hand (prepositional-phrase, clause, modifier and
coordination attachment), plus punctuation and the rest, read off each word's gold UD
relation (:data:`ERROR_TYPES`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "LECTURE_EVAL_EXAMPLE",
    "ERROR_TYPES",
    "AttachmentScores",
    "ErrorTypeRow",
    "RelationRow",
    "attachment_scores",
    "error_types",
    "head_hits",
    "relation_errors",
]

# CS224N lecture 4: gold and parsed trees of "She saw the video lecture" (UAS 4/5, LAS 2/5);
# the lecture's Stanford-Dependencies label nn is UD's compound.
LECTURE_EVAL_EXAMPLE = {
    "words": ("She", "saw", "the", "video", "lecture"),
    "gold_heads": (2, 0, 5, 5, 2),
    "gold_deprels": ("nsubj", "root", "det", "compound", "obj"),
    "pred_heads": (2, 0, 4, 5, 2),
    "pred_deprels": ("nsubj", "root", "det", "nsubj", "ccomp"),
}


@dataclass(frozen=True)
class AttachmentScores:
    """UAS and LAS as fractions in [0, 1], with the counts they come from."""

    uas: float
    las: float
    n_words: int
    n_heads_correct: int
    n_both_correct: int

    def __str__(self) -> str:
        return (
            f"UAS {100 * self.uas:.2f} %  LAS {100 * self.las:.2f} %  "
            f"({self.n_words} words)"
        )


class RelationRow(NamedTuple):
    """One gold relation: how often, how often its head / head + label were right."""

    relation: str
    count: int
    uas: float
    las: float
    confused_with: str  # the most frequent wrong label given to it ("" when none)


def _tree(item: Any, what: str, i: int) -> tuple[Sequence[int], Sequence[str], Any]:
    """(heads, deprels, upos or None) of a Sentence-like object or a (heads, deprels) pair."""
    if hasattr(item, "heads") and hasattr(item, "deprels"):
        return item.heads, item.deprels, getattr(item, "upos", None)
    if isinstance(item, Sequence) and len(item) == 2:
        return item[0], item[1], None
    raise TypeError(
        f"{what}[{i}] must have .heads and .deprels (a Sentence or a Parse) or be a "
        f"(heads, deprels) pair; got {type(item).__name__}"
    )


def _trees(gold: Sequence, predicted: Sequence):
    """Yield (i, gold heads, gold labels, gold UPOS or None, predicted heads, predicted labels)
    of every sentence, once both have one head and one label per word."""
    if len(gold) != len(predicted):
        raise ValueError(
            f"need one prediction per gold sentence: {len(gold)} gold, "
            f"{len(predicted)} predicted"
        )
    for i, (g, p) in enumerate(zip(gold, predicted, strict=True)):
        gh, gr, upos = _tree(g, "gold", i)
        ph, pr, _ = _tree(p, "predicted", i)
        if not len(gh) == len(gr) == len(ph) == len(pr):
            raise ValueError(
                f"sentence {i}: gold has {len(gh)} heads and {len(gr)} labels, the "
                f"prediction {len(ph)} heads and {len(pr)} labels; they must agree"
            )
        yield i, gh, gr, upos, ph, pr


def _pairs(gold: Sequence, predicted: Sequence, include_punct: bool):
    """Yield (gold head, gold label, predicted head, predicted label) of every scored word."""
    for _, gh, gr, upos, ph, pr in _trees(gold, predicted):
        for k in range(len(gh)):
            punct = gr[k] == "punct" or (upos is not None and upos[k] == "PUNCT")
            if include_punct or not punct:
                yield int(gh[k]), gr[k], int(ph[k]), pr[k]


def attachment_scores(
    gold: Sequence, predicted: Sequence, *, include_punct: bool = True
) -> AttachmentScores:
    """UAS and LAS of ``predicted`` against ``gold``, over all words (micro average).

    gold: sentences with ``.heads .deprels`` (and ``.upos`` for the punctuation rule) or
    (heads, deprels) pairs; predicted: the same for the parser's output (``Parse``).
    include_punct=False leaves out words whose gold deprel is punct or gold UPOS is PUNCT.
    """
    n = heads = both = 0
    for gh, gr, ph, pr in _pairs(gold, predicted, include_punct):
        n += 1
        heads += gh == ph
        both += gh == ph and gr == pr
    if n == 0:
        raise ValueError("no words to score (empty input, or only punctuation)")
    return AttachmentScores(heads / n, both / n, n, heads, both)


def head_hits(
    gold: Sequence,
    predicted: Sequence,
    *,
    select: Callable[[str], bool] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Per sentence: the words with the right head, and the words scored. (S,), (S,)

    gold: sentences with ``.words .heads``; predicted: ``Parse`` objects or (heads,
    deprels) pairs. select(word) -> bool keeps only some words (all words when None);
    punctuation is scored. UAS is ``hits.sum() / scored.sum()``; the per-sentence columns
    are what a paired bootstrap over sentences resamples (``course_lib.compare``).
    """
    hits = np.zeros(len(gold), dtype=np.int64)  # (S,)
    scored = np.zeros(len(gold), dtype=np.int64)  # (S,)
    for i, gh, _, _, ph, _ in _trees(gold, predicted):
        words = getattr(gold[i], "words", None)
        if select is not None and words is None:
            raise TypeError(f"gold[{i}] needs .words to select words by")
        for k in range(len(gh)):
            if select is None or select(words[k]):
                scored[i] += 1
                hits[i] += int(gh[k]) == int(ph[k])
    return hits, scored


def relation_errors(
    gold: Sequence, predicted: Sequence, *, include_punct: bool = True
) -> list[RelationRow]:
    """Per gold relation: count, UAS, LAS and the label most often wrongly predicted for it.

    Rows sorted by count, most frequent first (then alphabetically).
    """
    count: Counter[str] = Counter()
    head_ok: Counter[str] = Counter()
    both_ok: Counter[str] = Counter()
    confusion: dict[str, Counter[str]] = {}
    for gh, gr, ph, pr in _pairs(gold, predicted, include_punct):
        count[gr] += 1
        head_ok[gr] += gh == ph
        both_ok[gr] += gh == ph and gr == pr
        if pr != gr:
            confusion.setdefault(gr, Counter())[pr] += 1
    rows = []
    for rel in sorted(count, key=lambda r: (-count[r], r)):
        wrong = confusion.get(rel)
        rows.append(
            RelationRow(
                rel,
                count[rel],
                head_ok[rel] / count[rel],
                both_ok[rel] / count[rel],
                wrong.most_common(1)[0][0] if wrong else "",
            )
        )
    return rows


# The attachment kinds of :func:`error_types`, by the gold UD relation of the dependent (its
# part before ":"). A prepositional phrase is an obl or nmod whose gold dependents include a
# case marker tagged ADP (so "the hostile crowd" in "fired into the hostile crowd", but not the
# possessive nmod:poss, whose case marker 's is a PART).
ERROR_TYPES: dict[str, tuple[str, ...]] = {
    "punctuation": ("punct",),
    "prepositional phrase": ("obl", "nmod"),
    "clause": ("advcl", "acl", "ccomp", "xcomp", "csubj", "parataxis"),
    "coordination": ("conj", "cc"),
    "modifier": ("advmod", "amod", "nummod"),
}


class ErrorTypeRow(NamedTuple):
    """One kind of attachment: its words, their head errors, and its share of all of them."""

    kind: str
    words: int
    errors: int
    error_rate: float  # errors / words
    share: float  # errors / all head errors


def _kind(
    k: int, heads: Sequence[int], deprels: Sequence[str], upos: Sequence[str]
) -> str:
    """The attachment kind of word k + 1 (``ERROR_TYPES``'s, or "other")."""
    base = deprels[k].split(":")[0]
    for kind, relations in ERROR_TYPES.items():
        if base not in relations:
            continue
        if kind != "prepositional phrase":
            return kind
        has_case = any(
            h == k + 1 and r == "case" and u == "ADP"
            for h, r, u in zip(heads, deprels, upos, strict=True)
        )
        if has_case:
            return kind
    return "other"


def error_types(gold: Sequence, predicted: Sequence) -> list[ErrorTypeRow]:
    """Head errors by kind of attachment, most errors first (then by name); punctuation included.

    gold: sentences with ``.heads .deprels .upos`` (the kinds are read off the gold tree);
    predicted: ``Parse`` objects or (heads, deprels) pairs, one per gold sentence.
    """
    words: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    for i, gh, gr, upos, ph, _ in _trees(gold, predicted):
        if upos is None:
            raise TypeError(
                f"gold[{i}] needs .upos to tell the kinds of attachment apart"
            )
        for k in range(len(gh)):
            kind = _kind(k, gh, gr, upos)
            words[kind] += 1
            errors[kind] += int(gh[k]) != int(ph[k])
    total = sum(errors.values())
    return [
        ErrorTypeRow(
            kind,
            words[kind],
            errors[kind],
            errors[kind] / words[kind],
            errors[kind] / total if total else 0.0,
        )
        for kind in sorted(words, key=lambda t: (-errors[t], t))
    ]

"""Chapter 9 exercises (Pretraining): BPE merges, WordPiece splitting, T5's noise counts.

References: ``course_lib.subwords`` (``BPE.encode_word``, ``WordPiece.split``) and
``course_lib.pretraining.span_corruption.noise_counts``.
"""

from __future__ import annotations

import torch

from course_lib.exercises.core import Case, Exercise, Mistake, register
from course_lib.pretraining.span_corruption import noise_counts
from course_lib.subwords.bpe import BPE
from course_lib.subwords.wordpiece import WordPiece

_MERGES = [
    ("e", "r"),
    ("l", "o"),
    ("lo", "w"),
    ("n", "e"),
    ("w", "er"),
    ("ne", "w"),
    ("s", "t"),
    ("e", "st"),
    ("low", "est"),
    ("o", "w"),
]


def _bpe_pieces(word, merges):
    alphabet = sorted(set(word) | {c for a, b in merges for c in a + b})
    vocab = tuple(dict.fromkeys([*alphabet, *(a + b for a, b in merges)]))
    model = BPE(vocab, tuple(map(tuple, merges)))
    return [vocab[i] for i in model.encode_word(word)]


def _bpe_cases(gen):
    words = ["lower", "newest", "lowest", "newer", "slower", "owner", "wow"]
    cases = [Case((w, _MERGES), label=f"word {w!r}") for w in words]
    letters = "elnorstw"
    for i in range(3):
        n = 3 + int(torch.randint(5, (1,), generator=gen))
        picks = torch.randint(len(letters), (n,), generator=gen).tolist()
        word = "".join(letters[j] for j in picks)
        cases.append(Case((word, _MERGES), label=f"random {i}"))
    return cases


def _bpe_ignoring_rank(word, merges):
    pieces, known = list(word), {tuple(m) for m in merges}
    while True:
        i = next(
            (i for i in range(len(pieces) - 1) if (pieces[i], pieces[i + 1]) in known),
            None,
        )
        if i is None:
            return pieces
        pieces[i : i + 2] = [pieces[i] + pieces[i + 1]]


def _bpe_reversed(word, merges):
    return _bpe_pieces(word, list(merges)[::-1])


_WP_VOCAB = [
    "un",
    "u",
    "##a",
    "##aff",
    "##able",
    "##ab",
    "##le",
    "##n",
    "##b",
    "a",
    "aff",
    "play",
    "##ing",
    "##s",
    "p",
    "##l",
    "##ay",
    "##i",
    "##g",
    "##f",
    "##e",
]


def _wordpiece(word, vocab):
    return WordPiece((*vocab, "[UNK]")).split(word)


def _wordpiece_cases(gen):
    words = ["unaffable", "playing", "plays", "affable", "unable", "unzip", "ua"]
    return [Case((w, _WP_VOCAB), label=f"word {w!r}") for w in words]


def _wordpiece_with(word, vocab, *, prefix, longest, keep_partial):
    pieces, start, known = [], 0, set(vocab)
    while start < len(word):
        ends = (
            range(len(word), start, -1) if longest else range(start + 1, len(word) + 1)
        )
        for end in ends:
            piece = word[start:end] if start == 0 else prefix + word[start:end]
            if piece in known:
                break
        else:
            return [*pieces, "[UNK]"] if keep_partial else ["[UNK]"]
        pieces.append(piece)
        start = end
    return pieces


def _truncated(length, density, mean_span):
    noise = min(max(int(length * density), 1), length - 1)
    return noise, max(int(noise / mean_span), 1)


def _no_minimum(length, density, mean_span):
    noise = min(round(length * density), length - 1)
    return noise, max(round(noise / mean_span), 1)


register(
    Exercise(
        "ch09.bpe_encode",
        "bpe_encode(word: str, merges: list[(str, str)]) -> list[str]",
        _bpe_pieces,
        _bpe_cases,
        "Start from the characters; repeatedly merge the adjacent pair whose merge has the "
        "LOWEST rank (earliest in the list), leftmost on ties, until no learnt merge applies.",
        (
            Mistake(
                "the leftmost mergeable pair is merged, whatever its rank",
                _bpe_ignoring_rank,
            ),
            Mistake("the merges are applied latest first", _bpe_reversed),
        ),
    ),
    Exercise(
        "ch09.wordpiece_split",
        "wordpiece_split(word: str, vocab: list[str]) -> list[str]",
        _wordpiece,
        _wordpiece_cases,
        "Left to right, take the LONGEST vocabulary piece starting here (with '##' unless it "
        "starts the word); if none matches, the whole word is ['[UNK]'].",
        (
            Mistake(
                "the shortest piece is taken first",
                lambda w, v: _wordpiece_with(
                    w, v, prefix="##", longest=False, keep_partial=False
                ),
            ),
            Mistake(
                "continuation pieces are looked up without '##'",
                lambda w, v: _wordpiece_with(
                    w, v, prefix="", longest=True, keep_partial=False
                ),
            ),
            Mistake(
                "the pieces found before the failure are kept ([UNK] only for the rest)",
                lambda w, v: _wordpiece_with(
                    w, v, prefix="##", longest=True, keep_partial=True
                ),
            ),
        ),
    ),
    Exercise(
        "ch09.noise_counts",
        "noise_counts(length: int, noise_density: float, mean_span: float) -> (int, int)",
        noise_counts,
        lambda gen: [
            Case(
                args, label=f"length {args[0]}, density {args[1]}, mean span {args[2]}"
            )
            for args in [
                (512, 0.15, 3.0),
                (10, 0.15, 3.0),
                (3, 0.15, 3.0),
                (100, 0.5, 2.0),
                (37, 0.15, 3.0),
                (2, 0.9, 1.0),
            ]
        ],
        "num_noise = round(length × density), clamped to [1, length − 1]; "
        "num_spans = max(round(num_noise / mean_span), 1).",
        (
            Mistake("int() truncates instead of rounding", _truncated),
            Mistake("no minimum of one noise token", _no_minimum),
        ),
    ),
)

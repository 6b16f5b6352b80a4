r"""Chen & Manning's 48 features of a configuration: 18 words, 18 tags, 12 labels. Chapter 4.

Chen & Manning (2014), section 3.1; CS224N lecture 4 and assignment 2. With s₁ s₂ s₃ the top three
of the stack, b₁ b₂ b₃ the first three of the buffer, lc₁/lc₂ the first/second leftmost child
and rc₁/rc₂ the first/second rightmost child:

- Sʷ (18 words): s₁ s₂ s₃ b₁ b₂ b₃, then for s in (s₁, s₂): lc₁(s) rc₁(s) lc₂(s) rc₂(s)
  lc₁(lc₁(s)) rc₁(rc₁(s));
- Sᵗ (18 POS tags) of the same 18 positions;
- Sˡ (12 arc labels) of the 12 child positions (the last 12 of the 18).

A position that is empty (a short stack, a missing child) is NULL; ROOT has its own word and tag.
Ids: words and tags ``0 = <null>``, ``1 = <root>``, ``2 = <unk>``; labels ``0 = <null>``, then the
transition system's labels in order (label index + 1). :func:`config_features` reads one
:class:`Configuration` (the readable reference); :func:`batch_features` gathers the same 48 ids
for a whole :class:`BatchConfigurations` with array indexing.

Shape legend: B sentences, P positions (ROOT, words, sentinel), R rows, F = 48 features.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from course_lib.data import Vocab
from course_lib.parsing.state import BatchConfigurations
from course_lib.parsing.transitions import Configuration, TransitionSystem

__all__ = [
    "FEATURE_NAMES",
    "N_FEATURES",
    "NULL",
    "POSITIONS",
    "ROOT_ID",
    "UNK",
    "ParserVocabs",
    "batch_features",
    "build_vocabs",
    "config_features",
]

NULL, ROOT_ID, UNK = 0, 1, 2
SPECIALS = ("<null>", "<root>", "<unk>")
# The 18 positions of the template; "lc1(lc1(s1))" is the leftmost child of s1's leftmost child.
POSITIONS = ("s1", "s2", "s3", "b1", "b2", "b3") + tuple(
    name
    for s in ("s1", "s2")
    for name in (
        f"lc1({s})",
        f"rc1({s})",
        f"lc2({s})",
        f"rc2({s})",
        f"lc1(lc1({s}))",
        f"rc1(rc1({s}))",
    )
)
FEATURE_NAMES = (
    tuple(f"w:{p}" for p in POSITIONS)
    + tuple(f"t:{p}" for p in POSITIONS)
    + tuple(f"l:{p}" for p in POSITIONS[6:])
)
N_FEATURES = len(FEATURE_NAMES)  # 48


@dataclass(frozen=True)
class ParserVocabs:
    """The word and tag vocabularies and the transition system (whose labels give label ids).

    lowercase: words are lowercased before lookup (as in the CS224N assignment).
    """

    words: Vocab
    tags: Vocab
    system: TransitionSystem
    lowercase: bool = True

    @property
    def n_labels(self) -> int:
        """Label ids: <null> plus the system's labels."""
        return len(self.system.labels) + 1

    def encode(
        self, words: Sequence[str], tags: Sequence[str]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Word and tag ids of ROOT + the n words. (n + 1,), (n + 1,)"""
        if len(words) != len(tags):
            raise ValueError(
                f"need one tag per word: {len(words)} words but {len(tags)} tags"
            )
        if self.lowercase:
            words = [w.lower() for w in words]
        w = np.array([ROOT_ID, *self.words.encode(words)], dtype=np.int64)  # (n + 1,)
        t = np.array([ROOT_ID, *self.tags.encode(tags)], dtype=np.int64)  # (n + 1,)
        return w, t

    def encode_batch(
        self, sentences: Sequence[tuple[Sequence[str], Sequence[str]]]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Ids of B (words, tags) sentences, NULL-padded to P = N + 2 positions. (B, P) each."""
        n_positions = max(len(w) for w, _ in sentences) + 2
        words = np.full((len(sentences), n_positions), NULL, dtype=np.int64)  # (B, P)
        tags = np.full((len(sentences), n_positions), NULL, dtype=np.int64)  # (B, P)
        for b, (ws, ts) in enumerate(sentences):
            words[b, : len(ws) + 1], tags[b, : len(ws) + 1] = self.encode(ws, ts)
        return words, tags


def build_vocabs(
    sentences: Iterable,
    min_freq: int = 2,
    lowercase: bool = True,
    extra_words: Iterable[str] = (),
) -> ParserVocabs:
    """Vocabularies from training sentences (objects with ``.words .upos .deprels``).

    Words seen fewer than ``min_freq`` times map to <unk>, so its embedding is trained too.
    extra_words: words that get a row of their own all the same, after the counted ones
    (the words of pretrained vectors, so that a word the treebank lacks is read through its
    vector rather than as <unk>). Labels are ordered by frequency (ties alphabetically), as
    the transitions are.
    """
    sentences = list(sentences)
    if not sentences:
        raise ValueError("build_vocabs needs at least one sentence")
    if isinstance(extra_words, str):
        raise TypeError("extra_words must be a list of words, not one string")
    fold = str.lower if lowercase else str
    folded = [[fold(w) for w in s.words] for s in sentences]
    words = Vocab.build(folded, min_freq=min_freq, specials=SPECIALS, unk="<unk>")
    extra = [w for w in dict.fromkeys(fold(w) for w in extra_words) if w not in words]
    if extra:  # keep every word's training count (word dropout reads it)
        word_counts = Counter(w for ws in folded for w in ws)
        words = Vocab(
            [*words.tokens, *extra], counts=word_counts, unk="<unk>", specials=SPECIALS
        )
    tags = Vocab.build([s.upos for s in sentences], specials=SPECIALS, unk="<unk>")
    counts = Counter(r for s in sentences for r in s.deprels)
    labels = sorted(counts, key=lambda r: (-counts[r], r))
    return ParserVocabs(words, tags, TransitionSystem(labels), lowercase)


def _positions(config: Configuration) -> list[int | None]:
    """The 18 token positions of the template in ``config`` (None where empty)."""
    stack, buffer = config.stack, config.buffer
    pos: list[int | None] = [stack[-k] if len(stack) >= k else None for k in (1, 2, 3)]
    pos += [buffer[k] if len(buffer) > k else None for k in (0, 1, 2)]
    for s in pos[:2]:
        left, right = config.children(s) if s is not None else ([], [])
        lc1 = left[0] if left else None
        rc1 = right[0] if right else None
        llc = config.children(lc1)[0] if lc1 is not None else []
        rrc = config.children(rc1)[1] if rc1 is not None else []
        pos += [
            lc1,
            rc1,
            left[1] if len(left) > 1 else None,
            right[1] if len(right) > 1 else None,
            llc[0] if llc else None,
            rrc[0] if rrc else None,
        ]
    return pos


def config_features(
    config: Configuration,
    word_ids: Sequence[int],
    tag_ids: Sequence[int],
    system: TransitionSystem,
) -> list[int]:
    """The 48 feature ids of one configuration, read off its stack, buffer and arcs.

    word_ids/tag_ids: the ids of ROOT + the sentence's words (``ParserVocabs.encode``).
    """
    pos = _positions(config)
    labels = dict.fromkeys(range(len(config.words)), NULL)
    index = {r: i + 1 for i, r in enumerate(system.labels)}
    for arc in config.arcs:
        labels[arc.dependent] = index[arc.label]
    words = [NULL if p is None else int(word_ids[p]) for p in pos]
    tags = [NULL if p is None else int(tag_ids[p]) for p in pos]
    arcs = [NULL if p is None else labels[p] for p in pos[6:]]
    return words + tags + arcs


def batch_features(
    state: BatchConfigurations,
    word_ids: np.ndarray,
    tag_ids: np.ndarray,
    rows: np.ndarray | None = None,
) -> np.ndarray:
    """The 48 feature ids of each configuration in ``rows`` (all by default). (R, 48)

    word_ids, tag_ids: (B, P) from ``ParserVocabs.encode_batch``; the sentinel position P − 1
    holds NULL there, and its children are the sentinel again, so gathers need no branches.
    """
    r = np.arange(len(state)) if rows is None else np.asarray(rows)
    stack = [state.stack_top(k, r) for k in (1, 2, 3)]  # 3 × (R,)
    buffer = [state.buffer_front(k, r) for k in (1, 2, 3)]  # 3 × (R,)
    children = []
    for s in stack[:2]:
        lc1, rc1 = state.lc1[r, s], state.rc1[r, s]  # (R,), (R,)
        children += [
            lc1,
            rc1,
            state.lc2[r, s],
            state.rc2[r, s],
            state.lc1[r, lc1],
            state.rc1[r, rc1],
        ]
    pos = np.stack(stack + buffer + children, axis=1)  # (R, 18)
    rr = r[:, None]  # (R, 1)
    words = word_ids[rr, pos]  # (R, 18)
    tags = tag_ids[rr, pos]  # (R, 18)
    labels = state.label[rr, pos[:, 6:]] + 1  # (R, 12): -1 (none) becomes NULL = 0
    return np.concatenate([words, tags, labels], axis=1)  # (R, 48)

"""The simplest tagger a treebank allows: each word's most frequent tag. Chapters 3 and 9.

The baseline a learned tagger is set beside (Manning, 2011, "Part-of-speech tagging from
97 % to 100 %"): no context, no parameters beyond one count per word and tag. For a word the
training sentences have, the tag it carries most often there; for any other word, the most
frequent tag of all. Ties go to the tag met first, as :meth:`collections.Counter.most_common`
orders them.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

__all__ = ["LookupTagger"]


class Tagged(Protocol):
    """A sentence with its words and their tags (:class:`~course_lib.data.Sentence`)."""

    words: Sequence[str]
    upos: Sequence[str]


@dataclass(frozen=True)
class LookupTagger:
    """word -> its most frequent training tag (``table``); an unseen word -> ``default``."""

    table: dict[str, str]
    default: str

    @classmethod
    def fit(cls, sentences: Iterable[Tagged]) -> LookupTagger:
        """Count every (word, tag) of ``sentences`` and keep each word's commonest tag."""
        counts: defaultdict[str, Counter[str]] = defaultdict(Counter)
        every: Counter[str] = Counter()
        for sentence in sentences:
            if len(sentence.words) != len(sentence.upos):
                raise ValueError(
                    f"a sentence has {len(sentence.words)} words but "
                    f"{len(sentence.upos)} tags"
                )
            for word, tag in zip(sentence.words, sentence.upos):
                counts[word][tag] += 1
                every[tag] += 1
        if not every:
            raise ValueError("LookupTagger.fit needs at least one tagged word")
        table = {word: c.most_common(1)[0][0] for word, c in counts.items()}
        return cls(table, every.most_common(1)[0][0])

    def tag(self, words: Sequence[str]) -> list[str]:
        """The tag of every word of ``words``."""
        return [self.table.get(word, self.default) for word in words]

    def right(self, sentences: Iterable[Tagged]) -> list[bool]:
        """For every word of ``sentences``, whether its looked-up tag is its gold tag."""
        return [
            guess == gold
            for s in sentences
            for guess, gold in zip(self.tag(s.words), s.upos, strict=True)
        ]

"""WordPiece encoding: greedy longest-match-first with ``##`` pieces. Chapter 9.

WordPiece (Schuster & Nakajima, 2012; the BERT vocabulary, Devlin et al., 2019) splits
a word left to right: at each position it takes the longest piece in the vocabulary
that starts there, written ``##piece`` when it does not start the word (a continuation).
If at some position no piece matches, the whole word becomes ``[UNK]``: WordPiece does
not fall back to characters. Words longer than ``max_input_chars_per_word`` are
``[UNK]`` too. This is HF ``tokenizers``' ``WordPiece`` model; training with the
likelihood score is in ``wordpiece_train``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["WordPiece"]


@dataclass(frozen=True)
class WordPiece:
    """A WordPiece vocabulary: ``vocab[i]`` is the piece with id i.

    vocab: pieces in id order; continuation pieces carry ``prefix`` (``"##"``).
    unk_token: the piece for a word that cannot be split (must be in ``vocab``).
    """

    vocab: tuple[str, ...]
    unk_token: str = "[UNK]"
    prefix: str = "##"
    max_input_chars_per_word: int = 100
    _ids: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        ids = {piece: i for i, piece in enumerate(self.vocab)}
        if len(ids) != len(self.vocab):
            raise ValueError("vocab has a repeated piece; every piece needs one id")
        if self.unk_token not in ids:
            raise ValueError(
                f"unk_token {self.unk_token!r} must be in the vocabulary (add it, "
                "usually as a special token)"
            )
        object.__setattr__(self, "_ids", ids)

    def token_to_id(self, piece: str) -> int | None:
        """The id of ``piece``, or None when it is not in the vocabulary."""
        return self._ids.get(piece)

    def split(self, word: str) -> list[str]:
        """The pieces of ``word``, longest match first; ``[unk_token]`` if it cannot split."""
        if not word:
            raise ValueError("a word must be a non-empty string")
        if len(word) > self.max_input_chars_per_word:
            return [self.unk_token]
        pieces, start = [], 0
        while start < len(word):
            for end in range(len(word), start, -1):  # longest first
                piece = word[start:end] if start == 0 else self.prefix + word[start:end]
                if piece in self._ids:
                    break
            else:
                return [self.unk_token]  # no piece starts here: the word is unknown
            pieces.append(piece)
            start = end
        return pieces

    def encode_word(self, word: str) -> list[int]:
        """The ids of ``split(word)``."""
        return [self._ids[p] for p in self.split(word)]

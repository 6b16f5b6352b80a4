r"""Attention-based recognition with character outputs: listen, attend, spell. Chapter 10.

*Sequence Models* week 3 (speech recognition with an attention model) and Chan et al.
(2016), "Listen, attend and spell", in miniature. The listener is CTC's front end (two
strided convolutions: 10 ms frames become steps of stride² × 10 ms, 90 ms at the
chapter's stride 3) under Chapter 7's BiLSTM encoder; the speller is
Chapter 7's attentive LSTM decoder, which at output step t attends over the encoder's
steps and emits one character:

    c_t = Σ_i α_{t,i} h_i,  α_t = softmax_i(score(s_{t-1}, h_i))
    P(y_t | y_<t, x) = softmax(W_o tanh(W_c [s_t; c_t]))

so P(y | x) = Π_t P(y_t | y_<t, x) with no blank and no independence between steps: the
speller conditions on every character it has emitted, which CTC cannot, and it has to
learn the alignment that CTC sums over. Targets are the digit words spelled out
("four one seven"), so the model writes letters and spaces.
Shape legend: B batch, T frames, M mel bands, S encoder steps (≈ T / stride²: T / 9 at
stride 3), L characters.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from course_lib.seq2seq.model import Encoded, Seq2Seq, Seq2SeqConfig
from course_lib.seq2seq.translation import translate_ids
from course_lib.speech.models import StridedFrontEnd, check_frames
from course_lib.speech.synthesis import DIGITS, encode_digits
from course_lib.speech.train import length_batches, pad_batch
from course_lib.training import evaluating

__all__ = [
    "CHARACTERS",
    "AttentionRecognizer",
    "decode_characters",
    "encode_characters",
    "recognise_characters",
    "spell_digits",
    "unspell",
]

WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
CHARACTERS = sorted(set(" ".join(WORDS)))  # the space and the 15 letters of the words
PAD, UNK, BOS, EOS = 0, 1, 2, 3  # then character k of CHARACTERS is id 4 + k
FIRST_CHAR = 4


def spell_digits(text: str) -> str:
    """A digit string as the words a speaker says ("417" → "four one seven")."""
    return " ".join(WORDS[k - 1] for k in encode_digits(text))  # CTC class d + 1


def unspell(words: str) -> str:
    """Spelled digits back to digits ("four one seven" → "417"); a word that is not a
    digit's name becomes "?", which counts as a wrong digit in an error rate."""
    return "".join(DIGITS[WORDS.index(w)] if w in WORDS else "?" for w in words.split())


def encode_characters(text: str) -> list[int]:
    """<bos> characters <eos> as ids ("one" → [2, 4+k(o), 4+k(n), 4+k(e), 3])."""
    bad = sorted(set(text) - set(CHARACTERS))
    if not text or bad:
        raise ValueError(f"{text!r}: need characters of {''.join(CHARACTERS)!r}")
    return [BOS, *(FIRST_CHAR + CHARACTERS.index(c) for c in text), EOS]


def decode_characters(ids: Sequence[int]) -> str:
    """Ids back to text; <bos>, <eos> and padding are dropped."""
    n = len(CHARACTERS)
    return "".join(
        CHARACTERS[i - FIRST_CHAR] for i in ids if FIRST_CHAR <= i < FIRST_CHAR + n
    )


class AttentionRecognizer(StridedFrontEnd, Seq2Seq):
    """CTC's strided front end → Chapter 7's ``Seq2Seq`` encoder and attentive decoder,
    over characters. ``config.d_emb`` is both the front end's channels and the width of
    the character embeddings; its vocabulary sizes are set here. ``forward``, ``start``,
    ``step`` and ``reorder`` are ``Seq2Seq``'s, so its loss, its training loop and
    :mod:`course_lib.decoding` apply unchanged."""

    def __init__(
        self,
        n_mels: int = 40,
        *,
        d_emb: int = 64,
        d_hidden: int = 128,
        attention: str = "additive",
        dropout: float = 0.1,
        kernel: int = 5,
        stride: int = 2,
        device=None,
    ) -> None:
        V = FIRST_CHAR + len(CHARACTERS)
        config = Seq2SeqConfig(
            V,
            V,
            d_emb=d_emb,
            d_hidden=d_hidden,
            attention=attention,
            dropout=dropout,
            pad_id=PAD,
            bos_id=BOS,
            eos_id=EOS,
            d_encoder=d_hidden // 2,
        )
        super().__init__(config, device=device)
        del self.src_embed  # the front end replaces the source embedding
        self._build_front_end(n_mels, d_emb, kernel, stride, device)

    def encode(self, x: Tensor, lengths: Tensor) -> Encoded:
        """Listen: x (B, T, M) log-mel frames, lengths (B,) → h_i, S ≈ T/stride² steps."""
        check_frames(x, lengths, self.n_mels)
        z = self._front_end(x, lengths)  # (B, S, E)
        return self.encode_vectors(self.drop(z), self.output_lengths(lengths))


@torch.no_grad()
def recognise_characters(
    model: AttentionRecognizer,
    frames: Sequence[Tensor],
    *,
    max_len: int = 60,
    batch_size: int = 64,
    device=None,
) -> list[str]:
    """Greedy decoding (Chapter 7's) of every (T, M) utterance: its text, in order."""
    texts = [""] * len(frames)
    with evaluating(model):
        for idx in length_batches([len(f) for f in frames], batch_size):
            x, lengths = pad_batch([frames[i] for i in idx])
            hyps = translate_ids(
                model, x.to(device), lengths.to(device), max_len=max_len
            )
            for i, (h,) in zip(idx, hyps, strict=True):
                texts[i] = decode_characters(h.tokens)
    return texts

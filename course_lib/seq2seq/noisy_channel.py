r"""The noisy channel, computed: ê = argmax_e log P(f | e) + log P(e). Chapter 7.

CS224N lecture 7 (statistical MT). To translate a foreign sentence f into English, Bayes'
rule splits P(e | f) ∝ P(f | e) P(e) into a translation model (is e faithful to f?) and a
language model (is e English?) (Brown et al., 1990; 1993):

    ê = argmax_e  log P(f | e) + log P(e)                                           (1)

P(f | e) is IBM Model 1 (:meth:`course_lib.seq2seq.ibm_model1.IBMModel1.log_prob`),

    log P(f | e) = log ε − m log(l + 1) + Σ_{j=1..m} log Σ_{i=0..l} t(f_j | e_i)    (2)

(Koehn, 2010, section 4.2; ε = 1), and P(e) an n-gram model of Chapter 5
(:mod:`course_lib.lm.ngram`), a bigram over sentences that start and end at <eos>:

    log P(e) = Σ_{i=1..l+1} log P(e_i | e_{i-1}),   e_0 = e_{l+1} = <eos>          (3)

The English sentences are infinitely many, so the decoder searches a lattice: each foreign
word f_j proposes its k likeliest English words by P(e | f_j) ∝ t(f_j | e) P(e) (Bayes
again, with the LM's unigram P(e)), or no word at all (NULL generated f_j), and the
English words keep the foreign order: monotone, word by word (the phrase-based decoders of
Koehn, 2010, chapter 6 also reorder). A beam keeps the best partial translations of each
foreign prefix f_1..f_j, each scored by (1) on that prefix, so that after the last word,
with P(<eos> | e_l), the score is (1) itself. :meth:`NoisyChannel.decode_exhaustive`
scores every sentence of the lattice: the argmax the beam is tested against.

A foreign word Model 1 never saw is copied through, with t = ``floor`` under every English
word (a constant, so it does not sway the argmax). Small float64 tensors on the CPU,
deterministic (no sampling; ties broken by a stable sort).

Shape legend: m foreign words, N hypotheses in the beam, K candidates of one foreign word,
C candidate English words of the sentence, V the LM's vocabulary, S Model 1's English words.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from course_lib.lm.ngram import AddK, KneserNey, NGramLM
from course_lib.seq2seq.ibm_model1 import IBMModel1

__all__ = ["BOUNDARY", "NoisyChannel", "Scored", "lm_log_prob", "train_sentence_lm"]

BOUNDARY = "<eos>"  # the LM's sentence boundary: e_0 and e_{l+1} of eq. (3)


def _check_sentence(words: object, what: str, *, empty: bool = False) -> list[str]:
    if isinstance(words, str) or not isinstance(words, Sequence):
        raise TypeError(f"{what} must be a list of tokens; got {type(words).__name__}")
    if not all(isinstance(w, str) for w in words):
        raise TypeError(f"{what} must hold strings; got {list(words)[:5]!r}")
    if not empty and len(words) == 0:
        raise ValueError(f"{what} is empty: give at least one token")
    return list(words)


def train_sentence_lm(
    sentences: Sequence[Sequence[str]], *, order: int = 2, k: float | None = None
) -> NGramLM:
    """An n-gram LM of whole sentences, eq. (3): the stream <eos> s_1 <eos> s_2 <eos> ...

    Chapter 5's interpolated Kneser-Ney when ``k`` is None, else add-k with this k; a
    bigram by default. The vocabulary is the sentences' words, <unk> and <eos>.
    """
    if isinstance(sentences, str) or not isinstance(sentences, Sequence):
        raise TypeError("sentences must be a list of token lists")
    if len(sentences) == 0:
        raise ValueError("sentences is empty: the LM needs training sentences")
    stream = [BOUNDARY]
    for n, s in enumerate(sentences):
        stream += [*_check_sentence(s, f"sentence {n}"), BOUNDARY]
    return KneserNey(stream, order) if k is None else AddK(stream, order, k=k)


def lm_log_prob(lm: NGramLM, sentence: Sequence[str]) -> float:
    """log P(e) of eq. (3), <eos> on both sides: the stream <eos> e <eos> scored by the
    LM, less its first token (equal to Chapter 5's ``sentence_log_probs``)."""
    words = _check_sentence(sentence, "sentence", empty=True)
    return float(lm.log_probs([BOUNDARY, *words, BOUNDARY])[1:].sum())


@dataclass(frozen=True)
class Scored:
    """A translation e of f and the two terms of eq. (1): log P(f | e) and log P(e)."""

    words: tuple[str, ...]
    channel: float
    lm: float

    @property
    def total(self) -> float:
        """log P(f | e) + log P(e), the noisy-channel objective (1)."""
        return self.channel + self.lm


def _check_search(f: object, k: object, beam: object) -> list[str]:
    for name, v in (("k", k), ("beam", beam)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be a positive int; got {v!r}")
    return _check_sentence(f, "the foreign sentence f")


class NoisyChannel:
    """Eq. (1) from a Model 1 trained on (English, foreign) pairs and an English LM.

    ibm: t(f | e) (:func:`~course_lib.seq2seq.ibm_model1.train_ibm_model1` with English as
    the source); lm: a unigram or bigram :class:`~course_lib.lm.ngram.NGramLM` of English
    sentences (:func:`train_sentence_lm`); floor: t of a foreign word Model 1 never saw.
    Chapter 7.
    """

    def __init__(
        self, ibm: IBMModel1, lm: NGramLM, *, floor: float = 1e-6, drop: bool = False
    ) -> None:
        if not isinstance(ibm, IBMModel1) or not isinstance(lm, NGramLM):
            raise TypeError("NoisyChannel needs an IBMModel1 and an NGramLM")
        if lm.order > 2 or BOUNDARY not in lm.vocab:
            raise ValueError(
                f"the LM must be a unigram or bigram of sentences with {BOUNDARY} "
                f"(train_sentence_lm); got order {lm.order}"
            )
        if not floor > 0:
            raise ValueError(f"floor must be > 0; got {floor!r}")
        self.ibm, self.lm, self.floor, self.drop = ibm, lm, float(floor), bool(drop)
        c_e = lm.vocab.counts  # c(e) in the LM's training text
        freq = np.array([float(c_e.get(e, 0)) for e in ibm.src_words])  # (S,)
        e_ids, f_ids = ibm.pair_src.numpy(), ibm.pair_tgt.numpy()  # (P,), (P,)
        weight = ibm.t.numpy() * freq[e_ids]  # (P,) t(f | e) c(e) ∝ P(e | f); NULL: 0
        order = np.lexsort((-weight, f_ids))  # (P,) by f, then likeliest e first
        order = order[weight[order] > 0]  # (P',)
        self._ranked: dict[str, list[str]] = {}  # f -> English words, likeliest first
        for j, i in zip(f_ids[order].tolist(), e_ids[order].tolist()):
            self._ranked.setdefault(ibm.tgt_words[j], []).append(ibm.src_words[i])

    def score(self, f: Sequence[str], e: Sequence[str]) -> Scored:
        """The two terms of eq. (1) for one English sentence e: (2) and (3)."""
        f = _check_sentence(f, "the foreign sentence f")
        e = _check_sentence(e, "the English sentence e", empty=True)
        channel = self.ibm.log_prob(e, f, floor=self.floor)
        return Scored(tuple(e), channel, lm_log_prob(self.lm, e))

    def gloss(self, f: Sequence[str]) -> Scored:
        """The word-for-word gloss, each f_j's likeliest English word by t(f_j | e) P(e)
        in the foreign order, with no language model in the choice; scored by (1)."""
        return self.score(f, [c[0] for c in self.candidates(f, 1)])

    def candidates(self, f: Sequence[str], k: int = 4) -> list[list[str | None]]:
        """For each f_j its k likeliest English words by t(f_j | e) P(e), P(e) = c(e)/N
        (a foreign word Model 1 never saw proposes itself), then, with ``drop``, None:
        no English word (NULL generated f_j)."""
        f = _check_search(f, k, 1)
        tail = [None] if self.drop else []
        return [self._ranked.get(word, [word])[:k] + tail for word in f]

    def _lattice(self, f: list[str], k: int):
        """The tables the beam reads: the candidate words, their ids at each position
        (0 = no word), t without and with NULL, and the bigram log P between them."""
        cands = self.candidates(f, k)
        words = sorted({w for c in cands for w in c if w is not None})  # C words
        ids = {w: n + 1 for n, w in enumerate(words)}
        choices = [torch.tensor([ids.get(w, 0) for w in c]) for c in cands]  # m × (K,)
        t = self.ibm.t_matrix(words, f, floor=self.floor)  # (m, C+1), column 0: NULL
        t_null = t[:, 0].clone()  # (m,) t(f_j | NULL)
        t[:, 0] = 0.0  # choosing "no word" adds no t
        prev = [BOUNDARY, *words]
        stream = [w for a in prev for b in prev for w in (a, b)]  # every pair a, b
        log_p = self.lm.log_probs(stream)[1::2]  # ((C+1)²,) log P(b | a)
        bigram = torch.from_numpy(log_p).view(len(prev), len(prev))  # row/col 0: <eos>
        return ["", *words], choices, t, t_null, bigram

    def decode(self, f: Sequence[str], *, k: int = 4, beam: int = 8) -> Scored:
        """ê of eq. (1) by a monotone beam search over the lattice of :meth:`candidates`:
        the best sentence among the ``beam`` kept, with its log P(f | e) and log P(e)."""
        f = _check_search(f, k, beam)
        words, choices, t, t_null, bigram = self._lattice(f, k)
        paths, s = [()], t_null[None]  # N paths; (N, m) Σ_i t(f_j | e_i) so far
        lm, length = torch.zeros(2, 1, dtype=torch.float64)  # (N,) log P(e), l
        last = torch.zeros(1, dtype=torch.long)  # (N,) e_l's id, 0 = <eos>
        for j, c in enumerate(choices):  # c: (K,) word ids, 0 = no word
            s_new = s[:, None, :] + t[:, c].T  # (N, K, m)
            lm_new = lm[:, None] + torch.where(c > 0, bigram[last][:, c], 0.0)  # (N, K)
            last_new = torch.where(c > 0, c, last[:, None])  # (N, K)
            len_new = length[:, None] + (c > 0)  # (N, K) l
            if j == len(f) - 1:  # the sentence ends: P(<eos> | e_l)
                lm_new = lm_new + bigram[last_new, 0]  # (N, K)
            # eq. (2) on f_1..f_j
            channel = s_new[..., : j + 1].log().sum(-1) - (j + 1) * len_new.log1p()
            rows, cols, paths = _best_distinct(channel + lm_new, paths, c, beam)
            s, lm = s_new[rows, cols], lm_new[rows, cols]  # (N', m), (N',)
            length, last = len_new[rows, cols], last_new[rows, cols]  # (N',), (N',)
        best = tuple(words[i] for i in paths[0])
        return Scored(best, float(channel[rows[0], cols[0]]), float(lm[0]))

    def decode_exhaustive(
        self, f: Sequence[str], *, k: int = 4, limit: int = 20_000
    ) -> Scored:
        """ê of eq. (1) over every sentence of the lattice, each scored by :meth:`score`.

        The reference for :meth:`decode`: all Π_j K_j choices (k^m, or (k + 1)^m with
        ``drop``), at most ``limit`` of them.
        """
        f = _check_search(f, k, 1)
        cands = self.candidates(f, k)
        n_choices = math.prod(len(c) for c in cands)
        if n_choices > limit:
            raise ValueError(
                f"{n_choices} choices in the lattice, over limit={limit}; "
                "lower k or decode with the beam"
            )
        picks = itertools.product(*cands)
        sentences = sorted({tuple(w for w in p if w is not None) for p in picks})
        return max((self.score(f, e) for e in sentences), key=lambda s: s.total)


def _best_distinct(
    score: Tensor, paths: list[tuple[int, ...]], c: Tensor, beam: int
) -> tuple[Tensor, Tensor, list[tuple[int, ...]]]:
    """The ≤ beam best cells (rows, columns) of score (N, K) whose English prefixes
    differ ("no word" then w, or w then "no word", is one prefix), best first, and the
    prefixes: paths[row] extended by the word of column c[column] (0 = no word)."""
    order = score.flatten().argsort(descending=True, stable=True)  # (N·K,)
    kept, new_paths = [], {}
    for flat in order.tolist():
        r, q = divmod(flat, score.size(1))
        path = paths[r] + ((int(c[q]),) if c[q] > 0 else ())
        if path not in new_paths:
            new_paths[path] = flat
            kept.append(flat)
            if len(kept) == beam:
                break
    kept = torch.tensor(kept)  # (N',)
    return kept // score.size(1), kept % score.size(1), list(new_paths)

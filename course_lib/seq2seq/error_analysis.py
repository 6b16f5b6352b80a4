r"""Beam-search error analysis: is a wrong output the search's fault or the model's? Chapter 7.

*Sequence Models* week 3 (error analysis on beam search). For a source x where beam search
returned ŷ, none of the references, take as y* the reference the model scores highest and
compare the two under the model, with the length normalisation the beam used:

- score(y*|x) > score(ŷ|x): the model prefers the reference, but the beam did not find it —
  **search error** (a wider beam could help);
- score(y*|x) ≤ score(ŷ|x): the model itself prefers the wrong output — **model error**
  (more data, a better model).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from course_lib.data import Vocab
from course_lib.decoding import ALPHA, Hypothesis, normalised_score
from course_lib.seq2seq.bleu import corpus_bleu
from course_lib.seq2seq.model import Seq2Seq
from course_lib.seq2seq.scoring import sequence_log_prob
from course_lib.seq2seq.translation import encode_batch, translate_ids

__all__ = [
    "BeamError",
    "beam_error_analysis",
    "bleu_by_source_length",
    "summarise_errors",
]


@dataclass(frozen=True)
class BeamError:
    """One wrong output: the two sequences, their log-probabilities and scores, the blame."""

    source: list[str]
    reference: list[str]
    output: list[str]
    log_p_reference: float
    log_p_output: float
    score_reference: float
    score_output: float

    @property
    def blame(self) -> str:
        """``"search"`` when the model prefers the reference, else ``"model"``."""
        return "search" if self.score_reference > self.score_output else "model"


def beam_error_analysis(
    model: Seq2Seq,
    sources: Sequence[Sequence[str]],
    references: Sequence[Sequence[Sequence[str]]],
    src_vocab: Vocab,
    tgt_vocab: Vocab,
    *,
    beam_size: int = 5,
    max_len: int = 50,
    alpha: float = ALPHA,
    batch_size: int = 256,
    device: torch.device | str | None = None,
) -> tuple[list[BeamError], int]:
    """Decode every source with beam search; for each output that is none of its
    references, compare it with the reference the model scores highest (y*).

    references: per source, a list of one or more reference token lists. Returns the wrong
    outputs as :class:`BeamError` rows and the number of sentences decoded.
    """
    if len(sources) != len(references) or not sources:
        raise ValueError(
            f"need one list of references per source (> 0): {len(sources)}, "
            f"{len(references)}"
        )
    if any(not refs or isinstance(refs[0], str) for refs in references):
        raise ValueError(
            "each source needs a list of references (token lists), not tokens"
        )
    rows = []
    for k in range(0, len(sources), batch_size):
        srcs, refs = sources[k : k + batch_size], references[k : k + batch_size]
        src, lens, _ = encode_batch(srcs, None, src_vocab, device=device)
        best: list[Hypothesis] = [
            h[0]
            for h in translate_ids(
                model, src, lens, beam_size=beam_size, max_len=max_len, alpha=alpha
            )
        ]
        ref_ids = [[tgt_vocab.encode(r) for r in rr] for rr in refs]
        wrong = [
            b
            for b, h in enumerate(best)
            if not h.finished or h.tokens not in ref_ids[b]
        ]
        if not wrong:
            continue
        flat = [(b, r) for b in wrong for r in range(len(ref_ids[b]))]
        sel = torch.tensor([b for b, _ in flat], device=src.device)
        lp = sequence_log_prob(
            model, src[sel], lens[sel], [ref_ids[b][r] for b, r in flat]
        ).tolist()
        scored: dict[int, tuple[float, float, int]] = {}
        for (b, r), p in zip(flat, lp, strict=True):
            score = normalised_score(p, len(ref_ids[b][r]) + 1, alpha)
            if b not in scored or score > scored[b][0]:
                scored[b] = (score, p, r)
        for b in wrong:
            h, (score, p, r) = best[b], scored[b]
            rows.append(
                BeamError(
                    list(srcs[b]),
                    list(refs[b][r]),
                    tgt_vocab.decode(h.tokens),
                    p,
                    h.log_prob,
                    score,
                    h.score,
                )
            )
    return rows, len(sources)


def summarise_errors(errors: Sequence[BeamError]) -> dict[str, float]:
    """Counts and fractions of search and model errors among the wrong outputs."""
    n = len(errors)
    search = sum(e.blame == "search" for e in errors)
    return {
        "wrong": n,
        "search": search,
        "model": n - search,
        "search_fraction": search / n if n else 0.0,
        "model_fraction": (n - search) / n if n else 0.0,
    }


def bleu_by_source_length(
    sources: Sequence[Sequence[str]],
    candidates: Sequence[Sequence[str]],
    references: Sequence[Sequence[Sequence[str]]],
    edges: Sequence[int],
) -> list[tuple[str, int, float]]:
    """Corpus BLEU of the sentences in each source-length bin (the bottleneck measured).

    edges: increasing bin edges, e.g. (1, 4, 7, 11) gives the bins 1-3, 4-6, 7-10.
    Returns (label, number of sentences, BLEU) per non-empty bin.
    """
    if len(edges) < 2 or list(edges) != sorted(set(edges)):
        raise ValueError(f"edges must be increasing, at least two; got {edges}")
    rows = []
    for lo, hi in zip(edges, edges[1:], strict=False):
        idx = [i for i, s in enumerate(sources) if lo <= len(s) < hi]
        if idx:
            bleu = corpus_bleu(
                [candidates[i] for i in idx], [references[i] for i in idx]
            )
            rows.append((f"{lo}-{hi - 1}", len(idx), bleu))
    return rows

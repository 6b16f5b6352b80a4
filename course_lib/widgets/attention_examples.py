r"""The records :class:`~course_lib.widgets.attention.AttentionExplorer` shows. Chapters 7, 8.

An *example* is one sentence: a stack of named (T_tgt, T_src) attention-weight matrices with
their token labels (:func:`attention_example`), optionally with *candidates*
(:func:`attention_candidate`, e.g. the beam's n-best) that carry their own target tokens and
maps; :func:`translation_example` builds one from a trained ``Seq2Seq`` (Chapter 7: the
neural attention of each beam candidate beside IBM Model 1's alignment posterior). Every
shape is checked here and the numbers are rounded into plain lists, ready for the widget's
traits. This module holds no widget.

Shape letters: M maps, T target tokens (rows), S source tokens (columns).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from course_lib.data import Vocab
from course_lib.decoding import ALPHA
from course_lib.seq2seq import IBMModel1, Seq2Seq, teacher_forced
from course_lib.seq2seq.translation import encode_batch, translate_ids
from course_lib.widgets.base import to_jsonable

__all__ = ["attention_candidate", "attention_example", "translation_example"]


def _stack(
    maps: Any, names: Sequence[str] | None, n_rows: int, n_cols: int, what: str
) -> tuple[list[str], np.ndarray]:
    """Named (T, S) matrices as (names, (M, T, S) array); checks every shape."""
    if isinstance(maps, Mapping):
        if names is not None:
            raise ValueError(
                "pass names only with a stacked tensor; a dict's keys are the names"
            )
        names = [str(k) for k in maps]
        arrays = [np.asarray(_numpy(v), dtype=np.float64) for v in maps.values()]
        if not arrays:
            raise ValueError(f"{what}: maps is empty; give at least one (T, S) matrix")
        for n, a in zip(names, arrays, strict=True):
            if a.shape != (n_rows, n_cols):
                raise ValueError(
                    f"{what}: map {n!r} must be (T_tgt, T_src) = ({n_rows}, {n_cols}) for "
                    f"{n_rows} target and {n_cols} source tokens; got {a.shape}"
                )
        return names, np.stack(arrays)
    a = np.asarray(_numpy(maps), dtype=np.float64)
    if a.ndim < 2 or a.shape[-2:] != (n_rows, n_cols):
        raise ValueError(
            f"{what}: maps must end in (T_tgt, T_src) = ({n_rows}, {n_cols}) for {n_rows} "
            f"target and {n_cols} source tokens; got shape {a.shape}"
        )
    lead = a.shape[:-2]
    if names is None:
        if len(lead) == 0:
            names = ["attention"]
        elif len(lead) == 1:
            names = [f"head {h + 1}" for h in range(lead[0])]
        elif len(lead) == 2:
            names = [
                f"layer {i + 1} · head {h + 1}"
                for i in range(lead[0])
                for h in range(lead[1])
            ]
        else:
            raise ValueError(f"{what}: at most (L, H, T, S) maps; got shape {a.shape}")
    stacked = a.reshape(-1, n_rows, n_cols)  # (M, T, S)
    names = [str(n) for n in names]
    if len(names) != stacked.shape[0]:
        raise ValueError(f"{what}: {stacked.shape[0]} maps but {len(names)} names")
    return names, stacked


def _numpy(x: Any) -> Any:
    return x.detach().cpu().numpy() if hasattr(x, "detach") else x


def _tokens(tokens: Any, what: str) -> list[str]:
    if isinstance(tokens, str) or not isinstance(tokens, Sequence):
        raise TypeError(f"{what} must be a list of tokens; got {type(tokens).__name__}")
    if len(tokens) == 0:
        raise ValueError(f"{what} is empty: give at least one token")
    return [str(x) for x in tokens]


def attention_candidate(
    tokens: Sequence[str],
    score: float | None = None,
    log_prob: float | None = None,
    maps: Any = None,
    *,
    source_len: int | None = None,
    names: Sequence[str] | None = None,
    decimals: int = 3,
) -> dict:
    """One candidate output (e.g. of the beam's n-best): target tokens, score, log P, and
    optionally its own (T', S) maps (then ``source_len`` S is needed)."""
    toks = _tokens(tokens, "candidate tokens")
    out: dict[str, Any] = {
        "tokens": toks,
        "score": None if score is None else round(float(score), decimals),
        "log_prob": None if log_prob is None else round(float(log_prob), decimals),
        "maps": None,
    }
    if maps is not None:
        if source_len is None:
            raise ValueError(
                "a candidate with maps needs source_len (the number of columns)"
            )
        _, stacked = _stack(maps, names, len(toks), source_len, "candidate")
        out["maps"] = to_jsonable(stacked, decimals)
    return out


def attention_example(
    source: Sequence[str],
    target: Sequence[str],
    maps: Any,
    *,
    names: Sequence[str] | None = None,
    candidates: Sequence[dict] = (),
    name: str | None = None,
    note: str = "",
    decimals: int = 3,
) -> dict:
    """One sentence for :class:`AttentionExplorer`: a stack of named (T, S) weight matrices.

    source: S column labels; target: T row labels; maps: ``{name: (T, S)}`` or a tensor /
    array (T, S), (M, T, S) or (L, H, T, S) (names default to ``head h`` or
    ``layer l · head h``); candidates: from :func:`attention_candidate` (their maps, if any,
    use the same names in the same order). ``note``: one line shown under the grid.
    """
    src, tgt = _tokens(source, "source"), _tokens(target, "target")
    map_names, stacked = _stack(maps, names, len(tgt), len(src), "example")
    cands = list(candidates)
    for k, c in enumerate(cands):
        if not isinstance(c, dict) or "tokens" not in c:
            raise TypeError(f"candidate {k} must come from attention_candidate()")
        if c["maps"] is not None and len(c["maps"]) != len(map_names):
            raise ValueError(
                f"candidate {k} has {len(c['maps'])} maps; the example has {len(map_names)}"
            )
    return {
        "name": str(name)
        if name
        else " ".join(src[:8]) + (" …" if len(src) > 8 else ""),
        "source": src,
        "target": tgt,
        "map_names": map_names,
        "maps": to_jsonable(stacked, decimals),
        "candidates": cands,
        "note": str(note),
    }


def translation_example(
    model: Seq2Seq,
    source: Sequence[str],
    src_vocab: Vocab,
    tgt_vocab: Vocab,
    *,
    ibm: IBMModel1 | None = None,
    beam_size: int = 5,
    max_len: int = 30,
    alpha: float = ALPHA,
    reference: Sequence[str] | None = None,
    device: Any = None,
) -> dict:
    """Translate one source sentence and package it for :class:`AttentionExplorer`. Ch. 7.

    The beam's n-best (all ``beam_size``) are the candidates, each with its own neural
    attention and, with ``ibm``, IBM Model 1's alignment posterior of the same sentence pair
    (NULL column left out; no row for ``<eos>``). The example shows the best candidate.
    """
    src, lens, _ = encode_batch([list(source)], None, src_vocab, device=device)
    (hyps,) = translate_ids(
        model,
        src,
        lens,
        beam_size=beam_size,
        n_best=beam_size,
        max_len=max_len,
        alpha=alpha,
    )
    _, maps = teacher_forced(
        model,
        src.expand(len(hyps), -1),
        lens.expand(len(hyps)),
        [h.tokens for h in hyps],
        finished=[h.finished for h in hyps],
    )
    names = ["neural attention"] + (["IBM Model 1"] if ibm is not None else [])
    cands = []
    for h, attention in zip(hyps, maps, strict=True):
        words = tgt_vocab.decode(h.tokens)
        rows = words + (["<eos>"] if h.finished else [])
        stack = {"neural attention": attention}
        if ibm is not None:
            a = np.full((len(rows), len(source)), np.nan)
            if words:
                a[: len(words)] = ibm.alignment(list(source), words).numpy()
            stack["IBM Model 1"] = a
        cands.append(
            attention_candidate(
                rows, h.score, h.log_prob, stack, source_len=len(source)
            )
        )
    best = cands[0]
    note = f"beam {beam_size}, score = log P / |y|^{alpha}"
    if reference is not None:
        note = f"reference: {' '.join(reference)} · {note}"
    return {
        "name": " ".join(source),
        "source": [str(w) for w in source],
        "target": best["tokens"],
        "map_names": names,
        "maps": best["maps"],
        "candidates": cands,
        "note": note,
    }

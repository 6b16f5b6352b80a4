r"""What a model must offer to be decoded: ``step`` and ``reorder``. Chapters 5, 7, 8, 9.

Every generating model of the course (the n-gram and neural language models of Chapter 5,
the encoder-decoder of Chapter 7, the Transformer of Chapter 8, the GPT of Chapter 9) is
decoded by the same three functions of :mod:`course_lib.decoding`. Each model implements

    step(tokens, state) -> (log_probs, state)
        tokens (N,) the newest token of each of N rows; log_probs (N, V) = log P(y_t | y_<t, x)
        of the next token, rows summing to 1 after exp; the new state.
    reorder(state, rows) -> state
        keep, repeat or drop rows: ``rows`` (N',) indexes the N rows of ``state``
        (an LSTM's (h, c), a Transformer's per-layer key/value cache, an n-gram's contexts).

``state=None`` is the empty history of a language model. :func:`select_rows` is the
``reorder`` of any state made of tensors whose first dimension is the row.

Shape legend: N rows (sentences × beams), V vocabulary.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol, runtime_checkable

import torch
from torch import Tensor

from course_lib.checks import InputError, InputTypeError

__all__ = [
    "Decodable",
    "as_prompt",
    "check_decodable",
    "check_log_probs",
    "reorder_state",
    "select_rows",
]


@runtime_checkable
class Decodable(Protocol):
    """A model that :mod:`course_lib.decoding` can decode."""

    def step(self, tokens: Tensor, state: Any) -> tuple[Tensor, Any]: ...

    def reorder(self, state: Any, rows: Tensor) -> Any: ...


def select_rows(state: Any, rows: Tensor, *, dim: int = 0) -> Any:
    """``state`` with the rows ``rows`` (N',) picked along ``dim`` of every tensor inside it.

    Walks tuples, lists, dicts, NamedTuples and dataclasses; ``None`` and Python scalars
    (flags such as ``use_cache``) are shared by every row and stay as they are.
    Raises ``ValueError`` for a row out of range and ``TypeError`` for a leaf it cannot index.
    """
    if state is None or isinstance(state, (bool, int, float, str)):
        return state
    if isinstance(state, Tensor):
        n = state.size(dim)
        if rows.numel() and (int(rows.max()) >= n or int(rows.min()) < 0):
            raise InputError(
                f"reorder: rows {rows.tolist()[:8]} are out of range for a state of "
                f"{n} rows (shape {tuple(state.shape)}, row dimension {dim})"
            )
        return state.index_select(dim, rows.to(state.device))
    if isinstance(state, tuple) and hasattr(state, "_fields"):  # a NamedTuple
        return type(state)(*(select_rows(s, rows, dim=dim) for s in state))
    if isinstance(state, (tuple, list)):
        return type(state)(select_rows(s, rows, dim=dim) for s in state)
    if isinstance(state, dict):
        return {k: select_rows(v, rows, dim=dim) for k, v in state.items()}
    if dataclasses.is_dataclass(state) and not isinstance(state, type):
        fields = {
            f.name: select_rows(getattr(state, f.name), rows, dim=dim)
            for f in dataclasses.fields(state)
        }
        return dataclasses.replace(state, **fields)
    raise InputTypeError(
        f"reorder cannot index a state part of type {type(state).__name__}: a state "
        "is made of tensors (row first) in tuples, lists, dicts or dataclasses"
    )


def reorder_state(model: Decodable, state: Any, rows: Tensor, n: int) -> Any:
    """``model.reorder(state, rows)`` after checking ``rows`` against the ``n`` live rows."""
    if rows.numel() and (int(rows.max()) >= n or int(rows.min()) < 0):
        raise InputError(f"rows {rows.tolist()[:8]} out of range for {n} live rows")
    try:
        return model.reorder(state, rows)
    except (IndexError, RuntimeError) as err:
        raise InputError(
            f"{type(model).__name__}.reorder could not select rows from its state "
            f"({type(state).__name__}): {err}"
        ) from err


def check_decodable(model: Any) -> None:
    """A clear error when ``model`` lacks the decoding protocol."""
    missing = [m for m in ("step", "reorder") if not callable(getattr(model, m, None))]
    if missing:
        raise InputTypeError(
            f"{type(model).__name__} cannot be decoded: it needs "
            f"{' and '.join(missing)} (see course_lib.decoding.protocol)"
        )


def check_log_probs(log_probs: Tensor, n: int) -> Tensor:
    """The (N, V) log-probabilities a step returned, checked: one row per live row."""
    if not isinstance(log_probs, Tensor) or log_probs.dim() != 2:
        raise InputError(
            f"step must return log-probabilities (N, V); got "
            f"{getattr(log_probs, 'shape', type(log_probs).__name__)}"
        )
    if log_probs.size(0) != n:
        raise InputError(f"step returned {log_probs.size(0)} rows for {n} tokens")
    return log_probs


def as_prompt(prompt: Any, device: torch.device | str | None = None) -> Tensor:
    """A prompt as a (B, P) tensor of ids, P >= 1: from a tensor or (lists of) ints."""
    try:
        p = torch.as_tensor(prompt, device=device)
    except (TypeError, ValueError, RuntimeError) as err:
        raise InputError(
            f"prompt must be token ids, one row of P ids per sequence, all rows of one "
            f"length (pad them, or decode them one at a time); got {prompt!r:.60} ({err})"
        ) from err
    if p.dim() == 1:
        p = p[None, :]  # (1, P)
    if p.dim() != 2 or p.size(0) == 0 or p.size(1) == 0:
        raise InputError(
            "prompt must hold at least one token id per row (B, P >= 1), e.g. <bos>; "
            f"got shape {tuple(p.shape)}"
        )
    if p.dtype.is_floating_point or p.dtype.is_complex or p.dtype == torch.bool:
        raise InputTypeError(
            f"prompt must hold integer token ids; got dtype {p.dtype}, which would be "
            "cut to integers (1.9 -> 1): pass the ids the vocabulary's encode gave"
        )
    return p.long()  # (B, P)

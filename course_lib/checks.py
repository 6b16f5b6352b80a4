"""Checking a learner's inputs where they enter the library: one family of errors, one voice.

Models, losses, decoders and tokenizers check what a learner hands them with these helpers,
so a mistake gets an error in the caller's terms (which argument, what was wrong, what was
expected, how to fix it) instead of torch's "index out of range in self" from deep inside,
or a silently wrong number. The errors are :class:`InputError` (a ``ValueError``),
:class:`InputTypeError` (also a ``TypeError``) and :class:`NotFiniteError` (also a
``FloatingPointError``), so ``except InputError`` catches them all and older
``except ValueError`` code still works.

Each check is a reduction or two over a tensor with one host synchronisation, made once at
the public boundary, never inside a loop over time steps; valid input is never changed.
"""

from __future__ import annotations

import json
import os
from typing import Any

import torch
from torch import Tensor

__all__ = [
    "InputError",
    "InputTypeError",
    "NotFiniteError",
    "check_coverage",
    "check_id",
    "check_log_probs",
    "check_scalar_loss",
    "check_targets",
    "check_token_ids",
    "describe",
    "read_json",
]


class InputError(ValueError):
    """A learner's input has a wrong value, shape or size; the message names the fix."""


class InputTypeError(InputError, TypeError):
    """A learner's input has the wrong type or dtype (also a ``TypeError``)."""


class NotFiniteError(InputError, FloatingPointError):
    """NaN or infinity where numbers must be finite (also a ``FloatingPointError``)."""


def describe(x: Any) -> str:
    """A short account of a value for an error message: a tensor's shape, or the type."""
    if isinstance(x, Tensor):
        return f"shape {tuple(x.shape)} ({x.dtype})"
    if isinstance(x, (list, tuple)):
        return f"a {type(x).__name__} of {len(x)}"
    return type(x).__name__


def _is_integer(t: Tensor) -> bool:
    return not (
        t.dtype.is_floating_point or t.dtype.is_complex or t.dtype == torch.bool
    )


def _span(t: Tensor) -> tuple[int, int]:
    """(min, max) of a non-empty tensor, with one synchronisation."""
    low, high = torch.stack(torch.aminmax(t)).tolist()
    return int(low), int(high)


def _check_range(t: Tensor, vocab_size: int, name: str, ignore: int | None) -> None:
    if ignore is not None:
        t = t[t != ignore]
    if t.numel() == 0:
        return
    low, high = _span(t)
    if low < 0 or high >= vocab_size:
        bad = low if low < 0 else high
        raise InputError(
            f"{name} holds the id {bad}, outside the vocabulary of {vocab_size} "
            f"(ids 0 … {vocab_size - 1}); was it encoded with another vocabulary?"
        )


def check_token_ids(
    tokens: Any,
    vocab_size: int,
    name: str = "tokens",
    *,
    dims: int = 2,
    allow_empty: bool = False,
) -> None:
    """Token ids for an embedding: a ``dims``-D integer tensor ((B, T) by default), not
    empty unless ``allow_empty``, every id in 0 … vocab_size − 1; else a clear error."""
    shape = {1: "(N,)", 2: "(B, T)"}.get(dims, f"{dims}-D")
    if not isinstance(tokens, Tensor) or tokens.dim() != dims:
        got = describe(tokens) if isinstance(tokens, Tensor) else f"{tokens!r:.60}"
        hint = f"; one sequence? add a batch dimension: {name}[None]"
        hint = hint if dims == 2 and getattr(tokens, "ndim", 0) == 1 else ""
        raise InputError(
            f"{name} must be {shape} token ids (a tensor); got {got}{hint}"
        )
    if tokens.dtype not in (torch.long, torch.int32):
        raise InputTypeError(
            f"{name} must hold integer ids (torch.long); got dtype {tokens.dtype}: ids "
            "come from a vocabulary's encode (or convert them with .long())"
        )
    if not allow_empty and 0 in tokens.shape:
        raise InputError(
            f"{name} is empty (shape {tuple(tokens.shape)}); need B, T >= 1"
            if dims == 2
            else f"{name} is empty (shape {tuple(tokens.shape)}); need at least one id"
        )
    _check_range(tokens, vocab_size, name, None)


def check_targets(
    targets: Any,
    inputs: Tensor,
    vocab_size: int,
    name: str = "y",
    like: str = "x",
    *,
    ignore_index: int | None = None,
) -> None:
    """Target ids for a loss: one per input position (the shape of ``inputs``), integer,
    in 0 … vocab_size − 1 (``ignore_index`` allowed too); else a clear error."""
    if not isinstance(targets, Tensor) or targets.shape != inputs.shape:
        raise InputError(
            f"{name} must have the shape of {like}, {tuple(inputs.shape)}: one target id "
            f"per position of {like} (for a language model, {like} shifted by one); "
            f"got {describe(targets)}"
        )
    if targets.dtype != torch.long:
        raise InputTypeError(
            f"{name} must hold integer ids (class indices, torch.long); got dtype "
            f"{targets.dtype} (convert them with .long())"
        )
    _check_range(targets, vocab_size, name, ignore_index)


def check_id(value: Any, vocab_size: int, name: str, why: str = "") -> int:
    """One token id (an int in 0 … vocab_size − 1, e.g. ``eos``), returned as an int."""
    if isinstance(value, Tensor) and value.numel() == 1 and _is_integer(value):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputTypeError(f"{name} must be an int token id; got {value!r:.40}")
    if not 0 <= value < vocab_size:
        raise InputError(
            f"{name}={value} is outside the vocabulary of {vocab_size} (ids 0 … "
            f"{vocab_size - 1}){why}"
        )
    return value


def _tolerance(dtype: torch.dtype) -> float:
    """How far from 0 a row's log-sum-exp may be after rounding in ``dtype``."""
    return max(1e-3, 10 * torch.finfo(dtype).eps)


def check_log_probs(
    log_probs: Tensor, name: str = "log_probs", *, valid: Tensor | None = None
) -> None:
    """Log-probabilities along the last dimension: no NaN, each row's logsumexp = 0.

    valid: a boolean mask over the rows (the leading dimensions), True where the row is
    used (padding frames may hold anything). Raw logits, probabilities (no log) and NaN
    all give a clear error; -inf entries (probability 0) are fine.
    """
    lse = log_probs.detach().float().logsumexp(-1)  # rows
    off = ~((lse.abs() <= _tolerance(log_probs.dtype)) | ~_as_mask(valid, lse))
    if not bool(off.any()):
        return
    row = tuple(off.nonzero()[0].tolist())
    if bool(torch.isnan(log_probs.detach()[row]).any()):
        raise NotFiniteError(
            f"{name} holds NaN (row {row}): the model's output is not a number, e.g. "
            "after a NaN weight or a diverged training step; check "
            "torch.isfinite(...) on the inputs and the parameters"
        )
    raise InputError(
        f"{name} must be log-probabilities over the last dimension (each row's "
        f"logsumexp is 0); row {row} has logsumexp {float(lse[row]):.4g}. Were raw "
        "logits (or probabilities) passed? Apply .log_softmax(-1) first"
    )


def _as_mask(valid: Tensor | None, like: Tensor) -> Tensor:
    if valid is None:
        return torch.ones_like(like, dtype=torch.bool)
    return valid.to(like.device)


def check_scalar_loss(loss: Any, source: str = "loss_fn") -> Tensor:
    """What a training step can call ``backward`` on: a 0-d tensor; else a clear error."""
    if not isinstance(loss, Tensor):
        hint = ""
        if isinstance(loss, tuple) and loss and isinstance(loss[0], Tensor):
            hint = (
                f" of {len(loss)}: a model whose forward returns (loss, state), as "
                "RNNLM's does, needs loss_fn=lambda model, batch: model(*batch)[0]"
            )
        raise InputTypeError(
            f"{source} must return the loss as a scalar tensor; got "
            f"{type(loss).__name__}{hint}"
        )
    if loss.dim() != 0:
        raise InputError(
            f"the loss must be a scalar, got shape {tuple(loss.shape)} (reduce it, "
            "e.g. .mean())"
        )
    return loss


def check_coverage(
    unknown: int, total: int, *, what: str, size: int, unk: str, limit: float = 0.5
) -> None:
    """At most ``limit`` of ``total`` tokens outside a vocabulary of ``size`` entries
    (which would all be read as ``unk``); else a clear error."""
    if total and unknown > limit * total:
        raise InputError(
            f"{unknown:,} of the {total:,} {what} ({unknown / total:.0%}) are not in "
            f"the given vocabulary of {size:,} entries and would all be read as "
            f"{unk!r}; was the vocabulary built from other text? Build it from these "
            "tokens (or pass vocab=None)"
        )


def read_json(path: str | os.PathLike, what: str) -> Any:
    """The JSON data of the file ``path`` (a saved ``what``), or an error naming the file."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(
            f"{os.fspath(path)} is not a complete {what} file: invalid JSON at line "
            f"{err.lineno}, column {err.colno} ({err.msg}); it was cut short (an "
            f"interrupted write?) or edited by hand: save the {what} again"
        ) from err

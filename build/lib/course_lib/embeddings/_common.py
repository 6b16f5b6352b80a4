"""Helpers shared by the Chapter 1 modules: reading a corpus of token ids, checking arguments.

A corpus is a list of sentences of token ids (``list[list[int]]``, a list of 1-D LongTensors, one
1-D LongTensor = one sentence, or a 2-D LongTensor whose rows are sentences). Windows never cross a
sentence boundary. Ids outside the vocabulary (``>= vocab_size``) become ``unk_id`` or, when that is
None, are dropped; ids equal to ``ignore_index`` are dropped. A dropped token yields no pairs but
keeps its position: the window does not close up over it.

Shape letters: N tokens in the corpus, S sentences, T sentence length.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor

Corpus = Sequence[Sequence[int]] | Sequence[Tensor] | Tensor
Device = torch.device | str | None


def describe(x: Any) -> str:
    """A tensor's shape, or an object's type, for error messages."""
    return str(tuple(x.shape)) if isinstance(x, Tensor) else type(x).__name__


def check_positive_int(value: Any, name: str, meaning: str = "") -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be an int >= 1{meaning}, got {value!r}")


def check_window(window: int) -> None:
    check_positive_int(window, "window", " (words on each side of the centre)")


def _integer_ids(t: Tensor) -> Tensor:
    if t.dtype.is_floating_point or t.dtype.is_complex or t.dtype == torch.bool:
        raise TypeError(f"token ids must be integers, got dtype {t.dtype}")
    return t


def flatten_corpus(sentences: Corpus, device: Device = None) -> tuple[Tensor, Tensor]:
    """Concatenate the sentences: token ids (N,) and the sentence index of each token (N,)."""
    if isinstance(sentences, Tensor):
        batch = sentences.unsqueeze(0) if sentences.dim() == 1 else sentences  # (S, T)
        if batch.dim() != 2:
            raise ValueError(
                f"a tensor corpus must be 1-D (T,) or 2-D (S, T), got {describe(sentences)}"
            )
        tokens = _integer_ids(batch).reshape(-1).to(device, torch.long)  # (N,)
        lengths = torch.full(
            (batch.size(0),), batch.size(1), device=tokens.device
        )  # (S,)
    else:
        try:
            sents = list(sentences)
            if any(isinstance(s, Tensor) for s in sents):
                pieces = [torch.as_tensor(s).reshape(-1) for s in sents]  # S × (T_s,)
                tokens = torch.cat(pieces) if pieces else torch.zeros(0)  # (N,)
            else:
                pieces = sents
                tokens = torch.tensor(
                    list(itertools.chain.from_iterable(sents))
                )  # (N,)
        except (TypeError, ValueError, RuntimeError) as err:
            raise TypeError(
                "sentences must be lists of int token ids (map words to ids with the "
                f"vocabulary first) or a LongTensor; got {type(sentences).__name__}: {err}"
            ) from err
        if tokens.numel():
            _integer_ids(tokens)
        tokens = tokens.to(device, torch.long)  # (N,)
        lengths = torch.tensor([len(p) for p in pieces], device=tokens.device)  # (S,)
    if tokens.numel() == 0:
        raise ValueError(
            "empty corpus: got no tokens (no sentences, or only empty ones)"
        )
    if int(tokens.min()) < 0:
        raise ValueError(f"token ids must be >= 0, got the id {int(tokens.min())}")
    seg = torch.arange(lengths.numel(), device=tokens.device)  # (S,)
    return tokens, seg.repeat_interleave(lengths)  # (N,), (N,)


def restrict(
    tokens: Tensor, vocab_size: int | None, unk_id: int | None, ignore_index: int | None
) -> Tensor:
    """Map ids >= vocab_size to unk_id (or drop them), drop ignore_index; dropped ids are -1."""
    if vocab_size is not None:
        check_positive_int(vocab_size, "vocab_size")
    if unk_id is not None:
        if vocab_size is None:
            raise ValueError(
                "unk_id needs vocab_size (the ids >= vocab_size become unk_id)"
            )
        if not 0 <= unk_id < vocab_size:
            raise ValueError(f"unk_id must be in [0, {vocab_size}), got {unk_id}")
    if vocab_size is not None:
        fill = -1 if unk_id is None else unk_id
        tokens = tokens.masked_fill(tokens >= vocab_size, fill)  # (N,)
    if ignore_index is not None:
        tokens = tokens.masked_fill(tokens == ignore_index, -1)  # (N,)
    return tokens

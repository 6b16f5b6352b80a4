r"""One-hot vectors and why they fail; an embedding lookup is a one-hot matrix product. Chapter 1.

CS224N lecture 1 ("Word vectors"): in traditional NLP a word is a discrete symbol, a one-hot vector
o_t ∈ {0, 1}^V. Any two different one-hot vectors are orthogonal (cosine 0, so "motel" is no closer
to "hotel" than to "banana") and as long as the vocabulary. A dense embedding matrix E (V, D) fixes
both: oᵀE picks the row e_t, which is exactly what ``torch.nn.Embedding`` computes by indexing.
(The lecture writes E as (D, V) and E o_t as a column; batch-first code keeps words as rows.)

Shape letters: N ids (any leading shape "..."), V vocabulary, D embedding width.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from course_lib.embeddings._common import Device, check_positive_int, describe

Ids = int | Sequence[int] | Tensor


def _as_ids(ids: Ids, vocab_size: int, device: Device) -> Tensor:
    check_positive_int(vocab_size, "vocab_size")
    ids = torch.as_tensor(ids, device=device)  # (...)
    if ids.dtype.is_floating_point or ids.dtype.is_complex or ids.dtype == torch.bool:
        raise TypeError(f"ids must be integers, got dtype {ids.dtype}")
    ids = ids.long()  # (...)
    if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= vocab_size):
        low, high = int(ids.min()), int(ids.max())
        raise ValueError(
            f"ids must be in [0, vocab_size = {vocab_size}), got [{low}, {high}]"
        )
    return ids


def one_hot(
    ids: Ids,
    vocab_size: int,
    *,
    dtype: torch.dtype = torch.float32,
    device: Device = None,
) -> Tensor:
    r"""One-hot vectors o_t: a 1 at position t and V - 1 zeros (lecture 1). Chapter 1.

    ids: int, list or LongTensor of shape (...) with values in [0, V). Returns (..., V) of ``dtype``
    on ``device`` (default: the device of ``ids``); same values as ``F.one_hot`` but float.
    """
    ids = _as_ids(ids, vocab_size, device)  # (...)
    out = torch.zeros(
        *ids.shape, vocab_size, dtype=dtype, device=ids.device
    )  # (..., V)
    return out.scatter_(-1, ids.unsqueeze(-1), 1)  # (..., V)


def one_hot_similarity(ids: Ids, vocab_size: int, *, device: Device = None) -> Tensor:
    r"""Cosine similarities between the one-hot vectors of ``ids`` (lecture 1). Chapter 1.

    cos(o_i, o_j) = o_i·o_j / (‖o_i‖ ‖o_j‖) = 1 if the words are the same, else 0: one-hot vectors
    carry no notion of similarity. ids: (N,); returns (N, N).
    """
    O = one_hot(ids, vocab_size, device=device).reshape(-1, vocab_size)  # (N, V)
    norms = O.norm(dim=1, keepdim=True)  # (N, 1)
    return (O @ O.T) / (norms * norms.T)  # (N, N)


def embedding_lookup(E: Tensor, ids: Ids, *, method: str = "matmul") -> Tensor:
    r"""Rows of the embedding matrix, e_t = o_tᵀ E (lecture 1). Chapter 1.

    E: (V, D); ids: (...). ``method="matmul"`` multiplies the one-hot vectors by E (V·D
    multiply-adds a word, to show the identity); ``"index"`` selects rows, E[ids], as
    ``nn.Embedding`` does. Both return (..., D) with the same values.
    """
    _check_lookup(E, method)
    ids = _as_ids(ids, E.size(0), E.device)  # (...)
    if method == "matmul":
        return (
            one_hot(ids, E.size(0), dtype=E.dtype) @ E
        )  # (..., V) @ (V, D) -> (..., D)
    return E[ids]  # (..., D)


def _check_lookup(E: Tensor, method: str) -> None:
    if not isinstance(E, Tensor) or E.dim() != 2:
        raise ValueError(f"E must be a 2-D embedding matrix (V, D), got {describe(E)}")
    if method not in ("matmul", "index"):
        raise ValueError(f"method must be 'matmul' or 'index', got {method!r}")

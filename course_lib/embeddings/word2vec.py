r"""word2vec with the full (naive) softmax: skip-gram and CBOW. Chapter 1.

CS224N lecture 1 ("Word vectors") and assignment 2; Mikolov, Chen, Corrado and Dean (2013),
"Efficient estimation of word representations in vector space". Every word w has a centre vector
v_w (rows of ``V``) and an outside vector u_w (rows of ``U``). Skip-gram predicts each outside word
o within ``window`` positions of a centre word c with

    P(o | c) = exp(u_oᵀ v_c) / Σ_{w ∈ V} exp(u_wᵀ v_c),      J = -log P(o | c)        (lecture 1)

and CBOW predicts the centre word from the mean of its context words' vectors. The softmax here is
the full one, O(V) a pair; Chapter 2 adds negative sampling and hierarchical softmax next to it
(``naive_softmax_loss`` <-> ``neg_sampling_loss``, an ``objective=`` keyword on the models).

Shape letters: N tokens, P examples (pairs), B batch, W window (words on each side, 2W context
slots), V vocabulary, D embedding width. (``V`` and ``U`` are also the lecture's names for the two
vector tables; both have shape (V, D).)
"""

from __future__ import annotations

import torch
import torch.nn as nn
from torch import Tensor

from course_lib.data.windows import context_at
from course_lib.embeddings._common import (
    Corpus,
    Device,
    check_positive_int,
    check_window,
    describe,
    flatten_corpus,
    restrict,
)

VECTOR_KINDS = ("centre", "outside", "sum", "mean")


def _context_windows(
    tokens: Tensor, seg: Tensor, window: int, pad_id: int
) -> tuple[Tensor, Tensor, Tensor]:
    """Every token's 2W neighbours (offsets -W..-1, 1..W), padded, and which of them are real."""
    offsets = torch.arange(-window, window + 1, device=tokens.device)  # (2W + 1,)
    context, mask = context_at(tokens, offsets[offsets != 0], pad_id, seg)  # (N, 2W) ×2
    mask &= (context >= 0) & (tokens[:, None] >= 0)  # (N, 2W)  neither word dropped
    return context.masked_fill(~mask, pad_id), mask, tokens  # (N, 2W), (N, 2W), (N,)


def skipgram_pairs(
    sentences: Corpus,
    window: int,
    *,
    vocab_size: int | None = None,
    unk_id: int | None = None,
    ignore_index: int | None = None,
    device: Device = None,
) -> Tensor:
    r"""All (centre, outside) pairs with the outside word at most ``window`` away. Chapter 1.

    Sentences as in ``cooccurrence``: windows stay inside a sentence; ids >= ``vocab_size`` become
    ``unk_id`` or are dropped, ``ignore_index`` is dropped (dropped words keep their position).
    Returns a LongTensor (P, 2) of (c, o), ordered by centre position, then offset -W..W.
    """
    check_window(window)
    tokens, seg = flatten_corpus(sentences, device)  # (N,), (N,)
    tokens = restrict(tokens, vocab_size, unk_id, ignore_index)  # (N,)
    context, mask, centre = _context_windows(tokens, seg, window, 0)  # (N, 2W) ×2, (N,)
    centres = centre[:, None].expand_as(context)  # (N, 2W)
    pairs = torch.stack([centres[mask], context[mask]], dim=1)  # (P, 2)
    if pairs.size(0) == 0:
        raise ValueError("no (centre, outside) pairs: no sentence has 2 kept words")
    return pairs


def word_windows(
    sentences: Corpus,
    window: int,
    *,
    pad_id: int = 0,
    vocab_size: int | None = None,
    unk_id: int | None = None,
    ignore_index: int | None = None,
    device: Device = None,
) -> tuple[Tensor, Tensor, Tensor]:
    r"""Every kept centre word with its up-to-2W context words: the windows of lecture 1. Ch. 1.

    One window is one CBOW example (predict the centre from the context) and one skip-gram
    window (predict each context word from the centre, one softmax shared by them). Returns
    contexts (P, 2W) (slots -W..-1, 1..W; empty slots hold ``pad_id``), mask (P, 2W) bool
    (True = a real context word) and centres (P,). Centres without any context word are left out.
    Arguments as in ``skipgram_pairs``.
    """
    check_window(window)
    tokens, seg = flatten_corpus(sentences, device)  # (N,), (N,)
    tokens = restrict(tokens, vocab_size, unk_id, ignore_index)  # (N,)
    context, mask, centre = _context_windows(
        tokens, seg, window, pad_id
    )  # (N, 2W) ×2, (N,)
    keep = mask.any(dim=1)  # (N,)
    if not bool(keep.any()):
        raise ValueError("no windows: no sentence has 2 kept words")
    return context[keep], mask[keep], centre[keep]  # (P, 2W), (P, 2W), (P,)


def _check_softmax_inputs(v_c: Tensor, o: Tensor, U: Tensor) -> None:
    if not isinstance(v_c, Tensor) or v_c.dim() != 2:
        raise ValueError(
            f"v_c must be 2-D (B, D) (one vector: v_c[None]), got {describe(v_c)}"
        )
    B, D = v_c.shape
    if not isinstance(U, Tensor) or U.dim() != 2 or U.size(1) != D:
        raise ValueError(f"U must be (V, D) with D = {D} as in v_c, got {describe(U)}")
    if not isinstance(o, Tensor) or o.shape != (B,):
        raise ValueError(f"o must be (B,) with B = {B} as in v_c, got {describe(o)}")
    if o.dtype.is_floating_point or o.dtype == torch.bool:
        raise TypeError(f"o must hold integer word ids, got dtype {o.dtype}")
    if B and (int(o.min()) < 0 or int(o.max()) >= U.size(0)):
        low, high = int(o.min()), int(o.max())
        raise ValueError(f"o must be ids in [0, V = {U.size(0)}), got [{low}, {high}]")


def _reduce(losses: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return losses.mean()
    if reduction == "sum":
        return losses.sum()
    if reduction == "none":
        return losses
    raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def naive_softmax_loss(
    v_c: Tensor, o: Tensor, U: Tensor, *, reduction: str = "mean"
) -> Tensor:
    r"""J = -log P(o | c) = -u_oᵀv_c + log Σ_w exp(u_wᵀv_c), with autograd (lecture 1). Chapter 1.

    v_c: (B, D) centre (or CBOW mean-context) vectors; o: (B,) outside ids; U: (V, D).
    Computed with log-softmax, so large scores do not overflow. Returns a scalar, or (B,) for
    ``reduction="none"``.
    """
    _check_softmax_inputs(v_c, o, U)
    log_y_hat = (v_c @ U.T).log_softmax(dim=1)  # (B, V)  log P(w | c) for every w
    losses = -log_y_hat.gather(1, o[:, None]).squeeze(1)  # (B,)
    return _reduce(losses, reduction)


def naive_softmax_loss_and_gradient(
    v_c: Tensor, o: Tensor, U: Tensor, *, reduction: str = "mean"
) -> tuple[Tensor, Tensor, Tensor]:
    r"""The loss and its gradients derived by hand, without autograd (lecture 1). Ch. 1.

    With ŷ = softmax(U v_c) and y the one-hot of o (assignment 2):
    ∂J/∂v_c = Uᵀ(ŷ - y) and ∂J/∂U = (ŷ - y) v_cᵀ. Batched: v_c (B, D), o (B,), U (V, D).
    Returns the loss (scalar; (B,) if ``reduction="none"``), grad_v_c (B, D) (row b is
    ∂J/∂v_c of example b) and grad_U (V, D), summed over the batch; both are divided by
    B for ``"mean"`` and are those of the summed loss otherwise.
    """
    _check_softmax_inputs(v_c, o, U)
    with torch.no_grad():
        log_y_hat = (v_c @ U.T).log_softmax(dim=1)  # (B, V)
        rows = torch.arange(o.size(0), device=o.device)  # (B,)
        losses = -log_y_hat[rows, o]  # (B,)
        delta = log_y_hat.exp()  # (B, V)  ŷ
        delta[rows, o] -= 1  # (B, V)  ŷ - y
        if reduction == "mean":
            delta = delta / o.size(0)  # (B, V)
        grad_v_c = delta @ U  # (B, D)  row b: Uᵀ(ŷ_b - y_b)
        grad_U = delta.T @ v_c  # (V, D)  Σ_b (ŷ_b - y_b) v_cbᵀ
        return _reduce(losses, reduction), grad_v_c, grad_U


class _Word2Vec(nn.Module):
    """The two vector tables shared by skip-gram and CBOW (not used directly)."""

    def __init__(
        self,
        vocab_size: int,
        dim: int,
        *,
        device: Device = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        check_positive_int(vocab_size, "vocab_size")
        check_positive_int(dim, "dim")
        self.vocab_size, self.dim = vocab_size, dim
        # word2vec's own initialisation: centre vectors uniform in ±0.5/D, outside vectors 0
        V = torch.empty(vocab_size, dim, device=device, dtype=dtype)  # (V, D)
        self.V = nn.Parameter(V.uniform_(-0.5 / dim, 0.5 / dim))  # (V, D)
        self.U = nn.Parameter(torch.zeros_like(V))  # (V, D)

    def vectors(self, kind: str = "centre") -> Tensor:
        """The learned word vectors, (V, D), detached: v_w, u_w, v_w + u_w or their mean."""
        if kind == "centre":
            return self.V.detach().clone()  # (V, D)
        if kind == "outside":
            return self.U.detach().clone()  # (V, D)
        if kind == "sum":
            return (self.V + self.U).detach()  # (V, D)
        if kind == "mean":
            return ((self.V + self.U) / 2).detach()  # (V, D)
        raise ValueError(f"kind must be one of {VECTOR_KINDS}, got {kind!r}")

    def _check_ids(self, ids: Tensor, name: str, dims: int) -> None:
        if not isinstance(ids, Tensor) or ids.dim() != dims:
            raise ValueError(
                f"{name} must be a {dims}-D LongTensor, got {describe(ids)}"
            )
        if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= self.vocab_size):
            low, high = int(ids.min()), int(ids.max())
            raise ValueError(
                f"{name} must be in [0, {self.vocab_size}), got [{low}, {high}]"
            )


class SkipGram(_Word2Vec):
    r"""Skip-gram with the full softmax: predict each outside word o from the centre c. Chapter 1.

    Parameters ``V`` (centre vectors v_w) and ``U`` (outside vectors u_w), both (vocab_size, dim);
    V starts uniform in ±0.5/dim and U at zero, as in word2vec's C code (so at step 0 only U moves).
    """

    def _check_batch(
        self, centre: Tensor, outside: Tensor, mask: Tensor | None
    ) -> None:
        """Pairs (centre (B,), outside (B,), no mask) or windows (outside, mask (B, 2W))."""
        self._check_ids(centre, "centre", 1)
        if isinstance(outside, Tensor) and outside.dim() == 1 and mask is None:
            return  # pairs: naive_softmax_loss checks the outside ids
        self._check_ids(outside, "outside", 2)
        if mask is None or mask.shape != outside.shape or len(outside) != len(centre):
            raise ValueError(
                "windows need outside (B, 2W) and a bool mask of its shape, with B centres; "
                f"got centre {describe(centre)}, outside {describe(outside)}, "
                f"mask {describe(mask)}"
            )
        if not bool(mask.any()):
            raise ValueError("mask has no True entry: the windows hold no (c, o) pair")

    def logits(self, centre: Tensor) -> Tensor:
        """Scores u_wᵀ v_c for every word w: centre (B,) -> (B, V); softmax gives P(w | c)."""
        self._check_ids(centre, "centre", 1)
        return self.V[centre] @ self.U.T  # (B, D) @ (D, V) -> (B, V)

    def forward(
        self, centre: Tensor, outside: Tensor, mask: Tensor | None = None
    ) -> Tensor:
        r"""Mean of J = -log P(o | c) over the batch's (c, o) pairs -> scalar.

        centre (B,) with outside (B,): one pair each. Or outside (B, 2W) with mask
        (B, 2W), the windows of ``word_windows``: lecture 1's
        J(θ) = -(1/T) Σ_t Σ_{-m≤j≤m, j≠0} log P(w_{t+j} | w_t)
        sums over a window's outside words, which share the centre's softmax, so it
        is computed once a window; the mean is over the real pairs (mask True).
        """
        self._check_batch(centre, outside, mask)
        if mask is None:  # one (c, o) pair a row
            return naive_softmax_loss(self.V[centre], outside, self.U)
        log_y_hat = self.logits(centre).log_softmax(dim=1)  # (B, V) once per centre
        log_p = log_y_hat.gather(1, outside)  # (B, 2W)  log P(o_j | c)
        return -(log_p * mask).sum() / mask.sum()  # mean over the real pairs


class CBOW(_Word2Vec):
    r"""Continuous bag of words: predict the centre from its context's mean vector. Chapter 1.

    v̂ = (1/|ctx|) Σ_{j ∈ ctx} v_j (masked mean of the context words' ``V`` rows), then
    P(c | ctx) = softmax(U v̂)[c] (Mikolov et al., 2013, with word2vec's default mean). The context
    words use the ``V`` table, called "centre vectors" after skip-gram. Initialised as ``SkipGram``.
    """

    def context_vector(self, context: Tensor, mask: Tensor | None = None) -> Tensor:
        """v̂: context (B, 2W) ids and mask (B, 2W) bool (None = all real) -> (B, D)."""
        self._check_ids(context, "context", 2)
        if mask is None:
            mask = torch.ones_like(context, dtype=torch.bool)  # (B, 2W)
        if mask.shape != context.shape:
            want, got = tuple(context.shape), describe(mask)
            raise ValueError(f"mask must have the shape of context {want}, got {got}")
        m = mask.to(self.V.dtype)  # (B, 2W)
        summed = (self.V[context] * m[..., None]).sum(dim=1)  # (B, 2W, D) -> (B, D)
        return summed / m.sum(dim=1, keepdim=True).clamp_min(1)  # (B, D)

    def logits(self, context: Tensor, mask: Tensor | None = None) -> Tensor:
        """Scores u_wᵀ v̂ for every word w: (B, 2W) -> (B, V)."""
        return self.context_vector(context, mask) @ self.U.T  # (B, V)

    def forward(self, context: Tensor, mask: Tensor | None, centre: Tensor) -> Tensor:
        """Mean of J = -log P(c | context) over the batch -> scalar."""
        return naive_softmax_loss(self.context_vector(context, mask), centre, self.U)


def hand_sgd_step(
    model: SkipGram, centre: Tensor, outside: Tensor, lr: float
) -> Tensor:
    r"""One SGD step on the mean skip-gram loss with the hand-derived gradients. Chapter 1.

    v_c ← v_c - lr ∂J/∂v_c for each centre in the batch (repeats accumulate) and U ← U - lr ∂J/∂U:
    the same update as autograd + ``torch.optim.SGD``. centre, outside: (B,). Returns the loss
    before the step.
    """
    if not isinstance(model, SkipGram):
        raise TypeError(f"hand_sgd_step needs a SkipGram, got {type(model).__name__}")
    model._check_ids(centre, "centre", 1)
    with torch.no_grad():
        v_c = model.V[centre]  # (B, D)
        loss, grad_v_c, grad_U = naive_softmax_loss_and_gradient(v_c, outside, model.U)
        model.V.index_add_(0, centre, grad_v_c, alpha=-lr)  # (V, D)
        model.U.add_(grad_U, alpha=-lr)  # (V, D)
    return loss

r"""Hierarchical softmax over a Huffman tree (word2vec's ``hs=1``). Chapter 2.

CS224N lecture 2; Morin and Bengio (2005), "Hierarchical probabilistic neural network language
model"; Mikolov et al. (2013), "Distributed representations of words and phrases", §2.1. The V
words are the leaves of a binary tree with V - 1 inner nodes n, each with a vector u_n. A word w
is reached from the root by a path n_1 .. n_L(w) of left/right turns, its code d_1 .. d_L ∈ {0, 1},
and its probability given the centre vector v_c is the product of the turns' probabilities:

    P(w | c) = Π_{j=1..L(w)} σ(s_j u_{n_j}ᵀ v_c),   s_j = 1 - 2 d_j   (0: +1, 1: -1, as word2vec)

Since σ(x) + σ(-x) = 1 at every node, the probabilities of all leaves sum to 1 without a sum over
V: a prediction costs L(w) dot products instead of V. word2vec builds the tree with Huffman's
algorithm on the word counts, so frequent words get short codes and the average cost per token is
the entropy bound, about log2 V or less. With g_j = σ(u_{n_j}ᵀv_c) - 1 + d_j, J = -log P(w | c)
has ∂J/∂v_c = Σ_j g_j u_{n_j} and ∂J/∂u_{n_j} = g_j v_c.

Shape letters: B batch, V vocabulary (leaves), V - 1 inner nodes, L longest code, D width.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor

from course_lib.data.batching import length_mask, pad, pad_with_lengths
from course_lib.embeddings._common import Device, check_positive_int, describe
from course_lib.embeddings.word2vec import _reduce

__all__ = [
    "HuffmanTree",
    "SkipGramHS",
    "all_word_probabilities",
    "average_code_length",
    "hs_log_probability",
    "hs_loss",
    "hs_loss_and_gradient",
    "huffman_tree",
]


@dataclass(frozen=True)
class HuffmanTree:
    """A Huffman tree as padded tensors, one row per word (leaf).

    codes: (V, L) bits d_j from the root down (0 past the end); points: (V, L) the inner nodes
    n_j on the path (ids 0..V-2, root V-2; 0 past the end); lengths: (V,) code lengths L(w);
    mask: (V, L) True on a real step of the path.
    """

    codes: Tensor
    points: Tensor
    lengths: Tensor
    mask: Tensor

    @property
    def vocab_size(self) -> int:
        return self.codes.size(0)

    @property
    def n_inner(self) -> int:
        return self.vocab_size - 1

    def code(self, word_id: int) -> str:
        """The code of one word as a string of bits, e.g. ``"0110"``."""
        n = int(self.lengths[word_id])
        return "".join(str(int(b)) for b in self.codes[word_id, :n])

    def to(self, device: Device) -> HuffmanTree:
        return HuffmanTree(
            *(t.to(device) for t in (self.codes, self.points, self.lengths, self.mask))
        )


def huffman_tree(counts: Tensor, *, device: Device = None) -> HuffmanTree:
    r"""Huffman's tree over the words from their counts (word2vec's CreateBinaryTree). Chapter 2.

    Repeatedly merge the two least frequent nodes (ties: the earlier node first); of the two
    merged children the less frequent gets bit 0 and the other bit 1. Inner node k (0..V-2) is
    the k-th merge, so the root is V - 2. counts: (V,), V >= 2, non-negative.
    Returns a ``HuffmanTree`` whose codes are prefix-free, frequent words getting short codes.
    """
    counts = torch.as_tensor(counts)
    if counts.dim() != 1 or counts.numel() < 2:
        raise ValueError(
            f"counts must be 1-D with at least 2 words (a tree needs 2 leaves), got {describe(counts)}"
        )
    if float(counts.min()) < 0:
        raise ValueError(f"counts must be >= 0, got a minimum of {counts.min().item()}")
    V = counts.numel()
    heap = [
        (float(c), i, i) for i, c in enumerate(counts.tolist())
    ]  # (count, order, node)
    heapq.heapify(heap)
    parent, bit = [0] * (2 * V - 1), [0] * (2 * V - 1)
    for k in range(V - 1):
        c0, _, a = heapq.heappop(heap)
        c1, _, b = heapq.heappop(heap)
        node = V + k  # inner node k
        parent[a], parent[b], bit[b] = node, node, 1
        heapq.heappush(heap, (c0 + c1, V + k, node))
    paths = []
    for w in range(V):
        codes, points, node = [], [], w
        while node != 2 * V - 2:  # up to the root
            codes.append(bit[node])
            node = parent[node]
            points.append(node - V)
        paths.append((codes[::-1], points[::-1]))
    code_t, lengths = pad_with_lengths([c for c, _ in paths])  # (V, L), (V,)
    point_t = pad([p for _, p in paths])  # (V, L)
    mask = length_mask(lengths, code_t.size(1))  # (V, L)
    return HuffmanTree(code_t, point_t, lengths, mask).to(device)


def _check(
    v_c: Tensor, tree: HuffmanTree, U: Tensor, words: Tensor | None = None
) -> None:
    if not isinstance(v_c, Tensor) or v_c.dim() != 2:
        raise ValueError(f"v_c must be 2-D (B, D), got {describe(v_c)}")
    if not isinstance(U, Tensor) or U.shape != (tree.n_inner, v_c.size(1)):
        raise ValueError(
            f"U must hold the {tree.n_inner} inner nodes' vectors (V - 1, D) = "
            f"{(tree.n_inner, v_c.size(1))}, got {describe(U)}"
        )
    if words is not None:
        if not isinstance(words, Tensor) or words.shape != (v_c.size(0),):
            raise ValueError(
                f"o must be (B,) = ({v_c.size(0)},), got {describe(words)}"
            )
        if (
            words.numel()
            and not 0 <= int(words.min()) <= int(words.max()) < tree.vocab_size
        ):
            raise ValueError(f"o must be word ids in [0, V = {tree.vocab_size})")


def _path_scores(v_c: Tensor, o: Tensor, tree: HuffmanTree, U: Tensor):
    points, codes, mask = tree.points[o], tree.codes[o], tree.mask[o]  # (B, L) each
    x = torch.bmm(U[points], v_c[:, :, None]).squeeze(2)  # (B, L)  u_{n_j}ᵀ v_c
    return x, points, codes.to(v_c.dtype), mask.to(v_c.dtype)


def hs_log_probability(v_c: Tensor, o: Tensor, tree: HuffmanTree, U: Tensor) -> Tensor:
    r"""log P(o | c) = Σ_j log σ((1 - 2d_j) u_{n_j}ᵀ v_c) along o's path. Chapter 2.

    v_c: (B, D); o: (B,) word ids; U: (V - 1, D) inner node vectors. Returns (B,).
    """
    _check(v_c, tree, U, o)
    x, _, codes, mask = _path_scores(v_c, o, tree, U)  # (B, L) each
    return (F.logsigmoid((1 - 2 * codes) * x) * mask).sum(dim=1)  # (B,)


def hs_loss(
    v_c: Tensor, o: Tensor, tree: HuffmanTree, U: Tensor, *, reduction: str = "mean"
) -> Tensor:
    """J = -log P(o | c) with the hierarchical softmax, with autograd. Chapter 2."""
    return _reduce(-hs_log_probability(v_c, o, tree, U), reduction)


def hs_loss_and_gradient(
    v_c: Tensor, o: Tensor, tree: HuffmanTree, U: Tensor, *, reduction: str = "mean"
) -> tuple[Tensor, Tensor, Tensor]:
    r"""J = -log P(o | c) and its hand-derived gradients, without autograd. Chapter 2.

    With g_j = σ(u_{n_j}ᵀv_c) - 1 + d_j on o's path: ∂J/∂v_c = Σ_j g_j u_{n_j} and
    ∂J/∂u_{n_j} = g_j v_c. Returns the loss (scalar; (B,) for ``"none"``), grad_v_c (B, D) and
    grad_U (V - 1, D) summed over the batch, divided by B for ``"mean"`` (as Chapter 1's
    ``naive_softmax_loss_and_gradient``).
    """
    _check(v_c, tree, U, o)
    with torch.no_grad():
        x, points, codes, mask = _path_scores(v_c, o, tree, U)  # (B, L) each
        losses = -(F.logsigmoid((1 - 2 * codes) * x) * mask).sum(dim=1)  # (B,)
        g = (torch.sigmoid(x) - 1 + codes) * mask  # (B, L)  ∂J/∂x_j
        if reduction == "mean":
            g = g / v_c.size(0)  # (B, L)
        grad_v_c = torch.bmm(g[:, None, :], U[points]).squeeze(1)  # (B, D)
        grad_U = torch.zeros_like(U)  # (V - 1, D)
        grad_U.index_add_(
            0, points.reshape(-1), (g[:, :, None] * v_c[:, None, :]).flatten(0, 1)
        )
        return _reduce(losses, reduction), grad_v_c, grad_U


def all_word_probabilities(v_c: Tensor, tree: HuffmanTree, U: Tensor) -> Tensor:
    r"""P(w | c) for every word w, (B, D) -> (B, V); each row sums to 1 (up to rounding). Chapter 2.

    Every leaf's path product Π_j σ(s_j u_{n_j}ᵀ v_c): scores of all V - 1 inner nodes at once,
    then each word gathers those on its path.
    """
    _check(v_c, tree, U)
    x = v_c @ U.T  # (B, V - 1)  every inner node's score
    on_path = x[:, tree.points]  # (B, V, L)
    signs = (1 - 2 * tree.codes).to(v_c.dtype)  # (V, L)
    mask = tree.mask.to(v_c.dtype)  # (V, L)
    log_p = (F.logsigmoid(signs * on_path) * mask).sum(dim=2)  # (B, V)
    return log_p.exp()  # (B, V)


def average_code_length(tree: HuffmanTree, counts: Tensor | None = None) -> float:
    r"""Mean path length: dot products per prediction, against V for a full softmax. Chapter 2.

    With ``counts`` (V,), weighted by frequency (the cost per training token, Σ_w f(w) L(w),
    at most about log2 V and near the entropy of the unigram distribution); without, the
    plain mean over word types.
    """
    lengths = tree.lengths.double()  # (V,)
    if counts is None:
        return float(lengths.mean())
    counts = torch.as_tensor(counts, dtype=torch.float64, device=lengths.device)  # (V,)
    if counts.shape != lengths.shape or float(counts.sum()) <= 0:
        raise ValueError(
            f"counts must be ({tree.vocab_size},) with a positive sum, got {describe(counts)}"
        )
    return float((counts * lengths).sum() / counts.sum())


class SkipGramHS(nn.Module):
    r"""Skip-gram with the hierarchical softmax: P(o | c) along o's Huffman path. Chapter 2.

    Parameters ``V`` (word vectors v_w, (vocab_size, dim), uniform in ±0.5/dim) and ``U`` (inner
    node vectors u_n, (vocab_size - 1, dim), zeros), as word2vec initialises ``hs=1``; the tree
    (from ``huffman_tree(counts)``) is fixed and kept in buffers.
    """

    def __init__(
        self,
        tree: HuffmanTree,
        dim: int,
        *,
        device: Device = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        check_positive_int(dim, "dim")
        self.vocab_size, self.dim = tree.vocab_size, dim
        V = torch.empty(tree.vocab_size, dim, device=device, dtype=dtype)  # (V, D)
        self.V = nn.Parameter(V.uniform_(-0.5 / dim, 0.5 / dim))  # (V, D)
        self.U = nn.Parameter(
            torch.zeros(tree.n_inner, dim, device=device, dtype=dtype)
        )
        for name in ("codes", "points", "lengths", "mask"):
            self.register_buffer(name, getattr(tree, name).to(device))

    @property
    def tree(self) -> HuffmanTree:
        return HuffmanTree(self.codes, self.points, self.lengths, self.mask)

    def vectors(self) -> Tensor:
        """The word vectors v_w, (V, D), detached (the inner nodes' u_n are not words)."""
        return self.V.detach().clone()  # (V, D)

    def forward(self, centre: Tensor, outside: Tensor) -> Tensor:
        """Mean of J = -log P(o | c) over the batch: centre (B,), outside (B,) -> scalar."""
        if not isinstance(centre, Tensor) or centre.dim() != 1:
            raise ValueError(f"centre must be (B,), got {describe(centre)}")
        if (
            centre.numel()
            and not 0 <= int(centre.min()) <= int(centre.max()) < self.vocab_size
        ):
            raise ValueError(f"centre must be word ids in [0, {self.vocab_size})")
        return hs_loss(self.V[centre], outside, self.tree, self.U)

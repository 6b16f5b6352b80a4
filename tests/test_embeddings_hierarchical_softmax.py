"""Hierarchical softmax over a Huffman tree (Chapter 2)."""

import heapq
import math

import pytest
import torch

from course_lib.embeddings.hierarchical_softmax import (
    HuffmanTree,
    SkipGramHS,
    all_word_probabilities,
    average_code_length,
    hs_log_probability,
    hs_loss,
    hs_loss_and_gradient,
    huffman_tree,
)

COUNTS = torch.tensor([120.0, 60, 40, 30, 25, 10, 5, 5, 3, 1, 1])


def _codes(tree: HuffmanTree) -> list[str]:
    return [tree.code(w) for w in range(tree.vocab_size)]


def test_huffman_codes_are_prefix_free_and_optimal():
    tree = huffman_tree(COUNTS)
    codes = _codes(tree)
    assert tree.codes.shape == tree.points.shape == tree.mask.shape
    assert len(set(codes)) == len(codes)
    for a in codes:
        for b in codes:
            assert a == b or not b.startswith(a), (a, b)
    # Kraft equality: a full binary tree
    assert sum(2.0 ** -len(c) for c in codes) == pytest.approx(1.0)
    # optimal: Σ f L equals the sum of all merged weights (Huffman's cost)
    heap = COUNTS.tolist()
    heapq.heapify(heap)
    cost = 0.0
    while len(heap) > 1:
        merged = heapq.heappop(heap) + heapq.heappop(heap)
        cost += merged
        heapq.heappush(heap, merged)
    assert float((COUNTS * tree.lengths).sum()) == pytest.approx(cost)
    # frequent words never get longer codes than rarer ones
    order = COUNTS.argsort(descending=True)
    assert (tree.lengths[order].diff() >= 0).all()
    # paths start at the root V - 2 and visit inner nodes 0..V-2
    assert (tree.points[:, 0] == len(COUNTS) - 2).all()
    assert tree.points[tree.mask].max() == len(COUNTS) - 2 and tree.points.min() >= 0


def test_two_words_and_bad_counts():
    tree = huffman_tree(torch.tensor([5.0, 1.0]))
    assert sorted(_codes(tree)) == ["0", "1"] and tree.n_inner == 1
    with pytest.raises(ValueError, match="at least 2 words"):
        huffman_tree(torch.tensor([3.0]))
    with pytest.raises(ValueError, match=">= 0"):
        huffman_tree(torch.tensor([3.0, -1.0]))


def test_path_probabilities_sum_to_one_over_the_vocabulary():
    tree = huffman_tree(COUNTS)
    g = torch.Generator().manual_seed(0)
    v_c = torch.randn(4, 6, generator=g, dtype=torch.float64)
    U = torch.randn(tree.n_inner, 6, generator=g, dtype=torch.float64)
    probs = all_word_probabilities(v_c, tree, U)  # (4, V)
    assert probs.shape == (4, 11) and (probs > 0).all()
    torch.testing.assert_close(probs.sum(1), torch.ones(4, dtype=torch.float64))
    for w in range(11):
        log_p = hs_log_probability(v_c, torch.full((4,), w), tree, U)
        torch.testing.assert_close(log_p.exp(), probs[:, w], rtol=0, atol=1e-12)
    # by hand for one word: the product of σ(±u_n·v) along its path
    w = 9
    p = 1.0
    for d, n in zip(
        tree.codes[w, : tree.lengths[w]], tree.points[w, : tree.lengths[w]]
    ):
        p *= torch.sigmoid((1 - 2 * d) * (U[n] @ v_c[0])).item()
    assert probs[0, w].item() == pytest.approx(p, rel=1e-12)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_hs_gradients_match_autograd(reduction):
    tree = huffman_tree(COUNTS)
    g = torch.Generator().manual_seed(1)
    v_c = torch.randn(7, 5, generator=g, dtype=torch.float64, requires_grad=True)
    U = torch.randn(
        tree.n_inner, 5, generator=g, dtype=torch.float64, requires_grad=True
    )
    o = torch.tensor([0, 10, 3, 3, 9, 1, 6])
    loss, grad_v, grad_U = hs_loss_and_gradient(v_c, o, tree, U, reduction=reduction)
    ref = hs_loss(v_c, o, tree, U, reduction=reduction)
    torch.testing.assert_close(loss, ref.detach(), rtol=0, atol=1e-12)
    ref.sum().backward()
    torch.testing.assert_close(grad_v, v_c.grad, rtol=0, atol=1e-8)
    torch.testing.assert_close(grad_U, U.grad, rtol=0, atol=1e-8)


def test_average_code_length_against_log2_v():
    counts = torch.tensor([float(1000 // (r + 1)) for r in range(1000)])  # Zipf
    tree = huffman_tree(counts)
    per_token = average_code_length(tree, counts)
    p = counts / counts.sum()
    entropy = float(-(p * p.log2()).sum())
    assert entropy <= per_token < entropy + 1  # Huffman's bound
    assert per_token < math.log2(1000) < average_code_length(tree)  # vs types
    uniform = huffman_tree(torch.ones(1024))
    assert average_code_length(uniform) == 10.0
    with pytest.raises(ValueError, match=r"counts must be \(1000,\)"):
        average_code_length(tree, counts[:10])


def test_skipgram_hs_model_learns_and_checks_shapes():
    tree = huffman_tree(COUNTS)
    torch.manual_seed(0)
    model = SkipGramHS(tree, 8)
    assert (
        model.V.shape == (11, 8) and model.U.shape == (10, 8) and (model.U == 0).all()
    )
    c, o = torch.tensor([0, 1, 2, 3] * 4), torch.tensor([1, 0, 3, 2] * 4)
    opt = torch.optim.SGD(model.parameters(), lr=1.0)
    first = model(c, o).item()
    assert first == pytest.approx(
        float(tree.lengths[o].double().mean()) * math.log(2), rel=1e-6
    )  # U = 0: every turn is a coin flip
    for _ in range(50):
        opt.zero_grad()
        model(c, o).backward()
        opt.step()
    assert model(c, o).item() < first / 2
    assert model.vectors().shape == (11, 8)
    with pytest.raises(ValueError, match=r"U must hold the 10 inner nodes"):
        hs_loss(torch.zeros(2, 8), torch.tensor([0, 1]), tree, torch.zeros(11, 8))
    with pytest.raises(ValueError, match=r"o must be word ids in \[0, V = 11\)"):
        hs_loss(torch.zeros(1, 8), torch.tensor([11]), tree, torch.zeros(10, 8))
    with pytest.raises(ValueError, match=r"centre must be word ids"):
        model(torch.tensor([11]), torch.tensor([0]))

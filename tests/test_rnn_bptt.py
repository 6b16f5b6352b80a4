"""course_lib.rnn.bptt: the hand-written backward recursion for ∂L/∂W_h against autograd,
against the explicit sum of Jacobian products, and in the row form of RNNCell."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from course_lib.rnn.bptt import bptt_grad_W_h
from course_lib.rnn.rnn_cell import RNNCell


def _sequence(T=6, D=3, H=4, V=5, seed=0):
    """A tanh RNN over one sequence with a softmax output at every step."""
    gen = torch.Generator().manual_seed(seed)
    W_h = (torch.randn(H, H, generator=gen, dtype=torch.float64) * 0.7).requires_grad_()
    W_e = torch.randn(H, D, generator=gen, dtype=torch.float64)
    b = torch.randn(H, generator=gen, dtype=torch.float64) * 0.1
    U = torch.randn(V, H, generator=gen, dtype=torch.float64)
    xs = torch.randn(T, D, generator=gen, dtype=torch.float64)
    ys = torch.randint(V, (T,), generator=gen)
    h0 = torch.randn(H, generator=gen, dtype=torch.float64) * 0.5
    h, hs = h0, []
    for t in range(T):
        h = torch.tanh(W_h @ h + W_e @ xs[t] + b)  # (H,)
        hs.append(h)
    hs = torch.stack(hs)  # (T, H)
    loss = F.cross_entropy(hs @ U.T, ys, reduction="sum")  # Σ_t L_t
    # g_t = ∂L_t/∂h_t = Uᵀ (ŷ_t − y_t), the softmax-cross-entropy gradient
    direct = (torch.softmax(hs @ U.T, dim=1) - F.one_hot(ys, V)) @ U  # (T, H)
    return W_h, hs, h0, direct.detach(), loss


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bptt_matches_autograd(seed):
    W_h, hs, h0, direct, loss = _sequence(seed=seed)
    (expected,) = torch.autograd.grad(loss, W_h)
    got = bptt_grad_W_h(W_h.detach(), hs.detach(), h0, direct)
    torch.testing.assert_close(got, expected, rtol=1e-10, atol=1e-12)


def test_bptt_is_the_sum_of_jacobian_products():
    """Σ_t Σ_{k≤t} (g_tᵀ ∏_{j=k+1}^{t} diag(1 − h_j²) W_h) diag(1 − h_k²) ⊗ h_{k−1}."""
    W_h, hs, h0, direct, _ = _sequence(T=5, seed=3)
    W_h, hs = W_h.detach(), hs.detach()
    prev = torch.cat([h0[None], hs[:-1]])
    total = torch.zeros_like(W_h)
    for t in range(5):
        row = direct[t]  # (H,) ∂L_t/∂h_t, carried back to h_k
        for k in range(t, -1, -1):
            total += torch.outer(row * (1 - hs[k] ** 2), prev[k])
            row = ((1 - hs[k] ** 2)[:, None] * W_h).T @ row  # through ∂h_k/∂h_{k−1}
    torch.testing.assert_close(bptt_grad_W_h(W_h, hs, h0, direct), total)


def test_row_form_of_the_library_cell_is_the_transpose():
    torch.manual_seed(4)
    cell = RNNCell(3, 4, dtype=torch.float64)
    xs = torch.randn(6, 1, 3, dtype=torch.float64)
    h, hs = torch.zeros(1, 4, dtype=torch.float64), []
    for x in xs:
        h, _ = cell(x, (h,))
        hs.append(h[0])
    hs = torch.stack(hs)  # (T, H)
    target = torch.randn(6, 4, dtype=torch.float64)
    (0.5 * (hs - target).square().sum()).backward()
    got = bptt_grad_W_h(
        cell.W_hh.detach().T,
        hs.detach(),
        torch.zeros(4).double(),
        (hs - target).detach(),
    )
    torch.testing.assert_close(got.T, cell.W_hh.grad, rtol=1e-10, atol=1e-12)


def test_bad_shapes():
    W_h, hs, h0, direct, _ = _sequence()
    with pytest.raises(ValueError, match="W_h"):
        bptt_grad_W_h(W_h.detach()[:3], hs.detach(), h0, direct)
    with pytest.raises(ValueError, match="direct"):
        bptt_grad_W_h(W_h.detach(), hs.detach(), h0, direct[:-1])

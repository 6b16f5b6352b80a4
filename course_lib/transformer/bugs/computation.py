"""Six bugs that recur in from-scratch Transformers: they run, and compute the wrong thing.

Chapter 8, "Debugging a Transformer" (:mod:`course_lib.transformer.bugs`).
Shape legend: B batch, T / T_q / T_k lengths, D model width, H heads, d_k = D / H.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor, nn

from course_lib.runtime import run_seed
from course_lib.transformer.attention import scaled_dot_product_attention
from course_lib.transformer.bugs.bug import Bug
from course_lib.transformer.positional import sinusoidal_encoding

__all__ = ["COMPUTATION_BUGS"]


# 1. `if mask:` on a tensor ------------------------------------------------------------
def _mask_if(scores: Tensor, mask: Tensor | None) -> Tensor:
    if mask:  # BUG: the truth value of a many-element tensor is ambiguous
        scores = scores.masked_fill(~mask, float("-inf"))
    return scores.softmax(-1)


def _mask_is_none(scores: Tensor, mask: Tensor | None) -> Tensor:
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return scores.softmax(-1)


def _check_mask(fn: Callable) -> None:
    scores = torch.zeros(2, 3, 3)
    w = fn(scores, torch.ones(3, 3, dtype=torch.bool).tril())
    assert torch.allclose(w[0, 0], torch.tensor([1.0, 0.0, 0.0]))


# 2. nn.Softmax(scores, dim=-1) ---------------------------------------------------------
def _softmax_module(scores: Tensor) -> Tensor:
    # BUG: this builds a module (and fails); it applies nothing
    return nn.Softmax(scores, dim=-1)


def _softmax_applied(scores: Tensor) -> Tensor:
    return nn.Softmax(dim=-1)(scores)  # or scores.softmax(dim=-1)


def _check_softmax(fn: Callable) -> None:
    w = fn(torch.randn(2, 4, 5))
    assert isinstance(w, Tensor), f"expected a tensor, got {type(w).__name__}"
    assert torch.allclose(w.sum(-1), torch.ones(2, 4))


# 3. keys and values reshaped with the query's length ------------------------------------
def _split_with_query_length(q: Tensor, k: Tensor, v: Tensor, n_heads: int) -> Tensor:
    B, T_q, D = q.shape
    d_k = D // n_heads
    q = q.view(B, T_q, n_heads, d_k).transpose(1, 2)  # (B, H, T_q, d_k)
    k = k.view(B, T_q, n_heads, d_k).transpose(1, 2)  # BUG: T_q where T_k belongs
    v = v.view(B, T_q, n_heads, d_k).transpose(1, 2)  # BUG: same
    out, _ = scaled_dot_product_attention(q, k, v)  # (B, H, T_q, d_k)
    return out.transpose(1, 2).reshape(B, T_q, D)  # (B, T_q, D)


def _split_with_own_length(q: Tensor, k: Tensor, v: Tensor, n_heads: int) -> Tensor:
    B, T_q, D = q.shape
    d_k = D // n_heads
    q = q.view(B, T_q, n_heads, d_k).transpose(1, 2)  # (B, H, T_q, d_k)
    k = k.view(B, k.size(1), n_heads, d_k).transpose(1, 2)  # (B, H, T_k, d_k)
    v = v.view(B, v.size(1), n_heads, d_k).transpose(1, 2)  # (B, H, T_k, d_k)
    out, _ = scaled_dot_product_attention(q, k, v)  # (B, H, T_q, d_k)
    return out.transpose(1, 2).reshape(B, T_q, D)  # (B, T_q, D)


def _check_cross_lengths(fn: Callable) -> None:
    q, k, v = torch.randn(2, 3, 8), torch.randn(2, 5, 8), torch.randn(2, 5, 8)
    assert fn(q, k, v, 2).shape == (2, 3, 8)  # T_q = 3 queries, T_k = 5 keys


# 4. decoder layers whose outputs are never passed on --------------------------------------
def _stack_dropped(layers: nn.ModuleList, x: Tensor) -> Tensor:
    for layer in layers:
        out = layer(x)  # BUG: every layer sees x; only the last one's output survives
    return out


def _stack_chained(layers: nn.ModuleList, x: Tensor) -> Tensor:
    for layer in layers:
        x = layer(x)  # each layer feeds the next
    return x


def _check_stack(fn: Callable) -> None:
    torch.manual_seed(run_seed(0))
    layers = nn.ModuleList(nn.Linear(4, 4) for _ in range(3))
    fn(layers, torch.randn(2, 4)).sum().backward()
    dead = [i for i, layer in enumerate(layers) if layer.weight.grad is None]
    assert not dead, f"layers {dead} get no gradient: their output is never used"


# 5. a positional encoding indexed for (T, B, D) in a batch-first model -------------------
def _pe_time_first(x: Tensor) -> Tensor:
    pe = sinusoidal_encoding(64, x.size(-1))  # (T_max, D)
    return x + pe[: x.size(0)].unsqueeze(1)  # BUG: indexes by x.size(0) = B, not T


def _pe_batch_first(x: Tensor) -> Tensor:
    pe = sinusoidal_encoding(64, x.size(-1))  # (T_max, D)
    return x + pe[: x.size(1)].unsqueeze(0)  # (B, T, D)


def _check_positions(fn: Callable) -> None:
    out = fn(torch.zeros(3, 5, 8))  # B = 3 sentences of T = 5 tokens
    assert not torch.allclose(out[0, 0], out[0, 1]), "all positions got the same vector"
    assert torch.allclose(out[0], out[1]), (
        "sentences in a batch got different positions"
    )


# 6. a LayerNorm created and never used -------------------------------------------------
class _Block(nn.Module):
    def __init__(self, d_model: int, use_norm: bool) -> None:
        super().__init__()
        self.ff = nn.Linear(d_model, d_model)
        self.norm = nn.LayerNorm(d_model)
        self.use_norm = use_norm

    def forward(self, x: Tensor) -> Tensor:
        y = x + self.ff(x)  # (B, T, D)
        return self.norm(y) if self.use_norm else y  # BUG when use_norm is False


def _block_without_norm(d_model: int) -> nn.Module:
    return _Block(d_model, use_norm=False)


def _block_with_norm(d_model: int) -> nn.Module:
    return _Block(d_model, use_norm=True)


def _check_unused(fn: Callable) -> None:
    torch.manual_seed(run_seed(0))
    block = fn(8)
    block(torch.randn(2, 3, 8) * 5).sum().backward()
    unused = [n for n, p in block.named_parameters() if p.grad is None]
    assert not unused, f"parameters never used in forward: {unused}"


COMPUTATION_BUGS = [
    Bug(
        "if mask:",
        "RuntimeError: Boolean value of Tensor with more than one value "
        "is ambiguous (or, with a one-element mask, masking silently skipped)",
        _mask_if,
        _mask_is_none,
        _check_mask,
    ),
    Bug(
        "nn.Softmax(scores, dim=-1)",
        "TypeError when the module is built (or a Module "
        "where a tensor of weights was expected)",
        _softmax_module,
        _softmax_applied,
        _check_softmax,
    ),
    Bug(
        "keys reshaped with T_q",
        "works in self-attention; cross-attention fails with a "
        "view error as soon as source and target lengths differ",
        _split_with_query_length,
        _split_with_own_length,
        _check_cross_lengths,
    ),
    Bug(
        "layer outputs dropped",
        "trains, but only the last layer learns: a deep model "
        "as good as a one-layer one",
        _stack_dropped,
        _stack_chained,
        _check_stack,
    ),
    Bug(
        "PE indexed as (T, B, D)",
        "sentence b gets PE(b) at every position: word order "
        "is invisible, and results change with the batch",
        _pe_time_first,
        _pe_batch_first,
        _check_positions,
    ),
    Bug(
        "LayerNorm never used",
        "no error; activations grow layer after layer and the "
        "norm's parameters never get a gradient",
        _block_without_norm,
        _block_with_norm,
        _check_unused,
    ),
]

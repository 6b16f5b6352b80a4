"""Recurring bugs of from-scratch Transformers, each with its symptom and the check that catches it.

Chapter 8, "Debugging a Transformer". Each :class:`Bug` holds a small buggy function, the
fixed one with the same signature, the symptom to expect, and a ``check`` that raises
``AssertionError`` (or the bug's own error) on the buggy version and passes on the fixed
one. The notebook runs them; ``tests/test_transformer_bugs.py`` runs them too.
``BUGS`` are bugs of the computation; ``SETUP_BUGS`` are the ones that stop lecture-note
code before it computes anything (names never defined or misspelt, a model built without
its arguments, a hard-coded ``.cuda()``): each raises, and the check shows which error.

Shape legend: B batch, T / T_q / T_k lengths, D model width, H heads, d_k = D / H.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from course_lib.runtime import run_seed
from course_lib.transformer.attention import (
    MultiHeadAttention,
    scaled_dot_product_attention,
)
from course_lib.transformer.layers import EncoderLayer
from course_lib.transformer.model import Transformer, TransformerConfig
from course_lib.transformer.positional import (
    SinusoidalPositionalEncoding,
    sinusoidal_encoding,
)

__all__ = ["BUGS", "SETUP_BUGS", "Bug", "run_check"]


@dataclass(frozen=True)
class Bug:
    """A bug: name, symptom, the buggy and fixed functions, and the check that tells them apart."""

    name: str
    symptom: str
    buggy: Callable
    fixed: Callable
    check: Callable[[Callable], None]


def run_check(bug: Bug, which: str) -> str:
    """Run ``bug.check`` on ``bug.buggy`` or ``bug.fixed``; return "pass" or the failure."""
    try:
        bug.check(bug.buggy if which == "buggy" else bug.fixed)
    except (AssertionError, NameError, RuntimeError, TypeError, ValueError) as err:
        return f"caught: {type(err).__name__}: {str(err).splitlines()[0][:90]}"
    return "pass"


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


BUGS = [
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


# 7. layer and head counts never defined ---------------------------------------------------
def _encoder_undefined_sizes(
    d_model: int, n_layers: int, n_heads: int
) -> nn.ModuleList:
    # BUG: the notes' code uses num_layers and num_heads, which nothing defines
    return nn.ModuleList(
        EncoderLayer(d_model, num_heads, 4 * d_model)  # noqa: F821
        for _ in range(num_layers)  # noqa: F821
    )


def _encoder_sizes_passed(d_model: int, n_layers: int, n_heads: int) -> nn.ModuleList:
    return nn.ModuleList(
        EncoderLayer(d_model, n_heads, 4 * d_model) for _ in range(n_layers)
    )


def _check_sizes_defined(fn: Callable) -> None:
    encoder = fn(16, 2, 4)
    assert len(encoder) == 2 and encoder[0].self_attn.n_heads == 4


# 8. a positional class called by another name ----------------------------------------------
def _embed_misnamed(d_model: int) -> nn.Module:
    # BUG: the class is defined as SinusoidalPositionalEncoding, used as PositionEncoding
    return nn.Sequential(nn.Embedding(10, d_model), PositionEncoding(d_model))  # noqa: F821


def _embed_named(d_model: int) -> nn.Module:
    return nn.Sequential(
        nn.Embedding(10, d_model), SinusoidalPositionalEncoding(d_model)
    )


def _check_embed(fn: Callable) -> None:
    assert fn(8)(torch.tensor([[1, 2, 3]])).shape == (1, 3, 8)


# 9. a mask argument misspelt in one branch -------------------------------------------------
class _OneBranchLayer(nn.Module):
    def __init__(self, d_model: int, norm_first: bool) -> None:
        super().__init__()
        self.attn = MultiHeadAttention(d_model, 2)
        self.norm = nn.LayerNorm(d_model)
        self.norm_first = norm_first


class _MisspeltLayer(_OneBranchLayer):
    def forward(self, x: Tensor, mask: Tensor | None = None) -> Tensor:
        if self.norm_first:
            a, _, _ = self.attn(self.norm(x), mask=mask)  # (B, T, D)
            return x + a
        a, _, _ = self.attn(x, maks=mask)  # BUG: only the post-LN branch has the typo
        return self.norm(x + a)


class _SpeltLayer(_OneBranchLayer):
    def forward(self, x: Tensor, mask: Tensor | None = None) -> Tensor:
        if self.norm_first:
            a, _, _ = self.attn(self.norm(x), mask=mask)  # (B, T, D)
            return x + a
        a, _, _ = self.attn(x, mask=mask)  # (B, T, D)
        return self.norm(x + a)


def _check_both_branches(fn: Callable) -> None:
    x, mask = torch.randn(2, 4, 8), torch.ones(4, 4, dtype=torch.bool).tril()
    for norm_first in (True, False):  # a test of one branch misses the typo
        assert fn(8, norm_first)(x, mask=mask).shape == (2, 4, 8)


# 10. a model built without its arguments ----------------------------------------------------
def _model_without_arguments(src_vocab: int, tgt_vocab: int) -> nn.Module:
    return Transformer()  # BUG: the sizes are never passed


def _model_with_config(src_vocab: int, tgt_vocab: int) -> nn.Module:
    config = TransformerConfig(
        src_vocab,
        tgt_vocab,
        d_model=16,
        n_heads=2,
        d_ff=32,
        n_encoder_layers=1,
        n_decoder_layers=1,
    )
    return Transformer(config)


def _check_built(fn: Callable) -> None:
    assert fn(20, 30).generator.out_features == 30


# 11. a hard-coded .cuda() -------------------------------------------------------------------
def _causal_mask_cuda(x: Tensor) -> Tensor:
    T = x.size(1)
    return torch.ones(T, T, dtype=torch.bool).tril().cuda()  # BUG: fails without CUDA


def _causal_mask_on_device(x: Tensor) -> Tensor:
    T = x.size(1)
    return torch.ones(T, T, dtype=torch.bool, device=x.device).tril()  # (T, T)


def _check_device(fn: Callable) -> None:
    x = torch.zeros(2, 5, 8)  # a CPU input, on any machine
    mask = fn(x)
    assert mask.device == x.device, f"mask on {mask.device}, input on {x.device}"
    assert mask.shape == (5, 5)


SETUP_BUGS = [
    Bug(
        "layer and head counts never defined",
        "NameError: name 'num_layers' is not defined (or, in a notebook, whatever "
        "value an earlier cell left under that name is used)",
        _encoder_undefined_sizes,
        _encoder_sizes_passed,
        _check_sizes_defined,
    ),
    Bug(
        "positional class called by another name",
        "NameError: name 'PositionEncoding' is not defined, when the model is built",
        _embed_misnamed,
        _embed_named,
        _check_embed,
    ),
    Bug(
        "mask argument misspelt in one branch",
        "TypeError: unexpected keyword argument 'maks', only when the branch with "
        "the typo runs (post-LN here); tests of the other branch pass",
        _MisspeltLayer,
        _SpeltLayer,
        _check_both_branches,
    ),
    Bug(
        "model built without its arguments",
        "TypeError: Transformer.__init__() missing 1 required positional argument",
        _model_without_arguments,
        _model_with_config,
        _check_built,
    ),
    Bug(
        "hard-coded .cuda()",
        "on a machine without CUDA: 'Torch not compiled with CUDA enabled'; with "
        "CUDA and a CPU input: tensors on two devices",
        _causal_mask_cuda,
        _causal_mask_on_device,
        _check_device,
    ),
]

"""Five bugs that stop lecture-note Transformer code before it computes anything.

Chapter 8, "Debugging a Transformer" (:mod:`course_lib.transformer.bugs`): names never
defined or misspelt, a model built without its arguments, a hard-coded ``.cuda()``. Each
buggy version raises; its check shows which error.
Shape legend: B batch, T length, D model width.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor, nn

from course_lib.transformer.attention import MultiHeadAttention
from course_lib.transformer.bugs.bug import Bug
from course_lib.transformer.layers import EncoderLayer
from course_lib.transformer.model import Transformer, TransformerConfig
from course_lib.transformer.positional import SinusoidalPositionalEncoding

__all__ = ["SETUP_BUGS"]


# 1. layer and head counts never defined ---------------------------------------------------
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


# 2. a positional class called by another name ----------------------------------------------
def _embed_misnamed(d_model: int) -> nn.Module:
    # BUG: the class is defined as SinusoidalPositionalEncoding, used as PositionEncoding
    return nn.Sequential(nn.Embedding(10, d_model), PositionEncoding(d_model))  # noqa: F821


def _embed_named(d_model: int) -> nn.Module:
    return nn.Sequential(
        nn.Embedding(10, d_model), SinusoidalPositionalEncoding(d_model)
    )


def _check_embed(fn: Callable) -> None:
    assert fn(8)(torch.tensor([[1, 2, 3]])).shape == (1, 3, 8)


# 3. a mask argument misspelt in one branch -------------------------------------------------
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


# 4. a model built without its arguments ----------------------------------------------------
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


# 5. a hard-coded .cuda() -------------------------------------------------------------------
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

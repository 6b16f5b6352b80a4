"""Table 1 of Vaswani et al. (2017): costs, the convolution layer, measured paths (Chapter 8)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from course_lib.rnn.stacked import RecurrentNet
from course_lib.transformer.attention import MultiHeadAttention
from course_lib.transformer.complexity import (
    ConvLayer,
    conv_path_length,
    layer_costs,
    seconds_per_forward,
    steps_and_reach,
)


def test_layer_costs_leading_terms():
    c = layer_costs(100, 64, k=3)
    assert c["self-attention"] == {"cost": 100 * 100 * 64, "sequential": 1, "path": 1}
    assert (
        c["recurrent"]["cost"] == 100 * 64 * 64 and c["recurrent"]["sequential"] == 100
    )
    assert c["convolutional"]["cost"] == 3 * 100 * 64 * 64
    assert (
        layer_costs(64, 64)["self-attention"]["cost"]
        == layer_costs(64, 64)["recurrent"]["cost"]
    )  # equal at n = d
    with pytest.raises(ValueError, match="odd k"):
        layer_costs(10, 4, k=4)


def test_conv_layer_equals_conv1d_batch_first():
    torch.manual_seed(0)
    layer = ConvLayer(6, 5).double()
    x = torch.randn(2, 9, 6, dtype=torch.float64)
    y, none = layer(x)
    ref = F.conv1d(x.transpose(1, 2), layer.conv.weight, layer.conv.bias, padding=2)
    assert none is None and y.shape == (2, 9, 6)
    assert torch.allclose(y, ref.transpose(1, 2), atol=1e-12)
    with pytest.raises(ValueError, match="odd"):
        ConvLayer(4, 2)


@pytest.mark.parametrize("n, k", [(2, 3), (9, 3), (16, 5), (13, 7)])
def test_measured_path_equals_formula(n, k):
    assert conv_path_length(n, k) == layer_costs(n, 4, k)["convolutional"]["path"]


def test_seconds_per_forward_is_positive_and_checks_arguments():
    layer = ConvLayer(4)
    assert seconds_per_forward(layer, torch.randn(1, 8, 4), repeats=2) > 0
    with pytest.raises(ValueError, match="repeats"):
        seconds_per_forward(layer, torch.randn(1, 8, 4), repeats=0)


def test_steps_and_reach_counts_sequential_steps_and_one_layer_paths():
    torch.manual_seed(0)
    T, D = 7, 8
    x = torch.randn(2, T, D, requires_grad=True)
    attn = MultiHeadAttention(D, 2).eval()
    rnn = RecurrentNet("rnn", D, D)
    conv = ConvLayer(D, 3)
    assert steps_and_reach(attn, attn.W_qkv, x) == (1, True)
    assert steps_and_reach(rnn, rnn.cells[0], x) == (T, True)
    assert steps_and_reach(conv, conv.conv, x) == (1, False)  # a kernel of 3 sees ±1
    assert not conv.conv._forward_hooks  # the hook is removed

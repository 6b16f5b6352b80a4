"""Residual and FFN ablations: the switchable layer equals EncoderLayer when nothing is
switched off, and the experiment runs (Chapter 8)."""

from __future__ import annotations

import pytest
import torch

from course_lib.transformer import EncoderLayer, Transformer, TransformerConfig
from course_lib.transformer.ablation import (
    AblationLayer,
    ablation_experiment,
    head_ablation,
)


def test_full_ablation_layer_equals_pre_ln_encoder_layer():
    torch.manual_seed(0)
    ours = AblationLayer(8, 2, 16).double()
    ref = EncoderLayer(8, 2, 16, dropout=0.0, norm_first=True).double()
    ours.load_state_dict(ref.state_dict(), strict=False)
    missing = set(ref.state_dict()) - set(ours.state_dict())
    assert not missing, missing
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    assert torch.allclose(ours(x)[0], ref(x)[0], atol=1e-12)


def test_switches():
    torch.manual_seed(0)
    x = torch.randn(1, 3, 8)
    no_ffn = AblationLayer(8, 2, 16, ffn=False)
    assert not hasattr(no_ffn, "ffn")
    plain = AblationLayer(8, 2, 16, residual=False, ffn=False)
    plain.load_state_dict(no_ffn.state_dict())
    a, _, _ = no_ffn.self_attn(no_ffn.norm1(x))
    assert torch.allclose(no_ffn(x)[0], x + a) and torch.allclose(plain(x)[0], a)


def test_experiment_returns_losses_and_sizes():
    res = ablation_experiment(n_layers=2, d_model=16, steps=3, batch_size=4)
    small = ablation_experiment(
        n_layers=2, d_model=16, steps=3, batch_size=4, ffn=False
    )
    assert len(res["loss"]) == 3 and small["n_params"] < res["n_params"]
    with pytest.raises(ValueError, match="n_layers"):
        ablation_experiment(n_layers=0)


def test_head_ablation_removes_each_head_once_and_matches_zeroing_its_w_o_columns():
    torch.manual_seed(0)

    model = Transformer(
        TransformerConfig(20, 20, d_model=8, n_heads=2, d_ff=16, dropout=0.1)
    ).double()
    model.train()
    src = torch.randint(4, 20, (3, 5))
    tgt = torch.cat([torch.full((3, 1), 2), torch.randint(4, 20, (3, 4))], dim=1)

    def loss():
        return model.loss(src, tgt)

    base, costs = head_ablation(model, loss)
    assert model.training  # the mode is restored
    expected = [f"encoder.{i}.self_attn" for i in range(3)] + [
        f"decoder.{i}.{kind}" for i in range(3) for kind in ("self_attn", "cross_attn")
    ]
    assert sorted(costs) == sorted(expected)
    assert all(c.shape == (2,) for c in costs.values())
    model.eval()
    assert abs(base - loss().item()) < 1e-12
    assert all(m.head_mask is None for m in model.modules() if hasattr(m, "head_mask"))
    name, h = "decoder.0.cross_attn", 1
    mha = model.get_submodule(name)
    d_k = mha.d_k
    with torch.no_grad():  # remove head h through W_O instead: zero its d_k columns
        mha.W_o.weight[:, h * d_k : (h + 1) * d_k] = 0.0
    assert abs(costs[name][h].item() - (loss().item() - base)) < 1e-6

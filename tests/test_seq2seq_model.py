"""Seq2Seq's construction: every parameter on the device asked for (Chapter 7)."""

from __future__ import annotations

import pytest
import torch

from course_lib.seq2seq import Seq2Seq, Seq2SeqConfig


@pytest.mark.parametrize("attention", [None, "multiplicative", "additive"])
def test_seq2seq_takes_a_device(attention):
    cfg = Seq2SeqConfig(9, 6, d_emb=4, d_hidden=4, attention=attention, d_attn=3)
    model = Seq2Seq(cfg, device="meta")
    assert {p.device.type for p in model.parameters()} == {"meta"}
    torch.manual_seed(0)
    a, b = Seq2Seq(cfg), Seq2Seq(cfg, device="cpu")
    assert a.state_dict().keys() == b.state_dict().keys()

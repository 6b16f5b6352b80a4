"""The BERT-style encoder and its classification head (Chapter 9)."""

from __future__ import annotations

import pytest
import torch

from course_lib.pretraining import Encoder, EncoderConfig, SequenceClassifier


def _encoder(**kw):
    torch.manual_seed(0)
    cfg = dict(vocab_size=30, d_model=16, n_heads=4, d_ff=32, n_layers=2, max_len=12)
    cfg.update(dropout=0.0, **kw)
    return Encoder(EncoderConfig(**cfg)).double().eval()


def test_padding_changes_nothing_and_attention_is_bidirectional():
    enc = _encoder()
    x = torch.tensor([[1, 5, 6, 7]])
    padded = torch.tensor([[1, 5, 6, 7, 0, 0]])
    a, _ = enc(x)
    b, _ = enc(padded)
    torch.testing.assert_close(a, b[:, :4], rtol=1e-10, atol=1e-12)
    later = torch.tensor([[1, 5, 6, 8]])
    assert not torch.allclose(enc(later)[0][:, 0], a[:, 0])  # position 0 sees the end


def test_classifier_shapes_loss_and_errors():
    clf = SequenceClassifier(_encoder(), 2).double()
    x = torch.randint(1, 30, (5, 7))
    assert clf(x).shape == (5, 2)
    loss = clf.loss(x, torch.tensor([0, 1, 0, 1, 1]))
    assert loss.dim() == 0 and loss.item() > 0
    with pytest.raises(ValueError, match="n_classes"):
        SequenceClassifier(_encoder(), 1)
    with pytest.raises(ValueError, match="max_len"):
        clf(torch.ones(1, 13, dtype=torch.long))
    with pytest.raises(ValueError, match="labels"):
        _encoder().mlm_loss(x, x[:, :3])

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


def test_the_encoder_sees_word_order_from_its_first_step():
    """Positions start as sinusoids at the scale of the √D-scaled tokens: at std 0.02 they
    were 50 times weaker, and an untrained encoder read a shuffled sentence almost as the
    sentence itself (a bag of words)."""
    from course_lib.transformer.positional import sinusoidal_encoding

    torch.manual_seed(0)
    cfg = EncoderConfig(
        vocab_size=60,
        d_model=32,
        n_heads=4,
        d_ff=64,
        n_layers=1,
        max_len=12,
        dropout=0.0,
    )
    enc = Encoder(cfg).eval()
    assert torch.equal(enc.pos.table.weight, sinusoidal_encoding(12, 32))
    tokens = torch.randint(4, 60, (8, 12))
    order = torch.randperm(12)
    with torch.no_grad():
        h, _ = enc(tokens)
        h_shuffled, _ = enc(tokens[:, order])
    # the same tokens in another order: each token's state moves by a sizeable share
    moved = (h[:, order] - h_shuffled).norm(dim=-1) / h.norm(dim=-1)[:, order]
    assert moved.mean() > 0.3


def test_mean_pooling_reads_the_mean_of_the_real_tokens_and_ignores_padding():
    clf = SequenceClassifier(_encoder(), 2, pooling="mean").double().eval()
    x = torch.tensor([[1, 5, 6, 7, 0, 0], [1, 9, 8, 7, 6, 5]])
    hidden, _ = clf.encoder(x)
    by_hand = torch.stack([hidden[0, :4].mean(0), hidden[1].mean(0)])  # (B, D)
    torch.testing.assert_close(clf(x), clf.head(by_hand), rtol=1e-10, atol=1e-12)
    # more padding changes nothing
    torch.testing.assert_close(clf(x[:1, :4]), clf(x[:1]), rtol=1e-10, atol=1e-12)
    cls = SequenceClassifier(clf.encoder, 2).double().eval()
    cls.head.load_state_dict(clf.head.state_dict())
    torch.testing.assert_close(cls(x), cls.head(hidden[:, 0]), rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="pooling must be one of"):
        SequenceClassifier(_encoder(), 2, pooling="max")

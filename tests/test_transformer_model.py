"""The encoder-decoder Transformer: masks, loss, KV cache, decoding (Chapter 8)."""

from __future__ import annotations

import pytest
import torch

from course_lib.transformer import Transformer, TransformerConfig
from course_lib.transformer.masks import decoder_mask, padding_mask

BOS, EOS = 2, 3


def _model(**kw):
    torch.manual_seed(0)
    cfg = dict(
        src_vocab=20,
        tgt_vocab=23,
        d_model=16,
        n_heads=4,
        d_ff=32,
        n_encoder_layers=2,
        n_decoder_layers=2,
        dropout=0.0,
    )
    cfg.update(kw)
    return Transformer(TransformerConfig(**cfg)).double().eval()


def _src():
    g = torch.Generator().manual_seed(1)
    src = torch.randint(4, 20, (3, 7), generator=g)
    src[1, 5:] = 0
    src[2, 3:] = 0
    return src


@pytest.mark.parametrize("norm_first", [True, False])
def test_source_padding_changes_nothing(norm_first):
    model = _model(norm_first=norm_first)
    src = torch.tensor([[5, 6, 7]])
    tgt = torch.tensor([[BOS, 8, 9, 10]])
    longer = torch.tensor([[5, 6, 7, 0, 0, 0]])
    torch.testing.assert_close(
        model(src, tgt), model(longer, tgt), rtol=1e-10, atol=1e-12
    )


def test_decoder_cannot_see_the_future():
    model = _model()
    src = _src()
    tgt = torch.tensor([[BOS, 5, 6, 7, 8]] * 3)
    other = tgt.clone()
    other[:, 3:] = 9
    a, b = model(src, tgt), model(src, other)
    torch.testing.assert_close(a[:, :3], b[:, :3], rtol=1e-10, atol=1e-12)
    assert not torch.allclose(a[:, 3:], b[:, 3:])


def test_loss_is_cross_entropy_over_flattened_logits_ignoring_padding():
    model = _model(label_smoothing=0.0)
    src = _src()
    tgt = torch.tensor([[BOS, 5, 6, EOS], [BOS, 7, EOS, 0], [BOS, EOS, 0, 0]])
    logits = model(src, tgt[:, :-1])
    assert logits.shape == (3, 3, 23)
    gold = tgt[:, 1:]
    logp = logits.log_softmax(-1).gather(-1, gold[..., None])[..., 0]
    expected = -(logp * (gold != 0)).sum() / (gold != 0).sum()
    torch.testing.assert_close(model.loss(src, tgt), expected)


def test_kv_cache_logits_equal_full_decoding():
    model = _model()
    src = _src()
    enc = model.encode(src)
    tgt = torch.tensor([[BOS, 5, 6, 7, 8, 9]] * 3)
    full, _, _ = model.decode(tgt, enc)
    cache, steps = None, []
    for t in range(tgt.size(1)):
        logits, _, cache = model.decode(tgt[:, t : t + 1], enc, cache=cache)
        steps.append(logits)
    torch.testing.assert_close(torch.cat(steps, 1), full, rtol=1e-10, atol=1e-12)
    assert cache[0]["self"][0].shape == (3, 4, 6, 4)
    assert cache[0]["cross"][0].shape == (3, 4, 7, 4)


def test_decoding_step_is_the_last_row_of_full_decoding_without_pad_or_bos():
    model = _model()
    src = _src()
    tgt = torch.tensor([[BOS, 5, 6, 7]] * 3)
    full, _, _ = model.decode(tgt, model.encode(src))
    for use_cache in (True, False):
        state = model.start(src, use_cache=use_cache)
        for t in range(tgt.size(1)):
            log_p, state = model.step(tgt[:, t], state)
        want = full[:, -1].clone()
        want[:, [0, BOS]] = float("-inf")
        torch.testing.assert_close(log_p, want.log_softmax(-1), rtol=1e-9, atol=1e-9)
        assert state.prefix.tolist() == tgt.tolist()
        assert (state.cache is not None) == use_cache
    picked = model.reorder(state, torch.tensor([2, 2]))
    assert picked.enc.memory.shape[0] == 2 and picked.prefix.shape == (2, 4)


def test_attention_maps_shapes_and_rows_sum_to_one():
    model = _model()
    src = _src()
    tgt = torch.tensor([[BOS, 5, 6, 7]] * 3)
    maps = model.attention(src, tgt)
    assert maps["encoder"].shape == (2, 3, 4, 7, 7)
    assert maps["decoder"].shape == (2, 3, 4, 4, 4)
    assert maps["cross"].shape == (2, 3, 4, 4, 7)
    for w in maps.values():
        torch.testing.assert_close(w.sum(-1), torch.ones_like(w.sum(-1)))
    assert (maps["cross"][:, 2, :, :, 3:] == 0).all()  # padding of sentence 2


def test_fast_model_equals_teaching_model():
    model = _model()
    src, tgt = _src(), torch.tensor([[BOS, 5, 6, 7]] * 3)
    torch.testing.assert_close(model(src, tgt, fast=True), model(src, tgt, fast=False))


def test_masks():
    tokens = torch.tensor([[4, 5, 0]])
    assert padding_mask(tokens, 0).tolist() == [[[[True, True, False]]]]
    assert decoder_mask(tokens, 0)[0, 0].tolist() == [
        [True, False, False],
        [True, True, False],
        [True, True, False],
    ]
    with pytest.raises(TypeError, match="integer ids"):
        padding_mask(tokens.float(), 0)


def test_bad_inputs():
    with pytest.raises(ValueError, match="divisible"):
        TransformerConfig(10, 10, d_model=30, n_heads=4)
    with pytest.raises(ValueError, match="positional"):
        TransformerConfig(10, 10, positional="rotary")
    model = _model(positional="learned", max_len=8)
    with pytest.raises(ValueError, match="max_len=8"):
        model(torch.randint(4, 20, (1, 9)), torch.tensor([[BOS, 5]]))
    with pytest.raises(ValueError, match="empty"):
        model(torch.zeros(0, 5, dtype=torch.long), torch.zeros(0, 3, dtype=torch.long))
    with pytest.raises(TypeError, match="integer ids"):
        model(torch.rand(1, 5), torch.tensor([[BOS, 5]]))
    with pytest.raises(ValueError, match=r"T >= 2"):  # nothing to predict after <bos>
        model.loss(torch.randint(4, 20, (1, 5)), torch.tensor([[BOS]]))


@pytest.mark.parametrize("training", [True, False])
def test_attention_maps_restore_the_mode(training):
    model = _model(dropout=0.1).train(training)
    model.attention(_src(), torch.tensor([[BOS, 5]] * 3))
    assert all(m.training == training for m in model.modules())

"""BERT's masking: 15 % selected, 80/10/10, specials never selected (Chapter 9)."""

from __future__ import annotations

import math

import pytest
import torch

from course_lib.pretraining import IGNORE, Encoder, EncoderConfig, mask_tokens

V, MASK, SPECIALS = 100, 3, (0, 1, 2, 3)


def _sample(B=400, T=250):
    g = torch.Generator().manual_seed(0)
    tokens = torch.randint(4, V, (B, T), generator=g)
    tokens[:, 0], tokens[:, -1] = 1, 2  # [CLS] ... [SEP]
    tokens[::3, -20:] = 0  # padding
    return tokens, mask_tokens(
        tokens, vocab_size=V, mask_id=MASK, special_ids=SPECIALS, generator=g
    )


def _within_3_se(count, n, p):
    se = math.sqrt(p * (1 - p) / n)
    return abs(count / n - p) < 3 * se


def test_shares_within_three_standard_errors():
    tokens, out = _sample()
    ordinary = ~torch.isin(tokens, torch.tensor(SPECIALS))
    n, s = int(ordinary.sum()), int(out.selected.sum())
    assert _within_3_se(s, n, 0.15)
    assert _within_3_se(int(out.masked.sum()), s, 0.8)
    assert _within_3_se(int(out.randomised.sum()), s, 0.1)
    unchanged = out.selected & ~out.masked & ~out.randomised
    assert _within_3_se(int(unchanged.sum()), s, 0.1)


def test_specials_never_selected_and_labels_ignored_elsewhere():
    tokens, out = _sample()
    special = torch.isin(tokens, torch.tensor(SPECIALS))
    assert not (out.selected & special).any()
    assert (out.labels[~out.selected] == IGNORE).all()
    assert torch.equal(out.labels[out.selected], tokens[out.selected])
    assert (out.inputs[out.masked] == MASK).all()
    assert not torch.isin(out.inputs[out.randomised], torch.tensor(SPECIALS)).any()
    assert torch.equal(out.inputs[~out.selected], tokens[~out.selected])
    unchanged = out.selected & ~out.masked & ~out.randomised
    assert torch.equal(out.inputs[unchanged], tokens[unchanged])


def test_input_not_modified_and_errors():
    tokens = torch.randint(4, V, (2, 10))
    copy = tokens.clone()
    mask_tokens(tokens, vocab_size=V, mask_id=MASK, special_ids=SPECIALS)
    assert torch.equal(tokens, copy)
    with pytest.raises(ValueError, match="mask_id"):
        mask_tokens(tokens, vocab_size=V, mask_id=V, special_ids=SPECIALS)
    with pytest.raises(ValueError, match="<= 1"):
        mask_tokens(
            tokens,
            vocab_size=V,
            mask_id=MASK,
            special_ids=SPECIALS,
            mask_prob=0.95,
            random_prob=0.1,
        )
    with pytest.raises(TypeError):
        mask_tokens(tokens.float(), vocab_size=V, mask_id=MASK, special_ids=SPECIALS)


def test_mlm_loss_counts_selected_positions_only():
    torch.manual_seed(0)
    enc = (
        Encoder(
            EncoderConfig(
                vocab_size=V, d_model=16, n_heads=2, d_ff=32, n_layers=1, dropout=0.0
            )
        )
        .double()
        .eval()
    )
    tokens, _ = _sample(4, 12)
    out = mask_tokens(
        tokens,
        vocab_size=V,
        mask_id=MASK,
        special_ids=SPECIALS,
        select_prob=0.5,
        generator=torch.Generator().manual_seed(1),
    )
    hidden, _ = enc(out.inputs)
    lp = enc.mlm_logits(hidden).log_softmax(-1)
    sel = out.selected
    expected = -lp[sel].gather(1, tokens[sel][:, None]).mean()
    torch.testing.assert_close(enc.mlm_loss(out.inputs, out.labels), expected)


def test_the_exercise_rule_is_mask_tokens_on_its_own_draws():
    """course_lib.exercises.ch09.bert_corrupt, given the uniform draws and replacements
    mask_tokens makes (in its order: selection, action, replacement), gives its output."""
    from course_lib.exercises.ch09 import bert_corrupt

    tokens = torch.randint(0, V, (8, 50), generator=torch.Generator().manual_seed(2))
    out = mask_tokens(
        tokens,
        vocab_size=V,
        mask_id=MASK,
        special_ids=(),
        generator=torch.Generator().manual_seed(3),
    )
    g = torch.Generator().manual_seed(3)
    u, r = torch.rand(tokens.shape, generator=g), torch.rand(tokens.shape, generator=g)
    replacement = torch.randint(0, V, tokens.shape, generator=g)  # candidates: all ids
    inputs, labels = bert_corrupt(tokens, u, r, replacement, MASK)
    assert out.selected.any() and out.randomised.any()
    assert torch.equal(inputs, out.inputs) and torch.equal(labels, out.labels)

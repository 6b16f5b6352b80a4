"""T5's span-corruption objective: batches that rebuild the blocks, torch's cross-entropy."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from course_lib.pretraining import (
    noise_counts,
    rebuild,
    span_batch,
    span_corrupt,
    span_corruption_objective,
)
from course_lib.transformer import Transformer, TransformerConfig

PAD, EOS, BOS = 0, 1, 2
V = 40
SENTINELS = [V, V + 1, V + 2, V + 3]


def _blocks(B=6, L=64, seed=0):  # 10 noise tokens in 3 spans
    return torch.randint(4, V, (B, L), generator=torch.Generator().manual_seed(seed))


def test_span_batch_frames_each_rows_corruption():
    blocks = _blocks()
    src, tgt = span_batch(
        blocks,
        SENTINELS,
        bos_id=BOS,
        eos_id=EOS,
        pad_id=PAD,
        generator=torch.Generator().manual_seed(3),
    )
    g = torch.Generator().manual_seed(3)  # the same draws, row after row
    noise, spans = noise_counts(blocks.size(1))
    assert src.shape == (6, 64 - noise + spans + 1)  # one length: no padding
    assert tgt.shape == (6, noise + spans + 2)
    for row, s, t in zip(blocks, src, tgt, strict=True):
        inputs, targets = span_corrupt(row, SENTINELS, generator=g)
        assert s.tolist() == inputs + [EOS]
        assert t.tolist() == [BOS] + targets + [EOS]
        assert rebuild(s[:-1].tolist(), t[1:-1].tolist(), SENTINELS) == row.tolist()


def test_span_batch_rejects_a_flat_tensor():
    with pytest.raises(ValueError, match="blocks must be"):
        span_batch(torch.arange(10), SENTINELS, bos_id=BOS, eos_id=EOS, pad_id=PAD)


def test_span_batch_rejects_an_empty_batch():
    with pytest.raises(ValueError, match="B >= 1"):
        span_batch(
            torch.zeros(0, 8, dtype=torch.long),
            SENTINELS,
            bos_id=BOS,
            eos_id=EOS,
            pad_id=PAD,
        )


def test_span_batch_gives_int64_ids_whatever_the_blocks_dtype():
    frame = dict(bos_id=BOS, eos_id=EOS, pad_id=PAD)
    blocks = _blocks()
    src, tgt = span_batch(
        blocks, SENTINELS, generator=torch.Generator().manual_seed(3), **frame
    )
    src32, tgt32 = span_batch(
        blocks.int(), SENTINELS, generator=torch.Generator().manual_seed(3), **frame
    )
    assert src32.dtype == tgt32.dtype == torch.long  # what cross_entropy takes
    assert torch.equal(src32, src) and torch.equal(tgt32, tgt)


def _model():
    torch.manual_seed(0)
    cfg = TransformerConfig(
        V + len(SENTINELS),
        V + len(SENTINELS),
        d_model=16,
        n_heads=2,
        d_ff=32,
        n_encoder_layers=1,
        n_decoder_layers=1,
        dropout=0.0,
        label_smoothing=0.0,
        pad_id=PAD,
        bos_id=BOS,
        eos_id=EOS,
    )
    return Transformer(cfg)


def test_objective_is_cross_entropy_of_the_hidden_spans():
    model, blocks = _model(), _blocks()
    objective = span_corruption_objective(
        sentinel_ids=SENTINELS, bos_id=BOS, eos_id=EOS, pad_id=PAD
    )
    torch.manual_seed(7)
    loss = objective(model, blocks)
    torch.manual_seed(7)  # the objective seeds its corruption from the global RNG
    seed = int(torch.randint(0, 2**62, (1,)))
    src, tgt = span_batch(
        blocks,
        SENTINELS,
        bos_id=BOS,
        eos_id=EOS,
        pad_id=PAD,
        generator=torch.Generator().manual_seed(seed),
    )
    logits = model(src, tgt[:, :-1])  # (B, T - 1, V)
    expected = F.cross_entropy(logits.transpose(1, 2), tgt[:, 1:])
    torch.testing.assert_close(loss, expected)
    # a fresh corruption each call
    assert not torch.equal(objective(model, blocks), loss)


def test_objective_trains_a_model_to_fill_spans():
    # rows that count up from a random start: a hidden span follows from its neighbours
    start = torch.randint(0, V - 4, (16, 1), generator=torch.Generator().manual_seed(1))
    blocks = 4 + (start + torch.arange(64)) % (V - 4)  # (16, 64)
    model = _model()
    objective = span_corruption_objective(
        sentinel_ids=SENTINELS, bos_id=BOS, eos_id=EOS, pad_id=PAD
    )
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    torch.manual_seed(0)
    losses = []
    for _ in range(80):
        loss = objective(model, blocks)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert sum(losses[-10:]) / 10 < 0.4 * losses[0]


def test_objective_names_a_wrong_option_at_once():
    with pytest.raises(TypeError, match="eos"):
        span_corruption_objective(
            sentinel_ids=SENTINELS, bos_id=BOS, eos=EOS, pad_id=PAD
        )

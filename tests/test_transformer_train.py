"""Batches, the warm-up schedule, a tiny training run and the depth experiment (Chapter 8)."""

from __future__ import annotations

import pytest
import torch

from course_lib.seq2seq.translation import (
    BOS,
    EOS,
    PAD,
    build_vocab,
    make_batches,
    tokenize,
    translate,
)
from course_lib.transformer import Transformer, TransformerConfig
from course_lib.transformer.train import (
    noam_lambda,
    stack_experiment,
    train_translation,
)


def test_tokenize_and_vocab_specials():
    assert tokenize("Go, Tom!") == ["go", ",", "tom", "!"]
    vocab = build_vocab([["a", "b"], ["a"]])
    assert vocab.tokens[:4] == ("<pad>", "<unk>", "<bos>", "<eos>")
    assert (PAD, BOS, EOS) == (0, 2, 3)


def test_make_batches_pads_and_keeps_every_pair():
    vocab = build_vocab([["a", "b", "c"]])
    src = [["a"] * n for n in range(1, 8)]
    tgt = [["b"] * (n + 1) for n in range(1, 8)]
    epoch = make_batches(src, tgt, vocab, vocab, 3, seed=0)
    first, second = epoch(), epoch()
    assert sum(b[0].size(0) for b in first) == 7
    assert sorted(b[1].tolist() for b in first) == sorted(b[1].tolist() for b in second)
    for s, lens, t in first:
        assert s.dtype == torch.long and (t[:, 0] == BOS).all()
        assert (t == EOS).sum() == t.size(0) and (s[:, : int(lens.min())] != PAD).all()
    with pytest.raises(ValueError, match="need as many targets as sources"):
        make_batches([], [], vocab, vocab, 3)
    with pytest.raises(ValueError, match="batch_size"):
        make_batches(src, tgt, vocab, vocab, 0)


def test_noam_schedule_peaks_at_warmup():
    f = noam_lambda(100)
    values = [f(s) for s in range(1, 400)]
    assert max(range(len(values)), key=values.__getitem__) == 99
    assert f(100) == 1.0 and f(400) == 0.5


def test_tiny_model_learns_to_copy():
    torch.manual_seed(0)
    words = [str(i) for i in range(8)]
    vocab = build_vocab([words])
    g = torch.Generator().manual_seed(0)
    seqs = [
        [words[i] for i in torch.randint(0, 8, (4,), generator=g)] for _ in range(64)
    ]
    model = Transformer(
        TransformerConfig(
            len(vocab),
            len(vocab),
            d_model=32,
            n_heads=2,
            d_ff=64,
            n_encoder_layers=1,
            n_decoder_layers=1,
            dropout=0.0,
            label_smoothing=0.0,
        )
    )
    hist = train_translation(
        model,
        make_batches(seqs, seqs, vocab, vocab, 16),
        epochs=25,
        lr=3e-3,
        warmup=20,
        progress=False,
    )
    assert hist.train_loss[-1] < 0.5 * hist.train_loss[0]
    out = translate(model, seqs[:8], vocab, vocab)
    assert sum(o == s for o, s in zip(out, seqs[:8], strict=True)) >= 6
    assert translate(model, seqs[:8], vocab, vocab, beam_size=3) == out


def test_stack_experiment_records_each_step_and_layer():
    result = stack_experiment(norm_first=True, n_layers=3, d_model=16, steps=5)
    assert len(result["loss"]) == len(result["grad_norm"]) == 5
    assert len(result["layer_grad"]) == 3

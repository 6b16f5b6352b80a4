"""The encoder-decoder and its decoders: shapes, masks, beam = greedy at K=1, scores equal
log-probabilities, batched = one at a time, exhaustive search on a tiny vocabulary."""

from __future__ import annotations

import itertools
import math

import pytest
import torch

from course_lib.data import Vocab
from course_lib.seq2seq import (
    Seq2Seq,
    Seq2SeqConfig,
    beam_error_analysis,
    beam_search,
    greedy_decode,
    sequence_log_prob,
    summarise_errors,
)
from course_lib.seq2seq.train import SPECIALS, encode_batch, seq2seq_loss

V_SRC, V_TGT, EOS = 9, 6, 3


def _model(attention="additive", seed=0, eos_bias=0.3):
    torch.manual_seed(seed)
    cfg = Seq2SeqConfig(
        V_SRC, V_TGT, d_emb=5, d_hidden=7, attention=attention, d_attn=4, dropout=0.0
    )
    model = Seq2Seq(cfg).double().eval()
    with torch.no_grad():
        model.out.bias[EOS] += (
            eos_bias  # some hypotheses end early, some run to max_len
        )
        model.out.weight.mul_(3)  # peakier distributions: outputs differ by source
    return model


def _batch(seed=0, n=6):
    g = torch.Generator().manual_seed(seed)
    lens = torch.randint(1, 8, (n,), generator=g)
    src = torch.randint(4, V_SRC, (n, int(lens.max())), generator=g)
    src[torch.arange(src.size(1))[None, :] >= lens[:, None]] = 0
    return src, lens


@pytest.mark.parametrize("attention", ["additive", "multiplicative", "low_rank", None])
def test_forward_shapes_and_attention_rows(attention):
    model = _model(attention)
    src, lens = _batch()
    tgt_in = torch.randint(0, V_TGT, (src.size(0), 4))
    logits, w = model(src, lens, tgt_in)
    assert logits.shape == (6, 4, V_TGT)
    if attention is None:
        assert w is None
        return
    assert w.shape == (6, 4, src.size(1))
    torch.testing.assert_close(w.sum(-1), torch.ones(6, 4, dtype=torch.float64))
    pad = torch.arange(src.size(1))[None, :] >= lens[:, None]  # (B, S)
    assert (w[pad[:, None, :].expand_as(w)] == 0).all()


def test_padding_does_not_change_a_sentence():
    model = _model()
    src, lens = _batch()
    tgt_in = torch.randint(0, V_TGT, (src.size(0), 4))
    logits, _ = model(src, lens, tgt_in)
    for b in range(src.size(0)):
        alone, _ = model(src[b : b + 1, : lens[b]], lens[b : b + 1], tgt_in[b : b + 1])
        torch.testing.assert_close(alone[0], logits[b])


@pytest.mark.parametrize("attention", ["additive", None])
@pytest.mark.parametrize("eos_bias", [0.0, 0.3, 0.6])  # none, some, all finish early
def test_beam_of_one_is_greedy(attention, eos_bias):
    model = _model(attention, eos_bias=eos_bias)
    src, lens = _batch(1, 10)
    greedy = greedy_decode(model, src, lens, max_len=6)
    beam = beam_search(model, src, lens, beam_size=1, max_len=6, alpha=0.0)
    for g, (b,) in zip(greedy, beam, strict=True):
        assert g.tokens == b.tokens and g.finished == b.finished
        assert g.log_prob == pytest.approx(b.log_prob, abs=1e-10)
        if attention:
            torch.testing.assert_close(g.attention, b.attention)


@pytest.mark.parametrize("alpha", [0.0, 0.7, 1.0])
def test_every_returned_score_is_the_normalised_log_probability(alpha):
    model = _model()
    src, lens = _batch(2, 8)
    nbest = beam_search(model, src, lens, beam_size=4, max_len=5, alpha=alpha, n_best=4)
    for b, hyps in enumerate(nbest):
        assert len(hyps) == 4
        assert [h.score for h in hyps] == sorted((h.score for h in hyps), reverse=True)
        lp = sequence_log_prob(
            model, src[[b] * 4], lens[[b] * 4], [h.tokens for h in hyps],
            finished=[h.finished for h in hyps],
        )  # fmt: skip
        for h, want in zip(hyps, lp.tolist(), strict=True):
            assert h.log_prob == pytest.approx(want, abs=1e-9)
            assert h.score == pytest.approx(want / h.length**alpha, abs=1e-9)
            assert h.attention.shape == (h.length, int(lens[b]))
            torch.testing.assert_close(
                h.attention.sum(-1), torch.ones(h.length, dtype=torch.float64)
            )


def test_batched_beam_search_equals_one_sentence_at_a_time():
    model = _model()
    src, lens = _batch(3, 12)
    batched = beam_search(model, src, lens, beam_size=3, max_len=7, n_best=3)
    for b in range(src.size(0)):
        alone = beam_search(
            model, src[b : b + 1, : lens[b]], lens[b : b + 1], 3, 7, n_best=3
        )[0]
        assert [h.tokens for h in alone] == [h.tokens for h in batched[b]]
        for x, y in zip(alone, batched[b], strict=True):
            assert x.score == pytest.approx(y.score, abs=1e-10)


def test_a_wide_beam_finds_the_exhaustive_argmax():
    """V = 6 target symbols, max_len 3: 5^0 + 5^1 + 5^2 finished and 5^3 unfinished outputs."""
    model = _model(eos_bias=0.0)
    src, lens = _batch(4, 3)
    non_eos = [v for v in range(V_TGT) if v != EOS]
    outputs = [
        (list(s), True) for t in range(3) for s in itertools.product(non_eos, repeat=t)
    ]
    outputs += [(list(s), False) for s in itertools.product(non_eos, repeat=3)]
    alpha = 0.7
    best = beam_search(model, src, lens, beam_size=len(outputs), max_len=3, alpha=alpha)
    for b in range(src.size(0)):
        lp = sequence_log_prob(
            model, src[[b] * len(outputs)], lens[[b] * len(outputs)],
            [o for o, _ in outputs], finished=[f for _, f in outputs],
        )  # fmt: skip
        scores = [
            p / (len(o) + f) ** alpha
            for p, (o, f) in zip(lp.tolist(), outputs, strict=True)
        ]
        k = max(range(len(outputs)), key=scores.__getitem__)
        assert best[b][0].tokens == outputs[k][0]
        assert best[b][0].score == pytest.approx(scores[k], abs=1e-9)
    assert math.isclose(
        sum(lp.exp().tolist()), 1.0, abs_tol=1e-9
    )  # every output: P sums to 1


def test_error_analysis_blames_consistently():
    model = _model()
    src, lens = _batch(5, 10)
    vocab_src = Vocab([*SPECIALS, *[f"s{i}" for i in range(V_SRC - 4)]], unk="<unk>")
    vocab_tgt = Vocab([*SPECIALS, "a", "b"], unk="<unk>")
    sources = [vocab_src.decode(src[b, : lens[b]].tolist()) for b in range(10)]
    refs = [[["a", "b"]], [["b"], ["a"]], [["a"]], [["a", "a", "b"]]] * 2 + [
        [["b", "b"]],
        [["a"]],
    ]
    rows, n = beam_error_analysis(
        model, sources, refs, vocab_src, vocab_tgt, beam_size=2, max_len=5
    )
    assert n == 10 and len(rows) >= 1
    for r in rows:
        assert r.blame == ("search" if r.score_reference > r.score_output else "model")
        b = sources.index(r.source)
        assert r.output not in refs[b]
        ids = [vocab_tgt.encode(x) for x in refs[b]]
        lp = sequence_log_prob(model, src[[b] * len(ids)], lens[[b] * len(ids)], ids)
        scores = [
            p / (len(x) + 1) ** 0.7 for p, x in zip(lp.tolist(), ids, strict=True)
        ]
        assert r.score_reference == pytest.approx(max(scores), abs=1e-9)
    s = summarise_errors(rows)
    assert s["search"] + s["model"] == s["wrong"] == len(rows)


def test_loss_ignores_padding_and_bad_input_is_rejected():
    model = _model()
    v_src = Vocab([*SPECIALS, "x", "y"], unk="<unk>")
    v_tgt = Vocab([*SPECIALS, "a", "b"], unk="<unk>")
    batch = encode_batch(
        [["x"], ["x", "y", "y"]], [["a"], ["a", "b", "b"]], v_src, v_tgt
    )
    assert batch[2].tolist() == [[2, 4, 3, 0, 0], [2, 4, 5, 5, 3]]
    assert seq2seq_loss(model, batch).dim() == 0
    src, lens = _batch()
    with pytest.raises(ValueError, match="empty"):
        encode_batch([[]], None, v_src)
    with pytest.raises(ValueError, match="at least one token"):
        model.encode(src, torch.zeros_like(lens))
    with pytest.raises(ValueError, match="empty source sentence"):
        beam_search(model, src, torch.zeros_like(lens))
    with pytest.raises(ValueError, match="max_len must be a positive int"):
        beam_search(model, src, lens, max_len=0)
    with pytest.raises(ValueError, match="max_len must be a positive int"):
        greedy_decode(model, src, lens, max_len=0)
    with pytest.raises(ValueError, match="beam_size must be an int >= 1"):
        beam_search(model, src, lens, beam_size=0)
    with pytest.raises(ValueError, match="n_best must be"):
        beam_search(model, src, lens, beam_size=2, n_best=3)
    with pytest.raises(TypeError, match="Seq2SeqConfig"):
        Seq2Seq({"src_vocab_size": 3})

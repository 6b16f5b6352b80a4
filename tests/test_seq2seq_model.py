"""The encoder-decoder: shapes, masks, padding, beam scores equal to teacher-forced
log-probabilities, the error analysis, bad input (the decoders are in test_decoding.py)."""

from __future__ import annotations

import pytest
import torch

from course_lib.data import Vocab
from course_lib.seq2seq import (
    Seq2Seq,
    Seq2SeqConfig,
    attention_entropy,
    beam_error_analysis,
    seq2seq_loss,
    sequence_log_prob,
    summarise_errors,
    teacher_forced,
    token_log_probs,
)
from course_lib.seq2seq.translation import (
    SPECIALS,
    encode_batch,
    translate,
    translate_ids,
)

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


@pytest.mark.parametrize("alpha", [0.0, 0.7, 1.0])
def test_beam_scores_are_the_teacher_forced_log_probabilities(alpha):
    model = _model()
    src, lens = _batch(2, 8)
    nbest = translate_ids(
        model, src, lens, beam_size=4, n_best=4, max_len=5, alpha=alpha
    )
    for b, hyps in enumerate(nbest):
        assert len(hyps) == 4
        assert [h.score for h in hyps] == sorted((h.score for h in hyps), reverse=True)
        lp, maps = teacher_forced(
            model,
            src[[b] * 4],
            lens[[b] * 4],
            [h.tokens for h in hyps],
            finished=[h.finished for h in hyps],
        )
        for h, want, a in zip(hyps, lp.tolist(), maps, strict=True):
            assert h.log_prob == pytest.approx(want, abs=1e-9)
            assert h.score == pytest.approx(want / h.length**alpha, abs=1e-9)
            assert a.shape == (h.length, int(lens[b]))
            torch.testing.assert_close(
                a.sum(-1), torch.ones(h.length, dtype=torch.float64)
            )
    assert model.training is False
    model.train()
    translate_ids(model, src, lens, max_len=5)
    assert model.training  # translate_ids restored the mode


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
    with pytest.raises(ValueError, match="at least one token"):
        translate_ids(model, src, torch.zeros_like(lens), beam_size=2)
    with pytest.raises(ValueError, match="source sentence 1 is empty"):
        translate(model, [["x"], []], v_src, v_tgt)
    with pytest.raises(TypeError, match="source 0 is a string"):
        translate(model, ["x y"], v_src, v_tgt)
    with pytest.raises(ValueError, match="max_len must be a positive int"):
        translate_ids(model, src, lens, beam_size=3, max_len=0)
    with pytest.raises(TypeError, match="Seq2SeqConfig"):
        Seq2Seq({"src_vocab_size": 3})


@pytest.mark.parametrize("attention", [None, "multiplicative", "additive"])
def test_seq2seq_takes_a_device(attention):
    cfg = Seq2SeqConfig(9, 6, d_emb=4, d_hidden=4, attention=attention, d_attn=3)
    model = Seq2Seq(cfg, device="meta")
    assert {p.device.type for p in model.parameters()} == {"meta"}
    torch.manual_seed(0)
    a, b = Seq2Seq(cfg), Seq2Seq(cfg, device="cpu")
    assert a.state_dict().keys() == b.state_dict().keys()


def test_every_scorer_trains_in_the_model_with_a_narrower_encoder():
    """d_encoder = d_hidden / 2 makes h_i as wide as s: the dot score fits, and all four
    scorers share every other weight's shape (the chapter trains them side by side)."""
    src, lens = _batch()
    tgt = torch.randint(0, V_TGT, (src.size(0), 5))
    shapes = {}
    for kind in ["dot", "multiplicative", "low_rank", "additive"]:
        torch.manual_seed(0)
        cfg = Seq2SeqConfig(
            V_SRC, V_TGT, d_emb=5, d_hidden=8, d_encoder=4, attention=kind, d_attn=3
        )
        model = Seq2Seq(cfg).double()
        logits, w = model(src, lens, tgt[:, :-1])
        assert logits.shape == (6, 4, V_TGT) and w.shape == (6, 4, src.size(1))
        torch.testing.assert_close(w.sum(-1), torch.ones(6, 4, dtype=torch.float64))
        loss = seq2seq_loss(model, (src, lens, tgt))
        loss.backward()
        assert all(p.grad is not None for p in model.parameters() if p.dim() > 1)
        shapes[kind] = {
            n: p.shape
            for n, p in model.named_parameters()
            if not n.startswith("scorer")
        }
        n_scorer = sum(p.numel() for p in model.scorer.parameters())
        want = {
            "dot": 0,
            "multiplicative": 8 * 8,
            "low_rank": 3 * 16,
            "additive": 3 * 17,
        }
        assert n_scorer == want[kind]
    assert len({tuple(s.items()) for s in shapes.values()}) == 1


def test_d_encoder_defaults_to_d_hidden_and_bad_values_are_rejected():
    torch.manual_seed(0)
    a = Seq2Seq(Seq2SeqConfig(9, 6, d_emb=4, d_hidden=6))
    torch.manual_seed(0)
    b = Seq2Seq(Seq2SeqConfig(9, 6, d_emb=4, d_hidden=6, d_encoder=6))
    for (n, p), (_, q) in zip(a.named_parameters(), b.named_parameters(), strict=True):
        torch.testing.assert_close(p, q, msg=n)
    assert a.encoder.hidden_size == 6
    with pytest.raises(ValueError, match="d_encoder must be a positive int"):
        Seq2Seq(Seq2SeqConfig(9, 6, d_encoder=0))
    with pytest.raises(ValueError, match="d_query == d_key"):
        Seq2Seq(Seq2SeqConfig(9, 6, d_hidden=8, attention="dot"))


def test_token_log_probs_are_the_decoder_steps_and_sum_to_log_p():
    """Each term equals model.step's log-probability of that token (the decoding
    protocol, one step at a time); the terms sum to sequence_log_prob."""
    model = _model()
    src, lens = _batch(3, 3)
    targets, finished = [[4, 5, 4], [5], [4, 4, 5, 5]], [True, False, True]
    terms = token_log_probs(model, src, lens, targets, finished=finished)
    total = sequence_log_prob(model, src, lens, targets, finished=finished)
    for b, (t, f) in enumerate(zip(targets, finished, strict=True)):
        assert terms[b].shape == (len(t) + int(f),)
        assert float(terms[b].sum()) == pytest.approx(float(total[b]), abs=1e-12)
        state = model.start(src[b : b + 1], lens[b : b + 1])
        y, want = torch.tensor([2]), []
        for token in [*t, EOS] if f else t:
            with torch.no_grad():
                log_p, state = model.step(y, state)  # (1, V)
            want.append(float(log_p[0, token]))
            y = torch.tensor([token])
        torch.testing.assert_close(terms[b], torch.tensor(want, dtype=torch.float64))
    with pytest.raises(ValueError, match="one target per source"):
        token_log_probs(model, src, lens, targets[:2])


@pytest.mark.parametrize("attention", ["additive", "dot"])
def test_attention_entropy_is_each_rows_categorical_entropy_over_log_s(attention):
    torch.manual_seed(1)
    cfg = Seq2SeqConfig(
        V_SRC, V_TGT, d_emb=5, d_hidden=6, d_encoder=3, attention=attention, d_attn=4
    )
    model = Seq2Seq(cfg).double()
    src, lens = _batch(seed=3, n=8)
    lens[0] = 1  # a one-token source: log S = 0, left out
    g = torch.Generator().manual_seed(4)
    ys = [
        torch.randint(4, V_TGT, (int(n),), generator=g).tolist() for n in lens % 4 + 1
    ]
    tgt = torch.full((len(ys), max(map(len, ys)) + 2), cfg.pad_id)
    for b, y in enumerate(ys):  # <bos> y <eos>, then padding
        tgt[b, : len(y) + 2] = torch.tensor([cfg.bos_id, *y, cfg.eos_id])
    _, maps = teacher_forced(model, src, lens, ys)  # (T_b, S_b) each
    rows = [
        torch.distributions.Categorical(probs=row).entropy() / torch.log(s.double())
        for m, s in zip(maps, lens)
        if s > 1
        for row in m
    ]
    want = float(torch.stack(rows).mean())
    got = attention_entropy(model, [(src, lens, tgt)])
    assert got == pytest.approx(want, abs=1e-12)
    assert model.training  # its mode restored
    # two batches: the mean over all their steps, not the mean of the two means
    halves = [(src[:3], lens[:3], tgt[:3]), (src[3:], lens[3:], tgt[3:])]
    assert attention_entropy(model, halves) == pytest.approx(want, abs=1e-12)


def test_attention_entropy_rejects_a_model_without_attention_and_no_steps():
    src, lens = _batch()
    tgt = torch.full((src.size(0), 3), 0)
    with pytest.raises(ValueError, match="needs a model with attention"):
        attention_entropy(_model(None), [(src, lens, tgt)])
    with pytest.raises(ValueError, match="no target steps"):
        attention_entropy(_model("additive"), [(src, lens, tgt)])  # all padding

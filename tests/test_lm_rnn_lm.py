"""RNN LM: batchify/TBPTT windows, scratch vs fused parity, training, output layer."""

import math

import pytest
import torch

from course_lib.decoding import greedy_decode, sample
from course_lib.lm.output import SoftmaxOutput
from course_lib.lm.rnn_lm import (
    RNNLM,
    RNNLMConfig,
    batchify,
    evaluate_lm,
    scratch_twin,
    tbptt_batches,
    train_tbptt,
)
from course_lib.rnn.rnn_cell import copy_from_torch


def test_batchify_and_windows():
    data = batchify(torch.arange(23), 3)
    assert data.tolist() == [list(range(0, 7)), list(range(7, 14)), list(range(14, 21))]
    windows = list(tbptt_batches(data, 4))
    assert [x.shape[1] for x, _ in windows] == [4, 2]
    for x, y in windows:
        assert torch.equal(y, x + 1)  # the target is the next token (teacher forcing)


@pytest.mark.parametrize("nonlinearity", ["tanh", "relu"])
def test_scratch_and_fused_models_agree(nonlinearity):
    torch.manual_seed(0)
    cfg = RNNLMConfig(vocab_size=11, d_embed=4, d_hidden=5, nonlinearity=nonlinearity)
    fused = RNNLM(cfg).double()
    scratch = RNNLM(RNNLMConfig(**{**cfg.__dict__, "cell": "scratch"})).double()
    scratch.embed.load_state_dict(fused.embed.state_dict())
    scratch.out.load_state_dict(fused.out.state_dict())
    copy_from_torch(scratch.rnn, fused.rnn)
    x, y = torch.randint(0, 11, (3, 6)), torch.randint(0, 11, (3, 6))
    loss_f, h_f = fused(x, y)
    loss_s, h_s = scratch(x, y)
    torch.testing.assert_close(loss_s, loss_f, rtol=0, atol=1e-12)
    torch.testing.assert_close(h_s, h_f[0], rtol=0, atol=1e-12)
    loss_f.backward()
    loss_s.backward()
    torch.testing.assert_close(
        scratch.embed.weight.grad, fused.embed.weight.grad, rtol=0, atol=1e-12
    )


def test_training_learns_a_periodic_stream():
    torch.manual_seed(0)
    stream = torch.arange(5).repeat(200)  # 0 1 2 3 4 0 1 ...
    data = batchify(stream, 4)
    model = RNNLM(RNNLMConfig(vocab_size=5, d_embed=8, d_hidden=16))
    before = evaluate_lm(model, data, 10)
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    hist = train_tbptt(model, data, optimizer=opt, bptt=10, epochs=3, progress=False)
    after = evaluate_lm(model, data, 10)
    assert after < 0.1 < before and len(hist.train_loss) == 3
    (h,) = sample(model, [0], max_new_tokens=6, temperature=0.5)
    assert h.tokens == [1, 2, 3, 4, 0, 1] and not h.finished
    (g,) = greedy_decode(model, [0], eos=4, max_len=6)
    assert g.tokens == [1, 2, 3] and g.finished
    assert model.training  # decoding restored the mode


def test_adaptive_output_is_a_distribution():
    torch.manual_seed(0)
    out = SoftmaxOutput(32, 50, (10, 30))
    h, y = torch.randn(7, 32), torch.randint(0, 50, (7,))
    lp = out.log_prob(h)
    torch.testing.assert_close(lp.exp().sum(-1), torch.ones(7))
    torch.testing.assert_close(out.nll(h, y), -lp.gather(1, y[:, None]).mean())
    assert math.isfinite(out.nll(h, y).item())


def test_bad_inputs():
    with pytest.raises(ValueError, match="batch_size"):
        batchify(torch.arange(10), 0)
    with pytest.raises(ValueError, match="too few"):
        batchify(torch.arange(3), 2)
    with pytest.raises(ValueError, match="bptt"):
        list(tbptt_batches(torch.zeros(2, 5), 0))
    with pytest.raises(ValueError, match="cell must be"):
        RNNLM(RNNLMConfig(vocab_size=5, cell="gru"))
    with pytest.raises(ValueError, match="cutoffs"):
        SoftmaxOutput(4, 10, (20,))
    with pytest.raises(ValueError, match=r"x must be \(B, T\)"):
        RNNLM(RNNLMConfig(vocab_size=5)).features(torch.zeros(3, dtype=torch.long))


@pytest.mark.parametrize("training", [True, False])
def test_evaluate_lm_restores_the_mode(training):
    model = RNNLM(RNNLMConfig(vocab_size=5, d_embed=4, d_hidden=4)).train(training)
    evaluate_lm(model, batchify(torch.arange(5).repeat(4), 2), 3)
    assert all(m.training == training for m in model.modules())


def test_tied_lstm_shares_one_matrix_and_learns_with_a_schedule():
    torch.manual_seed(0)
    cfg = RNNLMConfig(vocab_size=5, d_embed=12, d_hidden=12, cell="lstm", dropout=0.1)
    model = RNNLM(RNNLMConfig(**{**cfg.__dict__, "tie_weights": True}))
    assert model.out.linear.weight is model.embed.weight
    untied = sum(p.numel() for p in RNNLM(cfg).parameters())
    assert sum(p.numel() for p in model.parameters()) == untied - 5 * 12
    data = batchify(torch.arange(5).repeat(200), 4)
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    # 3 epochs of 25 windows
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=75)
    hist = train_tbptt(
        model, data, optimizer=opt, bptt=10, epochs=3, scheduler=sched, progress=False
    )
    assert len(hist.step_loss) == 75 and opt.param_groups[0]["lr"] == pytest.approx(0)
    assert evaluate_lm(model, data, 10) < 0.1


def test_tied_weights_need_the_full_softmax_and_equal_widths():
    with pytest.raises(ValueError, match="tie_weights"):
        RNNLM(RNNLMConfig(vocab_size=50, cutoffs=(10,), tie_weights=True))
    with pytest.raises(ValueError, match="tie_weights"):
        RNNLM(RNNLMConfig(vocab_size=50, d_embed=8, d_hidden=16, tie_weights=True))


@pytest.mark.parametrize("cutoffs", [None, (10, 30)])
def test_target_log_prob_is_the_log_prob_of_the_target(cutoffs):
    torch.manual_seed(0)
    out = SoftmaxOutput(16, 50, cutoffs).double()
    h, y = torch.randn(9, 16, dtype=torch.float64), torch.randint(0, 50, (9,))
    expected = out.log_prob(h).gather(1, y[:, None]).squeeze(1)
    torch.testing.assert_close(out.target_log_prob(h, y), expected)
    torch.testing.assert_close(-out.target_log_prob(h, y).mean(), out.nll(h, y))


def test_train_tbptt_checks_epochs_and_a_finite_loss():
    model = RNNLM(RNNLMConfig(vocab_size=5, d_embed=4, d_hidden=4))
    data = batchify(torch.arange(5).repeat(8), 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(ValueError, match="epochs must be >= 1, got 0"):
        train_tbptt(model, data, optimizer=opt, epochs=0, progress=False)
    with pytest.raises(ValueError, match="max_steps must be a positive int"):
        train_tbptt(model, data, optimizer=opt, max_steps=0, progress=False)
    with torch.no_grad():
        model.embed.weight.fill_(float("nan"))
    with pytest.raises(FloatingPointError, match="loss became nan"):
        train_tbptt(model, data, optimizer=opt, bptt=4, progress=False)


def test_a_scratch_twin_trains_step_for_step_like_the_fused_model():
    torch.manual_seed(0)
    fused = RNNLM(RNNLMConfig(vocab_size=7, d_embed=4, d_hidden=5, cutoffs=None))
    twin = scratch_twin(fused)
    assert twin.config.cell == "scratch" and not fused.rnn.bias_hh_l0.requires_grad
    assert torch.equal(fused.rnn.bias_hh_l0, torch.zeros(5))
    data = batchify(torch.randint(0, 7, (200,)), 4)
    losses = [
        train_tbptt(
            m,
            data,
            optimizer=torch.optim.SGD(m.parameters(), lr=0.5),
            bptt=5,
            max_steps=4,
            progress=False,
        ).step_loss
        for m in (fused, twin)
    ]
    assert losses[0] == pytest.approx(losses[1], abs=1e-5)
    with pytest.raises(ValueError, match="one-layer RNNLM with cell='torch'"):
        scratch_twin(twin)

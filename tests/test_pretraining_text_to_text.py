"""'input -> output' pairs for a language model: labels on the outputs only."""

from __future__ import annotations

import pytest
import torch

from course_lib.pretraining import (
    GPT,
    IGNORE,
    GPTConfig,
    continuations,
    encode_pairs,
    exact_match,
    pair_loss,
    pair_nll,
    tune,
)

CHARS = " abcdefghij0123456789->"
EOS, PAD = len(CHARS), len(CHARS) + 1


def encode(s):
    return [CHARS.index(c) for c in s]


def decode(ids):
    return "".join(CHARS[i] for i in ids if i < len(CHARS))


def test_labels_are_the_next_output_tokens():
    batch = encode_pairs(
        [("ab", "1"), ("abc", "12")], encode, sep=">", eos_id=EOS, pad_id=PAD
    )
    assert batch.tokens[0].tolist() == encode("ab>1") + [EOS, PAD, PAD]
    assert (
        batch.labels[0].tolist()
        == [IGNORE, IGNORE] + encode("1") + [EOS] + [IGNORE] * 3
    )
    assert batch.labels[1].tolist() == [IGNORE] * 3 + encode("12") + [EOS, IGNORE]
    with pytest.raises(ValueError, match="empty"):
        encode_pairs([], encode, sep=">", eos_id=EOS, pad_id=PAD)


def test_tune_learns_a_copy_task():
    torch.manual_seed(0)
    gpt = GPT(
        GPTConfig(
            vocab_size=PAD + 1,
            d_model=32,
            n_heads=4,
            d_ff=64,
            n_layers=2,
            max_len=16,
            dropout=0.0,
        )
    )
    pairs = [(w, w) for w in ("ab", "cd", "ef", "gh", "ij", "ba")]
    kw = dict(sep=">", eos_id=EOS)
    hist = tune(
        gpt,
        pairs,
        encode=encode,
        evaluate=lambda m: exact_match(m, pairs, encode, decode, **kw),
        steps=150,
        batch_size=6,
        lr=3e-3,
        eval_every=50,
        pad_id=PAD,
        **kw,
    )
    assert hist.steps == [50, 100, 150]
    assert hist.loss[-1] < hist.loss[0] / 5
    assert hist.exact_match[-1] == 1.0
    batch = encode_pairs(pairs, encode, sep=">", eos_id=EOS, pad_id=PAD)
    assert pair_loss(gpt, batch).item() < 0.1
    # the decoded outputs, in input order, are what exact match compares
    outs = continuations(gpt, [x for x, _ in pairs], encode, decode, **kw)
    assert outs == [y for _, y in pairs]
    with pytest.raises(ValueError, match="empty"):
        exact_match(gpt, [], encode, decode, **kw)


def test_pair_nll_is_the_mean_over_output_tokens_one_sequence_at_a_time():
    torch.manual_seed(0)
    gpt = GPT(
        GPTConfig(
            vocab_size=PAD + 1,
            d_model=16,
            n_heads=2,
            d_ff=32,
            n_layers=1,
            max_len=16,
            dropout=0.0,
        )
    )
    pairs = [("ab", "1"), ("abcde", "1234"), ("c", "98"), ("ij", "0")]
    kw = dict(sep=">", eos_id=EOS, pad_id=PAD)
    # the plain definition: each sequence alone, -log P of every output token, summed
    total, count = 0.0, 0
    for x, y in pairs:
        seq = torch.tensor([encode(x + ">") + encode(y) + [EOS]])  # (1, T)
        logp = torch.log_softmax(gpt(seq).logits[0], -1)  # (T, V)
        start = len(encode(x + ">")) - 1
        for t in range(start, seq.size(1) - 1):
            total -= logp[t, seq[0, t + 1]].item()
            count += 1
    for batch_size in (1, 3, 64):  # padding and batching do not change it
        got = pair_nll(gpt, pairs, encode, batch_size=batch_size, **kw)
        assert abs(got - total / count) < 1e-5
    assert gpt.training  # eval mode only inside
    with pytest.raises(ValueError, match="empty"):
        pair_nll(gpt, [], encode, **kw)
    with pytest.raises(ValueError, match="batch_size"):
        pair_nll(gpt, pairs, encode, batch_size=0, **kw)


def test_tune_without_an_evaluation_trains_the_same():
    def run(**evaluation):
        torch.manual_seed(0)
        gpt = GPT(
            GPTConfig(
                vocab_size=PAD + 1,
                d_model=16,
                n_heads=2,
                d_ff=32,
                n_layers=1,
                max_len=16,
                dropout=0.0,
            )
        )
        pairs = [("ab", "1"), ("cd", "2"), ("ef", "3")]
        hist = tune(
            gpt,
            pairs,
            encode=encode,
            steps=6,
            batch_size=2,
            lr=3e-3,
            sep=">",
            eos_id=EOS,
            pad_id=PAD,
            **evaluation,
        )
        return hist, gpt

    plain, a = run()
    scored, b = run(evaluate=lambda m: 0.5, eval_every=3)
    assert plain.steps == [] and plain.exact_match == []
    assert scored.steps == [3, 6]
    assert plain.loss == scored.loss
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    with pytest.raises(ValueError, match="together"):
        run(evaluate=lambda m: 0.5)

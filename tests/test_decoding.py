"""The shared decoders on every generating model (Chapters 5, 7, 8, 9): beam 1 = greedy, a wide
beam = exhaustive search, batched = one row at a time, cached = uncached, sampling seeded
and inside its filters, the mode restored, and bad input explained."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pytest
import torch

from course_lib.decoding import (
    beam_search,
    feed_prompt,
    filter_scores,
    greedy_decode,
    normalised_score,
    sample,
    select_rows,
)
from course_lib.decoding.protocol import reorder_state
from course_lib.lm.fixed_window import FixedWindowConfig, FixedWindowLM
from course_lib.lm.ngram import KneserNey
from course_lib.lm.rnn_lm import RNNLM, RNNLMConfig
from course_lib.pretraining.gpt import GPT, GPTConfig
from course_lib.seq2seq import Seq2Seq, Seq2SeqConfig
from course_lib.transformer import Transformer, TransformerConfig

BOS, EOS = 2, 3
TOY = (
    "the cat sat on the mat <eos> the dog sat on the cat <eos> a cat ran <eos>".split()
)


def _seq2seq(attention="additive"):
    torch.manual_seed(0)
    cfg = Seq2SeqConfig(9, 6, d_emb=5, d_hidden=7, attention=attention, d_attn=4)
    model = Seq2Seq(cfg).double().eval()
    with torch.no_grad():
        model.out.bias[EOS] += 0.3  # some hypotheses end early, some run to max_len
        model.out.weight.mul_(3)  # peakier distributions: outputs differ by source
    return model


def _transformer(**kw):
    torch.manual_seed(0)
    cfg = dict(src_vocab=12, tgt_vocab=7, d_model=16, n_heads=4, d_ff=32, dropout=0.0)
    cfg.update(n_encoder_layers=2, n_decoder_layers=2, **kw)
    model = Transformer(TransformerConfig(**cfg)).double().eval()
    with torch.no_grad():
        model.generator.weight.mul_(4)
    return model


def _src(seed=0, n=4, vocab=9):
    g = torch.Generator().manual_seed(seed)
    lens = torch.randint(1, 7, (n,), generator=g)
    src = torch.randint(4, vocab, (n, int(lens.max())), generator=g)
    src[torch.arange(src.size(1))[None, :] >= lens[:, None]] = 0
    return src, lens


def _lm(kind):
    torch.manual_seed(0)
    if kind == "kneser_ney":
        return KneserNey(TOY, 3)
    if kind == "fixed_window":
        return FixedWindowLM(FixedWindowConfig(vocab_size=6, window=2, d_embed=4))
    cell = kind.split("_")[1]
    return RNNLM(RNNLMConfig(vocab_size=6, d_embed=4, d_hidden=5, cell=cell)).double()


def _case(kind):
    """(model, prompt, state, eos) for each generating model of the course."""
    if kind.startswith("seq2seq"):
        model, (src, lens) = _seq2seq(), _src()
        return model, torch.full((4, 1), BOS), model.start(src, lens), EOS
    if kind.startswith("transformer"):
        model, (src, lens) = _transformer(), _src(vocab=12)
        state = model.start(src, lens, use_cache=kind.endswith("cache"))
        return model, torch.full((4, 1), BOS), state, EOS
    if kind.startswith("gpt"):
        torch.manual_seed(0)
        cfg = GPTConfig(
            vocab_size=6,
            d_model=8,
            n_heads=2,
            d_ff=16,
            n_layers=2,
            max_len=32,
            dropout=0.0,
        )
        model = GPT(cfg).double().eval()
        state = model.start(3, use_cache=kind.endswith("cache"))
        return model, torch.tensor([[0, 1], [2, 2], [1, 0]]), state, 3
    model = _lm(kind)
    prompt = torch.tensor([[0, 1], [2, 2], [1, 0]])
    return model, prompt, None, 3


KINDS = [
    "seq2seq",
    "transformer_cache",
    "transformer_nocache",
    "rnn_torch",
    "rnn_scratch",
    "rnn_lstm",
    "fixed_window",
    "kneser_ney",
    "gpt_cache",
    "gpt_nocache",
]


@torch.no_grad()
def _log_prob(model, prompt_row, state_row, tokens):
    """log P(tokens | prompt) through the protocol itself, one row."""
    log_p, state = feed_prompt(model, prompt_row, state_row)
    total = 0.0
    for k, tok in enumerate(tokens):
        total += float(log_p[0, tok])
        if k < len(tokens) - 1:
            log_p, state = model.step(torch.tensor([tok]), state)
    return total


@pytest.mark.parametrize("kind", KINDS)
def test_beam_of_one_is_greedy(kind):
    model, prompt, state, eos = _case(kind)
    greedy = greedy_decode(model, prompt, state, eos=eos, max_len=6, alpha=0.0)
    beam = beam_search(model, prompt, state, eos=eos, beam_size=1, max_len=6, alpha=0)
    assert len(greedy) == len(beam) == prompt.size(0)
    for g, (b,) in zip(greedy, beam, strict=True):
        assert (g.tokens, g.finished) == (b.tokens, b.finished)
        assert g.log_prob == pytest.approx(b.log_prob, abs=1e-6)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("alpha", [0.0, 0.7])
def test_a_beam_as_wide_as_the_vocabulary_is_exhaustive_up_to_two_tokens(kind, alpha):
    """With K = V and max_len 2 no prefix is pruned: the beam's best is the argmax of the
    normalised score over every output, <eos> alone, one token + <eos>, or two tokens."""
    model, prompt, state, eos = _case(kind)
    V = feed_prompt(model, prompt, state)[0].size(1)
    best = beam_search(
        model, prompt, state, eos=eos, beam_size=V, max_len=2, alpha=alpha, n_best=V
    )
    others = [v for v in range(V) if v != eos]
    outputs = [([eos], [], True)] + [([a, eos], [a], True) for a in others]
    outputs += [([a, b], [a, b], False) for a, b in itertools.product(others, range(V))]
    for r in range(prompt.size(0)):
        row_state = model.reorder(state, torch.tensor([r]))
        scored = []
        for fed, tokens, finished in outputs:
            lp = _log_prob(model, prompt[r : r + 1], row_state, fed)
            scored.append((normalised_score(lp, len(fed), alpha), tokens, finished))
        score, tokens, finished = max(scored, key=lambda s: s[0])
        top = best[r][0]
        assert (top.tokens, top.finished) == (tokens, finished)
        assert top.score == pytest.approx(score, abs=1e-6)
        for h in best[r]:  # every returned score is its normalised log-probability
            fed = h.tokens + ([eos] if h.finished else [])
            lp = _log_prob(model, prompt[r : r + 1], row_state, fed)
            assert h.log_prob == pytest.approx(lp, abs=1e-6)
            assert h.score == pytest.approx(lp / h.length**alpha, abs=1e-6)


@pytest.mark.parametrize(
    "kind", ["seq2seq", "transformer_cache", "rnn_lstm", "gpt_cache"]
)
def test_batched_equals_one_row_at_a_time(kind):
    model, prompt, state, eos = _case(kind)
    batched = beam_search(
        model, prompt, state, eos=eos, beam_size=3, max_len=7, n_best=3
    )
    greedy = greedy_decode(model, prompt, state, eos=eos, max_len=7)
    for r in range(prompt.size(0)):
        if kind.startswith("seq2seq"):  # the sentence alone, without its padding
            src, lens = _src()
            one = model.start(src[r : r + 1, : lens[r]], lens[r : r + 1])
        elif kind.startswith("transformer"):
            src, lens = _src(vocab=12)
            one = model.start(src[r : r + 1, : lens[r]])
        elif kind.startswith("gpt"):
            one = model.start(1)
        else:
            one = None
        alone = beam_search(
            model, prompt[r : r + 1], one, eos=eos, beam_size=3, max_len=7, n_best=3
        )[0]
        assert [h.tokens for h in alone] == [h.tokens for h in batched[r]]
        for x, y in zip(alone, batched[r], strict=True):
            assert x.score == pytest.approx(y.score, abs=1e-9)
        (g,) = greedy_decode(model, prompt[r : r + 1], one, eos=eos, max_len=7)
        assert g.tokens == greedy[r].tokens


@pytest.mark.parametrize("positional", ["sinusoidal", "learned"])
def test_transformer_cached_decoding_equals_uncached(positional):
    model = _transformer(positional=positional, max_len=40)
    src, lens = _src(vocab=12)
    prompt = torch.full((4, 1), BOS)
    runs = {}
    for use_cache in (True, False):
        state = model.start(src, lens, use_cache=use_cache)
        g = greedy_decode(model, prompt, state, eos=EOS, max_len=12)
        b = beam_search(
            model, prompt, state, eos=EOS, beam_size=3, max_len=12, n_best=3
        )
        s = sample(
            model,
            prompt,
            state,
            max_new_tokens=12,
            eos=EOS,
            top_k=4,
            generator=torch.Generator().manual_seed(0),
        )
        runs[use_cache] = [(h.tokens, round(h.log_prob, 8)) for h in g + sum(b, []) + s]
    assert runs[True] == runs[False]
    tokens = [t for toks, _ in runs[True] for t in toks]
    assert 0 not in tokens and BOS not in tokens and EOS not in tokens


class _Recorder:
    """Wraps a model and keeps every step's log-probabilities, to check what was drawn."""

    def __init__(self, model):
        self.model, self.log_probs = model, []

    def step(self, tokens, state):
        log_p, state = self.model.step(tokens, state)
        self.log_probs.append(log_p)
        return log_p, state

    def reorder(self, state, rows):
        return self.model.reorder(state, rows)


@pytest.mark.parametrize(
    "filters",
    [dict(top_k=2), dict(top_p=0.5), dict(top_k=3, top_p=0.9, temperature=2.0)],
)
def test_sampling_is_seeded_and_never_leaves_the_kept_set(filters):
    model = _lm("rnn_torch")
    prompt = torch.zeros(50, 1, dtype=torch.long)
    rec = _Recorder(model)
    a = sample(
        rec,
        prompt,
        max_new_tokens=8,
        generator=torch.Generator().manual_seed(1),
        **filters,
    )
    b = sample(
        model,
        prompt,
        max_new_tokens=8,
        generator=torch.Generator().manual_seed(1),
        **filters,
    )
    assert [h.tokens for h in a] == [h.tokens for h in b]
    for t in range(8):
        kept = torch.isfinite(filter_scores(rec.log_probs[t], **filters))  # (N, V)
        drawn = torch.tensor([h.tokens[t] for h in a])
        assert kept[torch.arange(50), drawn].all()
        if "top_k" in filters:
            assert (kept.sum(-1) <= filters["top_k"]).all()
    c = sample(
        model,
        prompt,
        max_new_tokens=8,
        generator=torch.Generator().manual_seed(2),
        **filters,
    )
    assert [h.tokens for h in a] != [h.tokens for h in c]


def test_top_p_keeps_the_smallest_nucleus():
    p = torch.tensor([[0.5, 0.3, 0.15, 0.05]])
    kept = lambda q: torch.isfinite(filter_scores(p.log(), top_p=q))[0].tolist()  # noqa: E731
    assert kept(0.5) == [True, False, False, False]
    assert kept(0.6) == [True, True, False, False]
    assert kept(0.95) == [True, True, True, False]
    assert kept(1.0) == [True] * 4
    assert kept(0.01) == [
        True,
        False,
        False,
        False,
    ]  # the most likely token always stays


def test_sampling_stops_at_the_end_token_and_scores_what_it_drew():
    model = _lm("kneser_ney")
    eos = model.vocab.index("<eos>")
    hyps = sample(
        model,
        [[eos]] * 20,
        max_new_tokens=30,
        eos=eos,
        generator=torch.Generator().manual_seed(0),
    )
    assert any(h.finished for h in hyps)
    for h in hyps:
        assert eos not in h.tokens
        fed = h.tokens + ([eos] if h.finished else [])
        assert h.log_prob == pytest.approx(
            _log_prob(model, [[eos]], None, fed), abs=1e-9
        )


def test_decoding_restores_the_training_mode():
    model = RNNLM(RNNLMConfig(vocab_size=6, d_embed=4, d_hidden=5, dropout=0.5)).train()
    out = [
        f(model, [[1]], **kw)
        for f, kw in [
            (greedy_decode, dict(eos=0, max_len=5)),
            (beam_search, dict(eos=0, beam_size=2, max_len=5)),
            (
                sample,
                dict(max_new_tokens=5, generator=torch.Generator().manual_seed(0)),
            ),
        ]
    ]
    assert model.training and model.drop.training
    assert (
        out[0][0].tokens
        == greedy_decode(model.eval(), [[1]], eos=0, max_len=5)[0].tokens
    )


@dataclass
class _State:
    h: torch.Tensor
    cache: list
    flag: bool = True


def test_select_rows_walks_nested_states():
    state = _State(torch.arange(6).view(3, 2), [{"k": torch.arange(3)}, None])
    out = select_rows(state, torch.tensor([2, 2, 0]))
    assert out.h.tolist() == [[4, 5], [4, 5], [0, 1]] and out.flag is True
    assert out.cache[0]["k"].tolist() == [2, 2, 0] and out.cache[1] is None
    with pytest.raises(ValueError, match="out of range for a state of 3 rows"):
        select_rows(state, torch.tensor([3]))
    with pytest.raises(TypeError, match="cannot index a state part of type object"):
        select_rows((torch.zeros(2), object()), torch.tensor([0]))


def test_bad_input_is_explained():
    model, prompt, state, eos = _case("seq2seq")
    with pytest.raises(ValueError, match="beam_size must be an int >= 1"):
        beam_search(model, prompt, state, eos=eos, beam_size=0)
    with pytest.raises(ValueError, match="beam_size 7 is above the vocabulary size 6"):
        beam_search(model, prompt, state, eos=eos, beam_size=7)
    with pytest.raises(ValueError, match="n_best must be"):
        beam_search(model, prompt, state, eos=eos, beam_size=2, n_best=3)
    for f in (greedy_decode, beam_search):
        with pytest.raises(ValueError, match="max_len must be a positive int"):
            f(model, prompt, state, eos=eos, max_len=0)
    with pytest.raises(ValueError, match="max_len must be a positive int"):
        sample(model, prompt, state, max_new_tokens=0)
    with pytest.raises(ValueError, match="failed on a prompt of 5 rows"):
        beam_search(model, torch.full((5, 1), BOS), state, eos=eos, beam_size=2)
    with pytest.raises(ValueError, match="Sizes of tensors .*one row per prompt row"):
        greedy_decode(model, prompt[:2], state, eos=eos)
    with pytest.raises(ValueError, match=r"rows \[4\] out of range for 4 live rows"):
        reorder_state(model, state, torch.tensor([4]), 4)
    with pytest.raises(ValueError, match="out of range for a state of 4 rows"):
        model.reorder(state, torch.tensor([0, 5]))
    for top_p in (0.0, 1.5):
        with pytest.raises(ValueError, match=r"top_p must be in \(0, 1\]"):
            sample(model, prompt, state, max_new_tokens=3, top_p=top_p)
    with pytest.raises(ValueError, match="temperature must be > 0"):
        sample(model, prompt, state, max_new_tokens=3, temperature=0.0)
    with pytest.raises(ValueError, match="top_k must be a positive int"):
        sample(model, prompt, state, max_new_tokens=3, top_k=0)
    with pytest.raises(ValueError, match="at least one token id per row"):
        greedy_decode(model, torch.zeros(4, 0, dtype=torch.long), state, eos=eos)
    with pytest.raises(TypeError, match="needs step and reorder"):
        greedy_decode(object(), prompt, None, eos=eos)


def test_filter_scores_checks_its_settings_then_the_scores():
    with pytest.raises(ValueError, match="temperature must be > 0"):
        filter_scores(torch.zeros(3), temperature=0.0)  # the settings are checked first
    with pytest.raises(ValueError, match=r"scores must be \(N, V\), got \(3,\)"):
        filter_scores(torch.zeros(3))
    torch.testing.assert_close(
        filter_scores(torch.tensor([[0.0, 2.0]]), temperature=2.0),
        torch.tensor([[0.0, 1.0]], dtype=torch.float64),
    )

"""The window classifier: windows and padding, torch <-> engine parity of the loss curve."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from course_lib.backprop import Value
from course_lib.backprop.window_classifier import (
    PAD,
    TorchWindowClassifier,
    WindowConfig,
    engine_logits,
    engine_loss,
    engine_params,
    init_params,
    make_batches,
    make_windows,
    train_with_engine,
    train_with_torch,
)
from course_lib.data import Vocab, read_conllu

FIXTURE = Path(__file__).parent / "fixtures" / "data" / "ewt_dev_sample.conllu"
SENTENCES = [
    ("the museums in Paris are amazing".split(), "DET NOUN ADP PROPN AUX ADJ".split()),
    ("Paris is big".split(), "PROPN AUX ADJ".split()),
    ("the cat sat".split(), "DET NOUN VERB".split()),
    ("cats".split(), ["NOUN"]),
    (
        "in the museums the cats are big".split(),
        "ADP DET NOUN DET NOUN AUX ADJ".split(),
    ),
]


def _vocabs() -> tuple[Vocab, Vocab]:
    vocab = Vocab.build([w for w, _ in SENTENCES], specials=("<unk>", PAD))
    tags = Vocab.build([t for _, t in SENTENCES], specials=(), unk=None)
    return vocab, tags


def test_make_windows_pads_at_sentence_edges():
    vocab, tags = _vocabs()
    ids, labels = make_windows(SENTENCES, vocab, tags, window=2)
    n_words = sum(len(w) for w, _ in SENTENCES)
    assert ids.shape == (n_words, 5) and labels.shape == (n_words,)
    assert ids.dtype == labels.dtype == torch.long
    pad = vocab[PAD]
    first = ids[0].tolist()  # "the" at the start of sentence 0
    assert first == [pad, pad] + vocab.encode(["the", "museums", "in"])
    paris = ids[3].tolist()  # centre "Paris": museums in [Paris] are amazing
    assert vocab.decode(paris) == ["museums", "in", "Paris", "are", "amazing"]
    cats = ids[12].tolist()  # a one-word sentence: all padding around it
    assert cats == [pad, pad, vocab["cats"], pad, pad]
    assert tags.decode(labels[:6].tolist()) == SENTENCES[0][1]
    assert make_windows(SENTENCES, vocab, tags, window=0)[0].shape == (n_words, 1)


def test_make_windows_on_real_ewt_sentences():
    sentences = read_conllu(FIXTURE)
    vocab = Vocab.build((s.words for s in sentences), specials=("<unk>", PAD))
    tags = Vocab.build((s.upos for s in sentences), specials=(), unk=None)
    ids, labels = make_windows(sentences, vocab, tags, window=1)
    assert ids.shape == (sum(len(s) for s in sentences), 3)
    upos = (
        "ADJ ADP ADV AUX CCONJ DET INTJ NOUN NUM PART PRON PROPN PUNCT SCONJ SYM VERB X"
    )
    assert set(tags.decode(labels.unique().tolist())) <= set(upos.split())
    assert len(tags) > 5


def test_bad_input_is_named():
    vocab, tags = _vocabs()
    no_pad = Vocab.build([w for w, _ in SENTENCES])
    with pytest.raises(ValueError, match="no '<pad>' token"):
        make_windows(SENTENCES, no_pad, tags, 2)
    with pytest.raises(ValueError, match="sentence 0 has 2 words but 1 tags"):
        make_windows([(["a", "b"], ["DET"])], vocab, tags, 2)
    with pytest.raises(ValueError, match="window must be"):
        make_windows(SENTENCES, vocab, tags, -1)
    with pytest.raises(ValueError, match="empty"):
        make_windows([], vocab, tags, 1)
    with pytest.raises(ValueError, match="activation"):
        WindowConfig(10, 3, activation="gelu")
    with pytest.raises(ValueError, match="d_hidden"):
        WindowConfig(10, 3, d_hidden=0)
    model = TorchWindowClassifier(WindowConfig(len(vocab), len(tags), window=2))
    with pytest.raises(ValueError, match=r"\(B, 5\).*\(4, 3\)"):
        model(torch.zeros(4, 3, dtype=torch.long))
    with pytest.raises(ValueError, match="batch_size"):
        make_batches(torch.zeros(4, 3, dtype=torch.long), torch.zeros(4), 0)


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_engine_and_torch_give_the_same_loss_curve(activation):
    vocab, tags = _vocabs()
    ids, labels = make_windows(SENTENCES, vocab, tags, window=2)
    cfg = WindowConfig(
        len(vocab), len(tags), window=2, d_embed=4, d_hidden=6, activation=activation
    )
    params = init_params(cfg, seed=1, dtype=torch.float64)
    batches = make_batches(ids, labels, batch_size=5, seed=0)
    assert len(batches) == 4 and sum(len(t) for _, t in batches) == len(labels)

    model = TorchWindowClassifier(cfg, params)
    engine = engine_params(params)
    torch.testing.assert_close(
        engine_logits(engine, ids, activation).data,
        model(ids).detach(),
        rtol=1e-12,
        atol=1e-12,
    )
    h_torch = train_with_torch(model, batches, lr=0.5, epochs=3, progress=False)
    h_engine = train_with_engine(
        engine, batches, lr=0.5, epochs=3, activation=activation, progress=False
    )
    assert len(h_engine.step_loss) == len(h_torch.step_loss) == 12
    torch.testing.assert_close(
        torch.tensor(h_engine.step_loss),
        torch.tensor(h_torch.step_loss),
        rtol=0,
        atol=1e-6,
    )
    assert h_engine.train_loss[-1] < h_engine.train_loss[0]  # it learns
    for name, p in model.named_parameters():
        torch.testing.assert_close(engine[name].data, p.detach(), rtol=1e-9, atol=1e-9)
    assert torch.equal(params["W"], init_params(cfg, seed=1, dtype=torch.float64)["W"])


def test_engine_loss_gradients_match_torch():
    vocab, tags = _vocabs()
    ids, labels = make_windows(SENTENCES, vocab, tags, window=1)
    cfg = WindowConfig(len(vocab), len(tags), window=1, d_embed=3, d_hidden=4)
    params = init_params(cfg, seed=2, dtype=torch.float64)
    model = TorchWindowClassifier(cfg, params)
    model.loss(ids, labels).backward()
    engine = engine_params(params)
    engine_loss(engine, ids, labels).backward()
    for name, p in model.named_parameters():
        assert isinstance(engine[name], Value)
        torch.testing.assert_close(engine[name].grad, p.grad, rtol=1e-10, atol=1e-12)


def test_init_is_deterministic_and_the_model_copies_it():
    cfg = WindowConfig(7, 3, window=1, d_embed=2, d_hidden=5)
    a, b = init_params(cfg, seed=3), init_params(cfg, seed=3)
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert a["W"].shape == (5, 6) and a["U"].shape == (3, 5) and a["E"].shape == (7, 2)
    model = TorchWindowClassifier(cfg, a)
    with torch.no_grad():
        model.W.add_(1.0)
    assert torch.equal(a["W"], b["W"])  # the model trained its own copy
    assert make_batches(
        torch.zeros(5, 3, dtype=torch.long), torch.zeros(5, dtype=torch.long), 2
    )[-1][0].shape == (1, 3)

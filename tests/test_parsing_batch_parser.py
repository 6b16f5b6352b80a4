"""Greedy parsing: batched = one sentence at a time; legal trees; a tiny model learns."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from course_lib.data import read_conllu
from course_lib.parsing import (
    LECTURE_EXAMPLE,
    ChenManningParser,
    ParserConfig,
    attachment_scores,
    build_vocabs,
    check_tree,
    load_word_vectors,
    oracle_examples,
    parse,
    parse_one,
    train_parser,
)

FIXTURE = Path(__file__).parent / "fixtures" / "data" / "ewt_dev_sample.conllu"


@pytest.fixture(scope="module")
def sentences():
    return read_conllu(FIXTURE)  # 4 EWT dev sentences, 7-26 words


@pytest.fixture(scope="module")
def random_parser(sentences):
    vocabs = build_vocabs(sentences, min_freq=1)
    torch.manual_seed(0)
    model = ChenManningParser(
        ParserConfig.for_vocabs(vocabs, embed_dim=8, hidden=16)
    ).double()  # float64: no near-ties that rounding could flip
    return model, vocabs


def test_batched_parsing_gives_the_same_trees_as_one_at_a_time(
    sentences, random_parser
):
    model, vocabs = random_parser
    extra = [
        (LECTURE_EXAMPLE["words"], LECTURE_EXAMPLE["upos"]),
        (["Unseen"], ["X"]),
        (["a", "b"], ["DET", "NOUN"]),
    ]
    inputs = [*sentences, *extra]
    one_by_one = [parse_one(model, vocabs, *as_pair(s))[0] for s in inputs]
    for batch_size in (1, 3, 64):
        assert parse(model, vocabs, inputs, batch_size=batch_size) == one_by_one
    for tree in one_by_one:  # the legal mask guarantees a single-rooted tree
        check_tree(tree.heads)
        assert [r == "root" for r in tree.deprels] == [h == 0 for h in tree.heads]
    assert model.training  # parse() restores the mode it found


def as_pair(s):
    return (s.words, s.upos) if hasattr(s, "words") else s


def test_parse_one_records_every_state_with_top_k(random_parser):
    model, vocabs = random_parser
    words, tags = LECTURE_EXAMPLE["words"], LECTURE_EXAMPLE["upos"]
    tree, steps = parse_one(model, vocabs, words, tags, top_k=3)
    assert len(steps) == 2 * len(words) + 1 and steps[-1].transition is None
    assert steps[0].config.stack == (0,) and steps[-1].config.is_terminal()
    assert tuple(steps[-1].config.heads()) == tree.heads
    for step in steps[:-1]:
        assert str(step.transition) == step.top[0][0]  # greedy: the most probable
        probs = [p for _, p in step.top]
        assert probs == sorted(probs, reverse=True) and sum(probs) <= 1 + 1e-9
    assert len(steps[0].top) == 1  # only SHIFT is legal in c0: it has p = 1
    assert steps[0].top[0] == ("SHIFT", 1.0)
    assert parse_one(model, vocabs, words, tags)[1] == []


def test_bad_sentences_are_explained(random_parser):
    model, vocabs = random_parser
    with pytest.raises(ValueError, match="sentence 1 needs one tag per word"):
        parse(model, vocabs, [(["a"], ["X"]), (["a", "b"], ["X"])])
    with pytest.raises(TypeError, match="sentence 0 must have .words and .upos"):
        parse(model, vocabs, [42])
    with pytest.raises(ValueError, match="batch_size must be >= 1"):
        parse(model, vocabs, [(["a"], ["X"])], batch_size=0)


def test_a_small_parser_learns_the_training_trees(sentences):
    vocabs = build_vocabs(sentences, min_freq=1)
    x, y = oracle_examples(sentences, vocabs)
    assert x.shape == (2 * sum(map(len, sentences)), 48) and y.shape == (x.shape[0],)
    trained = train_parser(
        sentences,
        epochs=10,
        batch_size=64,
        lr=2e-2,
        hidden=32,
        embed_dim=8,
        dropout=0.0,
        min_freq=1,
        progress=False,
        seed=0,
    )
    assert attachment_scores(sentences, trained.parse(sentences)).uas >= 0.95
    assert trained.dev_scores == [] and trained.best_epoch == 10
    assert len(trained.history.train_loss) == 10
    assert trained.history.train_loss[-1] < trained.history.train_loss[0] / 10


def test_train_parser_keeps_the_epoch_with_the_best_dev_uas(sentences):
    dev = sentences[:1]  # one short sentence: cheap to score after every epoch
    trained = train_parser(
        sentences,
        dev,
        epochs=4,
        batch_size=64,
        lr=2e-2,
        hidden=32,
        embed_dim=8,
        dropout=0.0,
        min_freq=1,
        word_dropout=0.25,
        progress=False,
        seed=0,
    )
    uas = [s.uas for s in trained.dev_scores]
    assert len(uas) == 4 and trained.best_epoch == uas.index(max(uas)) + 1
    assert attachment_scores(dev, trained.parse(dev)).uas == max(uas)
    # each epoch's dev trees are kept, and score as that epoch's dev UAS
    assert len(trained.dev_parses) == 4
    assert [attachment_scores(dev, p).uas for p in trained.dev_parses] == uas
    with pytest.raises(ValueError, match="optimizer must be 'adam' or 'adagrad'"):
        train_parser(sentences, optimizer="sgd")
    with pytest.raises(ValueError, match="word_dropout must be >= 0"):
        train_parser(sentences, word_dropout=-1)
    with pytest.raises(ValueError, match="lr_schedule must be one of"):
        train_parser(sentences, lr_schedule="step")


def test_train_parser_scores_and_keeps_the_averaged_weights(sentences):
    dev = sentences[:1]
    kw = dict(
        epochs=3,
        batch_size=64,
        lr=2e-2,
        hidden=32,
        embed_dim=8,
        dropout=0.0,
        min_freq=1,
        lr_schedule="linear",
        progress=False,
        seed=0,
    )
    averaged = train_parser(sentences, dev, average=0.9, **kw)
    uas = [s.uas for s in averaged.dev_scores]
    assert averaged.best_epoch == uas.index(max(uas)) + 1
    assert attachment_scores(dev, averaged.parse(dev)).uas == max(uas)
    # beta = 0 averages nothing: the same weights as no averaging
    raw = train_parser(sentences, **kw)
    same = train_parser(sentences, average=0.0, **kw)
    for p, q in zip(raw.model.parameters(), same.model.parameters()):
        torch.testing.assert_close(p, q)
    other = train_parser(sentences, average=0.9, **kw)  # without dev: the average
    assert not torch.equal(other.model.W1.weight, raw.model.W1.weight)


@pytest.mark.parametrize("training", [True, False])
def test_parsing_restores_the_mode(sentences, random_parser, training):
    model, vocabs = random_parser
    was = model.training  # the fixture is shared: give it back as it came
    model.train(training)
    parse(model, vocabs, sentences[:2])
    parse_one(model, vocabs, *as_pair(sentences[0]), top_k=2)
    assert all(m.training == training for m in model.modules())
    model.train(was)


def test_train_parser_leaves_the_model_in_training_mode(sentences):
    trained = train_parser(
        sentences[:1], epochs=1, hidden=8, embed_dim=4, min_freq=1, progress=False
    )
    assert all(m.training for m in trained.model.modules())


def test_load_word_vectors_copies_covered_rows_rescaled(sentences):
    vocabs = build_vocabs(sentences, min_freq=1)
    torch.manual_seed(0)
    model = ChenManningParser(ParserConfig.for_vocabs(vocabs, embed_dim=4, hidden=8))
    before = model.word_embed.weight.detach().clone()
    tokens = vocabs.words.tokens
    words = ["The", tokens[5], "<unk>", "not-a-word-here"]  # matched lower-cased
    vectors = torch.arange(1, 17, dtype=torch.float32).view(4, 4)
    coverage = load_word_vectors(model, vocabs, words, vectors)
    after = model.word_embed.weight.detach()
    the, fifth, unk = vocabs.words.index("the"), 5, vocabs.words.index("<unk>")
    assert coverage == pytest.approx(2 / (len(tokens) - 3))  # the, tokens[5]
    ratio = after[[the, fifth]] / vectors[:2]  # one positive scale for every row
    assert ratio.min() > 0
    torch.testing.assert_close(ratio, torch.full((2, 4), ratio[0, 0].item()))
    changed = (after != before).any(dim=1)
    assert changed[[the, fifth]].all() and not changed[unk]
    assert changed.sum() == 2  # the specials and uncovered words keep their rows
    with pytest.raises(ValueError, match="embed_dim"):
        load_word_vectors(model, vocabs, words, torch.zeros(4, 5))


def test_train_parser_starts_from_word_vectors(sentences):
    vocabs = build_vocabs(sentences, min_freq=1)
    words = vocabs.words.tokens[3:]
    vectors = torch.randn(len(words), 8, generator=torch.Generator().manual_seed(0))
    trained = train_parser(
        sentences,
        epochs=1,
        batch_size=64,
        hidden=16,
        embed_dim=8,
        min_freq=1,
        word_vectors=(words, vectors),
        progress=False,
        seed=0,
    )
    assert trained.word_vector_coverage == 1.0
    assert (
        train_parser(
            sentences, epochs=1, hidden=16, embed_dim=8, min_freq=1, progress=False
        ).word_vector_coverage
        == 0.0
    )


def test_vector_vocab_reads_words_the_treebank_lacks(sentences):
    words = ["the", "zebra", "quokka"]
    vectors = torch.randn(3, 8, generator=torch.Generator().manual_seed(0))
    kw = dict(epochs=1, hidden=16, embed_dim=8, min_freq=1, progress=False, seed=0)
    trained = train_parser(
        sentences, word_vectors=(words, vectors), vector_vocab=True, **kw
    )
    tokens = trained.vocabs.words
    assert tokens.tokens[-2:] == ("zebra", "quokka") and "zebra" in tokens
    # rows the training never uses keep their rescaled vectors exactly, however strong the
    # weight decay: the word embeddings take none (under Adam, L2 alone would shrink them)
    decayed = train_parser(
        sentences,
        word_vectors=(words, vectors),
        vector_vocab=True,
        weight_decay=1.0,
        **kw,
    )
    for run in (trained, decayed):
        table = run.model.word_embed.weight.detach()
        ratio = table[[tokens.index("zebra"), tokens.index("quokka")]] / vectors[1:]
        assert ratio.min() > 0
        torch.testing.assert_close(ratio, torch.full_like(ratio, ratio[0, 0].item()))
    with pytest.raises(ValueError, match="needs word_vectors"):
        train_parser(sentences, vector_vocab=True, **kw)

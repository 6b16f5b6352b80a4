"""The Chen & Manning classifier: eq. 1-2 by hand, shapes, activations, config checks."""

from __future__ import annotations

import pytest
import torch

from course_lib.parsing import ChenManningParser, ParserConfig

SIZES = {"n_words": 30, "n_tags": 8, "n_labels": 5, "n_transitions": 9}


def _features(B: int, gen: torch.Generator) -> torch.Tensor:
    words = torch.randint(0, 30, (B, 18), generator=gen)
    tags = torch.randint(0, 8, (B, 18), generator=gen)
    labels = torch.randint(0, 5, (B, 12), generator=gen)
    return torch.cat([words, tags, labels], dim=1)  # (B, 48)


@pytest.mark.parametrize("activation", ["cube", "relu"])
def test_forward_is_equation_1_and_2_computed_by_hand(activation):
    torch.manual_seed(0)
    model = ChenManningParser(
        ParserConfig(**SIZES, embed_dim=4, hidden=6, activation=activation)
    ).double()
    model.eval()
    x = _features(5, torch.Generator().manual_seed(1))
    d = 4
    W1 = model.W1.weight  # (H, 48 d) = [W1w W1t W1l]
    W1w, W1t, W1l = W1[:, : 18 * d], W1[:, 18 * d : 36 * d], W1[:, 36 * d :]
    xw = model.word_embed.weight[x[:, :18]].reshape(5, -1)
    xt = model.tag_embed.weight[x[:, 18:36]].reshape(5, -1)
    xl = model.label_embed.weight[x[:, 36:]].reshape(5, -1)
    z = xw @ W1w.T + xt @ W1t.T + xl @ W1l.T + model.W1.bias
    h = z**3 if activation == "cube" else z.clamp(min=0)
    p = torch.softmax(h @ model.W2.weight.T, dim=1)
    torch.testing.assert_close(model.probabilities(x), p, rtol=1e-12, atol=1e-12)
    assert model(x).shape == (5, 9)
    torch.testing.assert_close(
        model.probabilities(x).sum(1), torch.ones(5, dtype=p.dtype)
    )
    assert model.W2.bias is None  # p = softmax(W2 h): no output bias in the paper


def test_dropout_only_in_training_and_paper_init():
    model = ChenManningParser(ParserConfig(**SIZES, init="paper", dropout=0.5))
    assert all(p.abs().max() <= 0.01 for p in model.parameters())
    x = _features(64, torch.Generator().manual_seed(0))
    model.eval()
    torch.testing.assert_close(model(x), model(x))
    model.train()
    assert not torch.equal(model(x), model(x))
    assert model(x[:0]).shape == (0, 9)  # an empty batch is fine


def test_embed_dropout_drops_the_concatenated_embeddings():
    torch.manual_seed(0)
    config = ParserConfig(**SIZES, embed_dim=4, hidden=6, dropout=0.0)
    plain = ChenManningParser(config)
    dropped = ChenManningParser(
        ParserConfig(**{**config.as_dict(), "embed_dropout": 0.3})
    )
    dropped.load_state_dict(plain.state_dict())
    x = _features(16, torch.Generator().manual_seed(1))
    with torch.no_grad():
        dropped.eval()
        torch.testing.assert_close(dropped(x), plain(x))  # off in eval mode
        dropped.train()
        torch.manual_seed(2)
        out = dropped(x)
        torch.manual_seed(2)  # the same mask, by hand: x -> dropout(x, 0.3) -> W1
        e = torch.cat(
            [
                plain.word_embed(x[:, :18]).flatten(1),
                plain.tag_embed(x[:, 18:36]).flatten(1),
                plain.label_embed(x[:, 36:]).flatten(1),
            ],
            dim=1,
        )
        z = plain.W1(torch.nn.functional.dropout(e, 0.3, training=True))
        torch.testing.assert_close(out, plain.W2(z**3))


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"n_transitions": 8}, r"2L \+ 1 .* L = n_labels - 1 = 4"),
        ({"activation": "tanh"}, r"activation must be one of \('cube', 'relu'\)"),
        ({"dropout": 1.0}, r"dropout must be in \[0, 1\)"),
        ({"embed_dropout": -0.1}, r"embed_dropout must be in \[0, 1\)"),
        ({"hidden": 0}, r"hidden must be a positive int"),
        ({"init": "zeros"}, r"init must be one of"),
    ],
)
def test_config_rejects_bad_values(change, match):
    with pytest.raises(ValueError, match=match):
        ParserConfig(**{**SIZES, **change})


def test_forward_checks_the_feature_shape():
    model = ChenManningParser(ParserConfig(**SIZES))
    with pytest.raises(ValueError, match=r"\(B, 48\) ids; got \(2, 47\)"):
        model(torch.zeros(2, 47, dtype=torch.long))
    assert ParserConfig(**SIZES).as_dict()["hidden"] == 200


def test_the_parser_takes_a_device():
    model = ChenManningParser(ParserConfig(**SIZES), device="meta")
    assert {p.device.type for p in model.parameters()} == {"meta"}

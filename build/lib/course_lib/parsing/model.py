r"""The neural transition classifier of Chen & Manning (2014). Chapter 4.

CS224N lecture 4 and assignment 2; Chen & Manning (2014), "A Fast and Accurate Dependency Parser
using Neural Networks", section 3.1. The 48 feature ids are embedded (d each) and concatenated,
x = [xʷ; xᵗ; xˡ] ∈ ℝ^{48·d}, then one hidden layer and a softmax over the 2L + 1 transitions:

    h = (W₁ʷ xʷ + W₁ᵗ xᵗ + W₁ˡ xˡ + b₁)³        (the cube activation, their eq. 1)
    p = softmax(W₂ h)                            (their eq. 2; no output bias)

One ``nn.Linear`` on the concatenation computes W₁ʷ xʷ + W₁ᵗ xᵗ + W₁ˡ xˡ + b₁ (its weight is
[W₁ʷ W₁ᵗ W₁ˡ] side by side). ``activation="relu"`` replaces the cube for comparison. Training
minimises the cross-entropy of the oracle's transitions with dropout on h (the paper: 0.5) and
a small L2 penalty (weight decay). Initialisation: ``init="paper"`` draws every parameter
uniformly in ±0.01 as the paper does (it then starts the words from pretrained vectors and
trains with AdaGrad); the default ``"xavier"`` (Glorot & Bengio 2010 for W₁, W₂, b₁ = 0,
embeddings N(0, 0.3²)) learns faster from scratch with Adam: after one epoch on EWT train,
81.5 against 79.1 dev UAS (AdaGrad, paper init) and 61 (Adam, paper init, 0.4 epoch).

Shape legend: B configurations, F = 48 features, d embedding size, H hidden units,
K = 2L + 1 transitions.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import Tensor, nn

from course_lib.parsing.features import N_FEATURES

__all__ = ["ACTIVATIONS", "INITS", "ChenManningParser", "ParserConfig"]

ACTIVATIONS = ("cube", "relu")
INITS = ("xavier", "paper")
N_WORD_FEATURES, N_TAG_FEATURES, N_LABEL_FEATURES = 18, 18, 12


def _check_features(features: Tensor) -> None:
    """The parser's input: a (B, 48) tensor of feature ids."""
    if features.dim() != 2 or features.size(1) != N_FEATURES:
        raise ValueError(
            f"features must be (B, {N_FEATURES}) ids; got {tuple(features.shape)}"
        )


@dataclass(frozen=True)
class ParserConfig:
    """Sizes of a :class:`ChenManningParser`; vocab sizes from ``ParserVocabs``.

    n_words, n_tags, n_labels: embedding-table sizes (labels include <null>);
    n_transitions: 2L + 1; embed_dim d; hidden H; activation "cube" | "relu";
    dropout on the hidden layer; embed_dropout on the concatenated embeddings x (0 = none,
    the paper's setting); init: "xavier" | "paper" (see the module docstring).
    """

    n_words: int
    n_tags: int
    n_labels: int
    n_transitions: int
    embed_dim: int = 50
    hidden: int = 200
    activation: str = "cube"
    dropout: float = 0.5
    init: str = "xavier"
    embed_dropout: float = 0.0

    def __post_init__(self) -> None:
        for name in (
            "n_words",
            "n_tags",
            "n_labels",
            "n_transitions",
            "embed_dim",
            "hidden",
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        if self.n_transitions != 2 * (self.n_labels - 1) + 1:
            raise ValueError(
                f"n_transitions must be 2L + 1 for the L = n_labels - 1 = "
                f"{self.n_labels - 1} labels (n_labels counts <null>); got "
                f"{self.n_transitions}"
            )
        if self.activation not in ACTIVATIONS:
            raise ValueError(
                f"activation must be one of {ACTIVATIONS}, got {self.activation!r}"
            )
        if self.init not in INITS:
            raise ValueError(f"init must be one of {INITS}, got {self.init!r}")
        for name in ("dropout", "embed_dropout"):
            if not 0.0 <= getattr(self, name) < 1.0:
                raise ValueError(f"{name} must be in [0, 1), got {getattr(self, name)}")

    @classmethod
    def for_vocabs(cls, vocabs, **sizes) -> ParserConfig:
        """The config whose table sizes match ``vocabs`` (a ``ParserVocabs``)."""
        return cls(
            n_words=len(vocabs.words),
            n_tags=len(vocabs.tags),
            n_labels=vocabs.n_labels,
            n_transitions=len(vocabs.system),
            **sizes,
        )

    def as_dict(self) -> dict:
        """The fields as a plain dict (to save beside the weights)."""
        return asdict(self)


class ChenManningParser(nn.Module):
    """Embeddings for words, tags and labels; h = (W₁x + b₁)³; logits W₂h over the transitions.

    ``forward(features)`` takes the (B, 48) ids of :func:`batch_features` and returns the
    logits (B, K); ``probabilities`` applies the softmax (eq. 2).
    """

    def __init__(
        self, config: ParserConfig, *, device: torch.device | str | None = None
    ) -> None:
        super().__init__()
        self.config = config
        d, dev = config.embed_dim, dict(device=device)
        self.word_embed = nn.Embedding(config.n_words, d, **dev)
        self.tag_embed = nn.Embedding(config.n_tags, d, **dev)
        self.label_embed = nn.Embedding(config.n_labels, d, **dev)
        self.W1 = nn.Linear(N_FEATURES * d, config.hidden, **dev)
        self.W2 = nn.Linear(config.hidden, config.n_transitions, bias=False, **dev)
        self.dropout = nn.Dropout(config.dropout)
        self.embed_dropout = nn.Dropout(config.embed_dropout)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Initialise every parameter as ``config.init`` says."""
        if self.config.init == "paper":
            for p in self.parameters():
                nn.init.uniform_(p, -0.01, 0.01)
            return
        for table in (self.word_embed, self.tag_embed, self.label_embed):
            nn.init.normal_(table.weight, 0.0, 0.3)
        nn.init.xavier_uniform_(self.W1.weight)
        nn.init.zeros_(self.W1.bias)
        nn.init.xavier_uniform_(self.W2.weight)

    def forward(self, features: Tensor) -> Tensor:
        """Logits of the transitions (Chen & Manning eq. 1). (B, 48) long -> (B, K)."""
        _check_features(features)
        xw = self.word_embed(features[:, :18]).flatten(1)  # (B, 18·d)
        xt = self.tag_embed(features[:, 18:36]).flatten(1)  # (B, 18·d)
        xl = self.label_embed(features[:, 36:]).flatten(1)  # (B, 12·d)
        x = self.embed_dropout(torch.cat([xw, xt, xl], dim=1))  # (B, 48·d)
        z = self.W1(x)  # (B, H)
        h = z.pow(3) if self.config.activation == "cube" else torch.relu(z)  # (B, H)
        return self.W2(self.dropout(h))  # (B, K)

    def probabilities(self, features: Tensor) -> Tensor:
        """p = softmax(W₂h) (Chen & Manning eq. 2). (B, 48) -> (B, K), rows sum to 1."""
        return self(features).softmax(dim=-1)  # (B, K)

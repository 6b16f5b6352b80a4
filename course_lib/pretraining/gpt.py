r"""A small GPT: a decoder-only Transformer language model (CS224N lecture 9). Chapter 9.

Radford et al. (2018, 2019): token embeddings + learned positions -> L pre-LN blocks
(causal self-attention, FFN; Xiong et al., 2020) -> a final LayerNorm -> logits, with the
output matrix tied to the embeddings (Press & Wolf, 2017). The blocks are Chapter 8's
:class:`~course_lib.transformer.EncoderLayer` (self-attention and FFN, the same
:class:`~course_lib.transformer.MultiHeadAttention`) run with a causal mask and a cache.

Pretraining objective, next-token prediction (the causal LM loss):

    J(θ) = -(1/T) Σ_t log P_θ(x_{t+1} | x_{≤t}).

The KV cache: every layer's keys and values of the tokens seen so far, ``past`` (a list of
L pairs (B, H, T_past, d_k)), are passed in and returned, never stored on the model. A
prefix (prefix tuning, :mod:`course_lib.pretraining.prefix`) is a cache of P virtual tokens:
the new tokens attend to the P + T keys and take positions P … P + T − 1.

Shape legend: B batch, T new tokens, P cached (past) tokens, D model width, H heads,
d_k = D / H, V vocabulary, L layers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from course_lib.decoding.protocol import select_rows
from course_lib.pretraining.common import (
    at_least_float32,
    check_sizes,
    embeddings_and_blocks,
)
from course_lib.training import evaluating
from course_lib.transformer.attention import KV
from course_lib.transformer.layers import EncoderLayer
from course_lib.transformer.token_ids import check_token_ids

__all__ = [
    "GPT",
    "GPTBlock",
    "GPTConfig",
    "GPTOutput",
    "GPTState",
]

Cache = list[KV]


@dataclass(frozen=True)
class GPTConfig:
    """Sizes of a GPT; GPT-2 small is d_model=768, n_heads=12, d_ff=3072, 12 layers."""

    vocab_size: int
    d_model: int = 128
    n_heads: int = 4
    d_ff: int = 512
    n_layers: int = 4
    max_len: int = 128  # the context: positions 0 … max_len − 1
    dropout: float = 0.1
    pad_id: int | None = None  # labels equal to it are ignored by the loss
    fast: bool = False  # F.scaled_dot_product_attention (the gpu profile's path)

    def __post_init__(self) -> None:
        check_sizes(self)


class GPTOutput(NamedTuple):
    """What :meth:`GPT.forward` returns: logits, each layer's weights, the new cache."""

    logits: Tensor  # (B, T, V)
    weights: list[Tensor | None]  # L × (B, H, T, P + T), None on the fast path
    cache: Cache  # L × (keys, values) (B, H, P + T, d_k)


class GPTBlock(EncoderLayer):
    """One pre-LN decoder-only block: x + Attn(LN(x)) then x + FFN(LN(x)). Chapter 9.

    Chapter 8's encoder layer with a key/value cache: ``past_kv`` (B, H, P, d_k) pairs
    are prepended to the keys and values, and the pair for P + T tokens comes back.
    """

    def forward(  # type: ignore[override]
        self,
        x: Tensor,
        mask: Tensor | None = None,
        *,
        past_kv: KV | None = None,
        fast: bool | None = None,
    ) -> tuple[Tensor, Tensor | None, KV]:
        a, w, kv = self.self_attn(
            self.norm1(x), mask=mask, past_kv=past_kv, fast=fast
        )  # (B, T, D)
        x = x + self.dropout1(a)  # (B, T, D)
        x = x + self.dropout2(self.ffn(self.norm2(x)))  # (B, T, D)
        return x, w, kv


@dataclass
class GPTState:
    """The decoding state, one row per sequence: tokens fed so far, the cache, the prefix.

    ``past`` is a fixed prefix (prefix tuning) that every step attends to; with
    ``use_cache`` each step feeds one token and extends ``cache`` (which starts as
    ``past``), without it each step re-runs the model over ``tokens``.
    """

    tokens: Tensor  # (N, t)
    cache: Cache | None = None
    past: Cache | None = None
    use_cache: bool = True


class GPT(nn.Module):
    """Decoder-only Transformer LM: ``forward`` (logits), ``loss``, ``step``/``reorder``."""

    def __init__(self, config: GPTConfig, *, device: torch.device | str | None = None):
        super().__init__()
        c = self.config = config
        self.embed, self.pos, self.blocks, self.norm = embeddings_and_blocks(
            c, GPTBlock, device
        )

    def _check_features(self, tokens: Tensor, past: Cache | None) -> int:
        """The checks of :meth:`features`: (B, T) ids, a cache that fits, T within the
        context. Returns P, the number of cached positions."""
        check_token_ids(tokens, self.config.vocab_size)
        B, T = tokens.shape
        P = self._check_past(past, B, T)
        if T > self.config.max_len:
            raise ValueError(
                f"{T} tokens exceed the context max_len={self.config.max_len}; "
                "split the text into blocks of at most max_len tokens"
            )
        return P

    def _check_past(self, past: Cache | None, B: int, T: int) -> int:
        if past is None:
            return 0
        if len(past) != self.config.n_layers:
            raise ValueError(
                f"past must hold one (keys, values) pair per layer "
                f"({self.config.n_layers}); got {len(past)}"
            )
        P = past[0][0].size(2)
        if P + T > self.config.max_len:
            raise ValueError(
                f"{P} cached/prefix positions + {T} tokens = {P + T} exceed the context "
                f"max_len={self.config.max_len}; shorten the prefix or the input"
            )
        if past[0][0].size(0) not in (B,):
            raise ValueError(f"past has {past[0][0].size(0)} rows for a batch of {B}")
        return P

    def features(
        self, tokens: Tensor, *, past: Cache | None = None, fast: bool | None = None
    ) -> tuple[Tensor, list[Tensor | None], Cache]:
        """tokens (B, T) -> the final hidden states (B, T, D), weights and the cache.

        past: the cache (or prefix) of P earlier positions; the tokens take positions
        P … P + T − 1 and see every earlier key (mask (T, P + T), lower-triangular from
        column P).
        """
        P = self._check_features(tokens, past)
        T = tokens.size(1)
        mask = torch.ones(T, P + T, dtype=torch.bool, device=tokens.device)  # (T, P+T)
        mask = mask.tril(diagonal=P)  # (T, P + T): causal, every past key visible
        x = self.pos(self.embed(tokens), offset=P)  # (B, T, D)
        weights, cache = [], []
        for i, block in enumerate(self.blocks):
            kv_past = None if past is None else past[i]
            x, w, kv = block(x, mask, past_kv=kv_past, fast=fast)  # (B, T, D)
            weights.append(w)
            cache.append(kv)
        return self.norm(x), weights, cache  # (B, T, D)

    def forward(
        self, tokens: Tensor, *, past: Cache | None = None, fast: bool | None = None
    ) -> GPTOutput:
        """tokens (B, T) -> logits (B, T, V) of the next token at every position, with
        each layer's weights and the cache for P + T positions (see :meth:`features`)."""
        hidden, weights, cache = self.features(tokens, past=past, fast=fast)
        logits = hidden @ self.embed.weight.T  # (B, T, V): tied output matrix
        return GPTOutput(logits, weights, cache)

    def loss(
        self, tokens: Tensor, *, past: Cache | None = None, reduction: str = "mean"
    ) -> Tensor:
        """Next-token cross-entropy: predict tokens[:, 1:] from tokens[:, :-1].

        Labels equal to ``config.pad_id`` are ignored. ``reduction="sum"`` gives the
        total negative log-likelihood in nats (for perplexity per token and per word).
        """
        check_token_ids(tokens, self.config.vocab_size)
        if tokens.size(1) < 2:
            raise ValueError(f"tokens must have T >= 2; got {tuple(tokens.shape)}")
        logits = self(tokens[:, :-1], past=past).logits  # (B, T-1, V)
        ignore = -100 if self.config.pad_id is None else self.config.pad_id
        return F.cross_entropy(
            at_least_float32(logits.reshape(-1, logits.size(-1))),  # (B·(T-1), V)
            tokens[:, 1:].reshape(-1),  # (B·(T-1),)
            ignore_index=ignore,
            reduction=reduction,
        )

    def start(
        self, batch_size: int, *, past: Cache | None = None, use_cache: bool = True
    ) -> GPTState:
        """The state before the first token of ``batch_size`` rows (after ``past``)."""
        device = self.embed.weight.device
        empty = torch.empty(batch_size, 0, dtype=torch.long, device=device)  # (N, 0)
        return GPTState(empty, past if use_cache else None, past, use_cache)

    def step(self, tokens: Tensor, state: GPTState | None) -> tuple[Tensor, GPTState]:
        """Decoding protocol: tokens (N,) -> log P(x_{t+1} | x_{≤t}) (N, V), new state."""
        if state is None:
            state = self.start(tokens.size(0))
        fed = torch.cat([state.tokens, tokens[:, None]], dim=1)  # (N, t)
        if state.use_cache:
            out = self(tokens[:, None], past=state.cache)  # logits (N, 1, V)
            cache = out.cache
        else:
            out = self(fed, past=state.past)  # logits (N, t, V)
            cache = None
        logits = at_least_float32(out.logits[:, -1])  # (N, V)
        new = GPTState(fed, cache, state.past, state.use_cache)
        return logits.log_softmax(-1), new  # (N, V)

    def reorder(self, state: GPTState, rows: Tensor) -> GPTState:
        """Decoding protocol: keep, repeat or drop rows (N',) of the state and cache."""
        return select_rows(state, rows)

    def attention(self, tokens: Tensor) -> Tensor:
        """Every layer's and head's weights for one batch (teaching path, eval mode):
        (L, B, H, T, T), for Chapter 8's head view."""
        with evaluating(self), torch.no_grad():
            weights = self(tokens, fast=False).weights
        return torch.stack(weights)  # (L, B, H, T, T)

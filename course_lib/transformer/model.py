"""The encoder-decoder Transformer for translation (Vaswani et al., 2017, Figure 1). Chapter 8.

CS224N lecture 8. Source tokens -> embeddings + positions -> N encoder layers -> memory;
target tokens (shifted right, starting with <bos>) -> embeddings + positions -> N decoder
layers (masked self-attention, cross-attention to the memory, FFN) -> logits over V_tgt.

Masks: encoder self-attention and cross-attention hide the source's padding; decoder
self-attention hides the future and the target's padding. The loss is cross-entropy over
the flattened logits (B·T, V) with padding ignored.

Decoding one token at a time reuses every layer's keys and values (the KV cache), passed in
and returned explicitly: nothing is stored on the model.

Shape legend: B batch, S source length, T target length, D model width, V vocabulary,
L layers, H heads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from course_lib.decoding.protocol import select_rows
from course_lib.training import evaluating
from course_lib.transformer.attention import KV
from course_lib.transformer.layers import DecoderLayer, EncoderLayer
from course_lib.transformer.masks import decoder_mask, padding_mask
from course_lib.transformer.positional import (
    LearnedPositionalEncoding,
    SinusoidalPositionalEncoding,
)
from course_lib.transformer.token_ids import check_token_ids

__all__ = ["DecodeState", "Encoded", "Transformer", "TransformerConfig"]

Cache = list[dict[str, KV]]


@dataclass(frozen=True)
class TransformerConfig:
    """Sizes of a Transformer; the 2017 "base" model is d_model=512, n_heads=8, d_ff=2048, 6+6."""

    src_vocab: int
    tgt_vocab: int
    d_model: int = 128
    n_heads: int = 4
    d_ff: int = 512
    n_encoder_layers: int = 3
    n_decoder_layers: int = 3
    dropout: float = 0.1
    norm_first: bool = True
    positional: str = "sinusoidal"  # or "learned"
    max_len: int = 256  # rows of a learned table
    pad_id: int = 0
    bos_id: int = 2
    eos_id: int = 3
    label_smoothing: float = 0.1
    fast: bool = False  # F.scaled_dot_product_attention (no weights returned)

    def __post_init__(self) -> None:
        if self.d_model % self.n_heads:
            raise ValueError(
                f"d_model must be divisible by n_heads; got {self.d_model}, {self.n_heads}"
            )
        if self.positional not in ("sinusoidal", "learned"):
            raise ValueError(
                f"positional must be 'sinusoidal' or 'learned'; got {self.positional!r}"
            )
        for name in ("src_vocab", "tgt_vocab", "n_encoder_layers", "n_decoder_layers"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1; got {getattr(self, name)}")


class Encoded(NamedTuple):
    """The encoder's output and what the decoder needs with it."""

    memory: Tensor  # (B, S, D)
    src_mask: Tensor  # (B, 1, 1, S), True = real token
    weights: list[Tensor | None]  # L × (B, H, S, S)


@dataclass
class DecodeState:
    """The decoder's state while decoding, one row per hypothesis.

    ``prefix`` (N, t) holds the tokens fed so far. With ``use_cache`` each step feeds only
    the newest token and reuses ``cache`` (every layer's keys and values); without it each
    step re-runs the decoder over the whole prefix, O(t) work per step instead of O(1).
    """

    enc: Encoded
    prefix: Tensor  # (N, t)
    cache: Cache | None = None
    use_cache: bool = True


def _check_target(tgt: Tensor) -> None:
    """A loss needs (B, T >= 2) targets: <bos> and at least one token to predict."""
    if tgt.dim() != 2 or tgt.size(1) < 2:
        raise ValueError(
            f"tgt must be (B, T >= 2) with <bos> first; got {tuple(tgt.shape)}"
        )


class Transformer(nn.Module):
    """Encoder-decoder Transformer: ``encode``, ``decode``, ``forward`` (logits), ``loss``."""

    def __init__(
        self, config: TransformerConfig, *, device: torch.device | str | None = None
    ) -> None:
        super().__init__()
        c = self.config = config
        self.src_embed = nn.Embedding(c.src_vocab, c.d_model, device=device)
        self.tgt_embed = nn.Embedding(c.tgt_vocab, c.d_model, device=device)
        for emb in (self.src_embed, self.tgt_embed):
            nn.init.normal_(emb.weight, std=c.d_model**-0.5)
        if c.positional == "learned":
            self.src_pos = LearnedPositionalEncoding(
                c.max_len, c.d_model, dropout=c.dropout, device=device
            )
            self.tgt_pos = LearnedPositionalEncoding(
                c.max_len, c.d_model, dropout=c.dropout, device=device
            )
        else:
            self.src_pos = SinusoidalPositionalEncoding(
                c.d_model, dropout=c.dropout, device=device
            )
            self.tgt_pos = SinusoidalPositionalEncoding(
                c.d_model, dropout=c.dropout, device=device
            )
        kw = dict(
            dropout=c.dropout, norm_first=c.norm_first, fast=c.fast, device=device
        )
        self.encoder = nn.ModuleList(
            EncoderLayer(c.d_model, c.n_heads, c.d_ff, **kw)
            for _ in range(c.n_encoder_layers)
        )
        self.decoder = nn.ModuleList(
            DecoderLayer(c.d_model, c.n_heads, c.d_ff, **kw)
            for _ in range(c.n_decoder_layers)
        )
        # pre-LN leaves the residual stream un-normalised: one LayerNorm at each stack's end
        self.encoder_norm = (
            nn.LayerNorm(c.d_model, device=device) if c.norm_first else None
        )
        self.decoder_norm = (
            nn.LayerNorm(c.d_model, device=device) if c.norm_first else None
        )
        self.generator = nn.Linear(c.d_model, c.tgt_vocab, device=device)

    def encode(self, src: Tensor, *, fast: bool | None = None) -> Encoded:
        """src: (B, S) ids -> memory (B, S, D), the padding mask and each layer's weights."""
        check_token_ids(src, self.config.src_vocab, "src")
        src_mask = padding_mask(src, self.config.pad_id)  # (B, 1, 1, S)
        x = self.src_pos(self.src_embed(src))  # (B, S, D)
        weights = []
        for layer in self.encoder:
            x, w = layer(x, src_mask, fast=fast)  # (B, S, D)
            weights.append(w)
        if self.encoder_norm is not None:
            x = self.encoder_norm(x)  # (B, S, D)
        return Encoded(x, src_mask, weights)

    def decode(
        self,
        tgt: Tensor,
        enc: Encoded,
        *,
        cache: Cache | None = None,
        fast: bool | None = None,
    ) -> tuple[Tensor, dict[str, list], Cache]:
        """tgt: (B, T) ids (shifted right) -> logits (B, T, V), weights, the new cache.

        With ``cache`` (the list a previous call returned), ``tgt`` holds only the new
        tokens: positions continue from the cached length, and the keys/values of the
        earlier tokens and of the memory are reused, not recomputed.
        """
        check_token_ids(tgt, self.config.tgt_vocab, "tgt")
        past = 0 if cache is None else cache[0]["self"][0].size(2)
        T = tgt.size(1)
        if cache is None:
            self_mask = decoder_mask(tgt, self.config.pad_id)  # (B, 1, T, T)
        else:  # the new queries see every cached key and the new ones up to themselves
            self_mask = torch.ones(T, past + T, dtype=torch.bool, device=tgt.device)
            self_mask = self_mask.tril(diagonal=past)  # (T, past + T)
        y = self.tgt_pos(self.tgt_embed(tgt), offset=past)  # (B, T, D)
        weights: dict[str, list] = {"self": [], "cross": []}
        new_cache: Cache = []
        for i, layer in enumerate(self.decoder):
            out = layer(
                y,
                enc.memory,
                self_mask=self_mask,
                cross_mask=enc.src_mask,
                cache=None if cache is None else cache[i],
                fast=fast,
            )
            y = out.y  # (B, T, D): each layer feeds the next
            weights["self"].append(out.self_weights)
            weights["cross"].append(out.cross_weights)
            new_cache.append(out.cache)
        if self.decoder_norm is not None:
            y = self.decoder_norm(y)  # (B, T, D)
        return self.generator(y), weights, new_cache  # (B, T, V)

    def start(
        self, src: Tensor, src_lens: Tensor | None = None, *, use_cache: bool = True
    ) -> DecodeState:
        """Encode src (B, S) once: the state before <bos> for :mod:`course_lib.decoding`.

        ``src_lens`` is not needed (the padding mask comes from ``pad_id``); it is accepted
        so that every translation model starts the same way.
        """
        memory, src_mask, _ = self.encode(src)
        prefix = src.new_empty(src.size(0), 0)  # (B, 0)
        return DecodeState(Encoded(memory, src_mask, []), prefix, None, use_cache)

    def step(self, tokens: Tensor, state: DecodeState) -> tuple[Tensor, DecodeState]:
        """Decoding protocol: tokens (N,) -> log P(y_t | y_<t, x) (N, V), new state.

        <pad> and <bos> are never generated: their probability is set to 0.
        """
        prefix = torch.cat([state.prefix, tokens[:, None]], dim=1)  # (N, t)
        if state.use_cache:
            logits, _, cache = self.decode(
                tokens[:, None], state.enc, cache=state.cache
            )
        else:
            logits, _, _ = self.decode(prefix, state.enc)  # (N, t, V)
            cache = None
        new = DecodeState(state.enc, prefix, cache, state.use_cache)
        return self.log_probs(logits[:, -1]), new  # (N, V)

    def log_probs(self, logits: Tensor) -> Tensor:
        """The decoding protocol's log P(y_t | y_<t, x) from logits (..., V): at least
        float32, with <pad> and <bos> never generated (their probability set to 0)."""
        logits = logits.to(torch.promote_types(logits.dtype, torch.float32)).clone()
        logits[..., [self.config.pad_id, self.config.bos_id]] = float("-inf")
        return logits.log_softmax(-1)  # (..., V)

    def reorder(self, state: DecodeState, rows: Tensor) -> DecodeState:
        """Decoding protocol: keep, repeat or drop rows (N',) of the state and its cache."""
        return select_rows(state, rows)

    def forward(
        self, src: Tensor, tgt_in: Tensor, *, fast: bool | None = None
    ) -> Tensor:
        """Teacher forcing: src (B, S), tgt_in (B, T) -> logits (B, T, V)."""
        enc = self.encode(src, fast=fast)
        logits, _, _ = self.decode(tgt_in, enc, fast=fast)  # (B, T, V)
        return logits

    def attention(self, src: Tensor, tgt_in: Tensor) -> dict[str, Tensor]:
        """Every layer's and head's weights for one batch (teaching path, eval mode).

        Returns {"encoder": (L, B, H, S, S), "decoder": (L, B, H, T, T),
        "cross": (L, B, H, T, S)}, for the head view.
        """
        with evaluating(self), torch.no_grad():
            enc = self.encode(src, fast=False)
            _, w, _ = self.decode(tgt_in, enc, fast=False)
        return {
            "encoder": torch.stack(enc.weights),  # (L, B, H, S, S)
            "decoder": torch.stack(w["self"]),  # (L, B, H, T, T)
            "cross": torch.stack(w["cross"]),  # (L, B, H, T, S)
        }

    def loss(self, src: Tensor, tgt: Tensor, *, fast: bool | None = None) -> Tensor:
        """Mean cross-entropy of tgt[:, 1:] given tgt[:, :-1] (tgt starts with <bos>).

        The logits (B, T, V) are flattened to (B·T, V) and the targets to (B·T,); padding
        positions are ignored; ``label_smoothing`` from the config (Szegedy et al., 2016).
        """
        _check_target(tgt)
        logits = self(src, tgt[:, :-1], fast=fast)  # (B, T-1, V)
        return F.cross_entropy(
            logits.reshape(-1, logits.size(-1)),  # (B·(T-1), V)
            tgt[:, 1:].reshape(-1),  # (B·(T-1),)
            ignore_index=self.config.pad_id,
            label_smoothing=self.config.label_smoothing if self.training else 0.0,
        )

r"""Prefix tuning: a frozen GPT steered by learned per-layer keys and values. Chapter 9.

Li & Liang (2021), "Prefix-Tuning: Optimizing Continuous Prompts for Generation";
CS224N lecture 9. Every layer l of the frozen model attends, before the T real tokens, to
P learned key and value vectors: the attention of layer l runs over P + T keys,

    head_h = softmax(Q [K_prefix^l ; K^l]ᵀ / √d_k) [V_prefix^l ; V^l],

and the real tokens take positions P … P + T − 1 (the prefix is a KV cache of P virtual
tokens, :class:`~course_lib.pretraining.gpt.GPT`'s ``past``). Only the prefix trains:
P × L × 2 × D numbers. Li & Liang found optimising them directly unstable and
reparameterise P_θ = MLP_θ(P'_θ), a smaller matrix P' (P × k) through a two-layer MLP
(§4.3); after training the MLP is dropped (:meth:`PrefixTuning.merge`) and P_θ kept.

:class:`HeadOnly` is the baseline that trains a new output layer over the frozen model.
:func:`prefix_attention` measures how much of each layer's attention the prefix takes.

Shape legend: B batch, T tokens, P prefix length, L layers, D width, H heads, d_k = D/H,
k the reparameterisation width, V vocabulary.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn

from course_lib.pretraining.common import at_least_float32
from course_lib.pretraining.gpt import GPT, Cache, GPTOutput, GPTState
from course_lib.training import evaluating

__all__ = [
    "HeadOnly",
    "PrefixTuning",
    "freeze",
    "prefix_attention",
    "trainable_count",
]


def freeze(model: nn.Module) -> nn.Module:
    """Turn off gradients of every parameter of ``model``; returns it."""
    for p in model.parameters():
        p.requires_grad_(False)
    return model


def trainable_count(model: nn.Module) -> int:
    """How many numbers an optimiser of ``model``'s trainable parameters updates."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


class PrefixTuning(nn.Module):
    """A frozen :class:`GPT` with a learned prefix of ``prefix_len`` virtual tokens.

    reparam_dim (k) and hidden: the MLP P' (P, k) -> tanh(P' W_1) W_2 (P, L·2·D) that
    produces the prefix while training; ``merge()`` replaces it by the (P, L, 2, D) result.
    """

    def __init__(
        self,
        gpt: GPT,
        prefix_len: int,
        *,
        reparam_dim: int = 32,
        hidden: int = 128,
        device: torch.device | str | None = None,
    ) -> None:
        super().__init__()
        c = gpt.config
        if not isinstance(prefix_len, int) or prefix_len < 0:
            raise ValueError(f"prefix_len must be an int >= 0; got {prefix_len!r}")
        if prefix_len >= c.max_len:
            raise ValueError(
                f"a prefix of {prefix_len} leaves no room in the context of "
                f"max_len={c.max_len}; choose prefix_len < {c.max_len}"
            )
        self.gpt = freeze(gpt)
        self.prefix_len, self.L, self.D = prefix_len, c.n_layers, c.d_model
        self.prefix_input = nn.Parameter(
            torch.randn(prefix_len, reparam_dim, device=device)
        )  # (P, k)
        self.mlp: nn.Sequential | None = nn.Sequential(
            nn.Linear(reparam_dim, hidden, device=device),
            nn.Tanh(),
            nn.Linear(hidden, self.L * 2 * self.D, device=device),
        )
        self.prefix: nn.Parameter | None = None  # (P, L, 2, D) after merge()

    def table(self) -> Tensor:
        """The prefix P_θ: (P, L, 2, D), from the MLP or, after ``merge``, stored."""
        if self.prefix is not None:
            return self.prefix
        return self.mlp(self.prefix_input).view(self.prefix_len, self.L, 2, self.D)

    @torch.no_grad()
    def merge(self) -> PrefixTuning:
        """Drop the reparameterisation: keep P_θ (P, L, 2, D) as the only parameter."""
        self.prefix = nn.Parameter(self.table().detach().clone())
        self.mlp, self.prefix_input = None, None
        return self

    @torch.no_grad()
    def set_prefix(self, cache: Cache) -> PrefixTuning:
        """Set P_θ to given keys and values: L pairs (1, H, P, d_k), e.g. a GPT's cache
        of P real tokens (then the prefix acts exactly as those tokens prepended)."""
        keys = torch.stack(
            [self.gpt.blocks[0].self_attn.merge_heads(k) for k, _ in cache]
        )
        vals = torch.stack(
            [self.gpt.blocks[0].self_attn.merge_heads(v) for _, v in cache]
        )
        table = torch.stack([keys, vals], dim=2)[:, 0]  # (L, 2, P, D)
        if table.shape != (self.L, 2, self.prefix_len, self.D):
            raise ValueError(
                f"cache gives a prefix of shape {tuple(table.shape)}; expected "
                f"{(self.L, 2, self.prefix_len, self.D)}"
            )
        self.prefix = nn.Parameter(table.permute(2, 0, 1, 3).contiguous())  # (P,L,2,D)
        self.mlp, self.prefix_input = None, None
        return self

    def past(self, batch_size: int) -> Cache | None:
        """The prefix as a KV cache for ``batch_size`` rows: L pairs (B, H, P, d_k)."""
        if self.prefix_len == 0:
            return None
        attn = self.gpt.blocks[0].self_attn
        table = self.table()  # (P, L, 2, D)
        cache = []
        for layer in range(self.L):
            kv = table[:, layer].transpose(0, 1)  # (2, P, D)
            kv = kv[:, None].expand(2, batch_size, self.prefix_len, self.D)  # (2,B,P,D)
            cache.append((attn.split_heads(kv[0]), attn.split_heads(kv[1])))
        return cache  # L × (B, H, P, d_k)

    def forward(self, tokens: Tensor) -> GPTOutput:
        """tokens (B, T) -> the frozen GPT's output with the prefix in every layer."""
        return self.gpt(tokens, past=self.past(tokens.size(0)))  # logits (B, T, V)

    def step(self, tokens: Tensor, state: GPTState | None) -> tuple[Tensor, GPTState]:
        """Decoding protocol: the GPT's step, starting from the prefix cache."""
        if state is None:
            state = self.gpt.start(tokens.size(0), past=self.past(tokens.size(0)))
        return self.gpt.step(tokens, state)

    def reorder(self, state: GPTState, rows: Tensor) -> GPTState:
        """Decoding protocol: the GPT's reorder."""
        return self.gpt.reorder(state, rows)


class HeadOnly(nn.Module):
    """A frozen :class:`GPT` with a new, trained output layer (D -> V), initialised from
    the tied embeddings: the baseline that adapts only the last linear map."""

    def __init__(self, gpt: GPT, *, device: torch.device | str | None = None) -> None:
        super().__init__()
        self.gpt = freeze(gpt)
        c = gpt.config
        self.head = nn.Linear(c.d_model, c.vocab_size, device=device)
        with torch.no_grad():
            self.head.weight.copy_(gpt.embed.weight)
            self.head.bias.zero_()

    def forward(self, tokens: Tensor, *, past: Cache | None = None) -> GPTOutput:
        """tokens (B, T) -> logits (B, T, V) from the new head."""
        hidden, weights, cache = self.gpt.features(tokens, past=past)  # (B, T, D)
        return GPTOutput(self.head(hidden), weights, cache)  # (B, T, V)

    def step(self, tokens: Tensor, state: GPTState | None) -> tuple[Tensor, GPTState]:
        """Decoding protocol over the new head (cached)."""
        if state is None:
            state = self.gpt.start(tokens.size(0))
        out = self(tokens[:, None], past=state.cache)  # logits (N, 1, V)
        fed = torch.cat([state.tokens, tokens[:, None]], dim=1)  # (N, t)
        new = GPTState(fed, out.cache, state.past, True)
        return at_least_float32(out.logits[:, -1]).log_softmax(-1), new  # (N, V)

    def reorder(self, state: GPTState, rows: Tensor) -> GPTState:
        """Decoding protocol: the GPT's reorder."""
        return self.gpt.reorder(state, rows)


def prefix_attention(
    model: PrefixTuning,
    prompts: Sequence[Sequence[int]],
    *,
    device: torch.device | str | None = None,
) -> Tensor:
    """The share of each layer's attention that goes to the P prefix keys: (L,), the
    mean over heads, positions and ``prompts`` (each a list of token ids), in eval mode
    on the teaching path (which returns the weights)."""
    shares = torch.zeros(model.L)
    with torch.no_grad(), evaluating(model):
        for prompt in prompts:
            ids = torch.tensor([list(prompt)], device=device)  # (1, T)
            out = model.gpt(ids, past=model.past(1), fast=False)
            for layer, w in enumerate(out.weights):  # (1, H, T, P + T)
                shares[layer] += w[..., : model.prefix_len].sum(-1).mean().item()
    return shares / len(prompts)

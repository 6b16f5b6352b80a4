"""What the residual connections and the feed-forward sub-layer add: ablations. Chapter 8.

CS224N lecture 8; the degradation argument of He et al. (2016): a deeper *plain* stack
should do at least as well as a shallower one (its extra layers could be the identity), yet
in practice its *training* loss is higher: plain layers find the identity hard to learn.
A residual connection, x + f(x), makes the identity the default (f = 0).

``AblationLayer`` is the pre-LN encoder layer of :mod:`course_lib.transformer.layers` with
two switches: ``residual=False`` drops the "x +" of both sub-layers, ``ffn=False`` drops the
feed-forward sub-layer. With both on it equals :class:`EncoderLayer` (tested).
``ablation_experiment`` trains a stack of them on the chapter's sorting task.
``head_ablation`` removes the heads of a trained model one at a time (Michel et al., 2019).

Shape legend: B batch, T length, D model width, H heads.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor, nn

from course_lib.runtime import run_seed
from course_lib.training import evaluating, fit
from course_lib.transformer.attention import MultiHeadAttention
from course_lib.transformer.layers import FeedForward
from course_lib.transformer.train import SortStack, sort_batches

__all__ = ["AblationLayer", "ablation_experiment", "head_ablation"]


class AblationLayer(nn.Module):
    """Pre-LN encoder layer with switches: x ← [x +] Attn(LN(x)), then x ← [x +] FFN(LN(x)).

    ``residual``: keep the "x +" (Vaswani et al., 2017, §3.1); ``ffn``: keep the
    feed-forward sub-layer (eq. 2). forward(x (B, T, D)) -> (x (B, T, D), weights
    (B, H, T, T)). No dropout: the ablations compare training losses.
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        d_ff: int,
        *,
        residual: bool = True,
        ffn: bool = True,
        device: torch.device | str | None = None,
    ) -> None:
        super().__init__()
        self.residual, self.has_ffn = residual, ffn
        self.self_attn = MultiHeadAttention(d_model, n_heads, device=device)
        self.norm1 = nn.LayerNorm(d_model, device=device)
        if ffn:
            self.ffn = FeedForward(d_model, d_ff, device=device)
            self.norm2 = nn.LayerNorm(d_model, device=device)

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor]:
        a, w, _ = self.self_attn(self.norm1(x))  # (B, T, D)
        x = x + a if self.residual else a  # (B, T, D)
        if self.has_ffn:
            f = self.ffn(self.norm2(x))  # (B, T, D)
            x = x + f if self.residual else f  # (B, T, D)
        return x, w


def ablation_experiment(
    *,
    residual: bool = True,
    ffn: bool = True,
    n_layers: int = 8,
    d_model: int = 64,
    n_heads: int = 4,
    steps: int = 100,
    lr: float = 1e-3,
    batch_size: int = 32,
    length: int = 12,
    vocab: int = 16,
    seed: int = 0,
    device: torch.device | str | None = None,
) -> dict[str, list[float] | int]:
    """Train ``n_layers`` ablation layers to sort digits (the same data for every switch).

    Returns {"loss": the training loss per step, "n_params": the parameter count}.
    """
    if n_layers < 1 or steps < 1:
        raise ValueError(f"n_layers and steps must be >= 1; got {n_layers}, {steps}")
    torch.manual_seed(run_seed(seed))
    model = SortStack(
        lambda: AblationLayer(
            d_model, n_heads, 4 * d_model, residual=residual, ffn=ffn
        ),
        n_layers,
        vocab,
        d_model,
        final_norm=True,
    ).to(device)
    batches = sort_batches(steps, batch_size, length, vocab, seed=seed, device=device)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    hist = fit(model, batches, optimizer=opt, epochs=1, progress=False, device=device)
    return {
        "loss": hist.step_loss,
        "n_params": sum(p.numel() for p in model.parameters()),
    }


@torch.no_grad()
def head_ablation(
    model: nn.Module, loss: Callable[[], Tensor | float]
) -> tuple[float, dict[str, Tensor]]:
    """What each attention head of a trained model costs when it is removed.

    For every ``MultiHeadAttention`` of ``model`` and every head h, sets the module's
    ``head_mask`` to ones with a 0 at h (head_h W_O^h leaves the output, Vaswani et al.,
    eq. 4), calls ``loss()`` (in eval mode) and subtracts the loss with every head (Michel
    et al., 2019, ablate heads this way). Returns (the full model's loss, {module name,
    e.g. "encoder.0.self_attn": the (H,) increases of the loss}). Masks are removed after.
    """
    modules = {
        n: m for n, m in model.named_modules() if isinstance(m, MultiHeadAttention)
    }
    with evaluating(model):
        try:
            base = float(loss())
            costs = {}
            for name, mha in modules.items():
                row = torch.zeros(mha.n_heads)  # (H,)
                for h in range(mha.n_heads):
                    mha.head_mask = torch.ones(mha.n_heads)
                    mha.head_mask[h] = 0.0
                    row[h] = float(loss()) - base
                mha.head_mask = None
                costs[name] = row
        finally:
            for mha in modules.values():
                mha.head_mask = None
    return base, costs

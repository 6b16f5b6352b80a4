"""Training the Transformer: data to batches, the warm-up schedule, fitting, translating. Chapter 8.

CS224N lecture 8. Sentences are tokenised, numbered and batched exactly as in Chapter 7, by
:mod:`course_lib.seq2seq.translation` (``make_batches``; ``translate`` decodes either model).
Training uses ``course_lib.training.fit`` with Adam and the warm-up schedule of
Vaswani et al. (2017, eq. 3): linear warm-up, then decay as 1/√step.

``stack_experiment`` trains a deep stack of encoder layers, pre-LN or post-LN, on a toy
sorting task and records the loss and gradient norms (Xiong et al., 2020).

Shape legend: B batch, S source length, T target length, D model width.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import Tensor, nn

from course_lib.runtime import run_seed
from course_lib.seq2seq.translation import Batch
from course_lib.training import History, fit
from course_lib.transformer.layers import EncoderLayer
from course_lib.transformer.model import Transformer
from course_lib.transformer.positional import SinusoidalPositionalEncoding

__all__ = [
    "SortStack",
    "noam_lambda",
    "sort_batches",
    "stack_experiment",
    "train_translation",
]


def noam_lambda(warmup: int):
    """The shape of Vaswani eq. 3 as a ``LambdaLR`` factor, 1 at its peak: min(s/w, √(w/s)).

    Eq. 3, lr = D^-0.5 · min(s^-0.5, s · w^-1.5), is this shape times the peak rate
    D^-0.5 · w^-0.5: linear warm-up for w steps, then decay as 1/√step.
    """
    if warmup < 1:
        raise ValueError(f"warmup must be >= 1; got {warmup}")

    def factor(step: int) -> float:
        s = max(step, 1)
        return min(s / warmup, (warmup / s) ** 0.5)

    return factor


def train_translation(
    model: Transformer,
    batches: Sequence[Batch] | Callable[[], Sequence[Batch]],
    *,
    epochs: int,
    lr: float = 1e-3,
    warmup: int = 400,
    valid: Sequence[Batch] | None = None,
    clip_norm: float | None = 1.0,
    device: torch.device | str | None = None,
    progress: bool = True,
) -> History:
    """Train with Adam(β = 0.9, 0.98) and the warm-up schedule peaking at ``lr``.

    batches: (src, src_lens, tgt) triples from :func:`course_lib.seq2seq.translation.make_batches`
    (a function giving each epoch's shuffled batches, or a list). Returns the
    :class:`History` of ``course_lib.training.fit``.
    """
    opt = torch.optim.Adam(model.parameters(), lr=lr, betas=(0.9, 0.98), eps=1e-9)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, noam_lambda(warmup))
    return fit(
        model,
        batches,
        optimizer=opt,
        epochs=epochs,
        loss_fn=lambda m, b: m.loss(b[0], b[2]),
        clip_norm=clip_norm,
        valid=valid,
        device=device,
        scheduler=sched,
        desc="transformer",
        progress=progress,
    )


def sort_batches(
    steps: int,
    batch_size: int,
    length: int,
    vocab: int,
    *,
    seed: int = 0,
    device: torch.device | str | None = None,
) -> list[tuple[Tensor, Tensor]]:
    """The depth experiments' task: ``steps`` batches of random digits x (B, T) in 0 … vocab−1
    and the same digits sorted, y (B, T): one label per position."""
    gen = torch.Generator().manual_seed(run_seed(seed))
    x = torch.randint(0, vocab, (steps, batch_size, length), generator=gen)
    return [(xb.to(device), xb.sort(-1).values.to(device)) for xb in x]


class SortStack(nn.Module):
    """Embeddings + sinusoidal positions + a stack of layers + a per-position classifier.

    ``make_layer()`` builds one layer, called ``n_layers`` times; a layer returns
    (h, anything), as :class:`EncoderLayer` does. ``final_norm`` adds the LayerNorm a
    pre-LN stack needs at its top. forward(x (B, T), y (B, T)) -> the loss.
    """

    def __init__(
        self,
        make_layer: Callable[[], nn.Module],
        n_layers: int,
        vocab: int,
        d_model: int,
        *,
        final_norm: bool,
    ) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.pos = SinusoidalPositionalEncoding(d_model)
        self.layers = nn.ModuleList(make_layer() for _ in range(n_layers))
        self.norm = nn.LayerNorm(d_model) if final_norm else nn.Identity()
        self.out = nn.Linear(d_model, vocab)

    def forward(self, x: Tensor, y: Tensor) -> Tensor:
        h = self.pos(self.embed(x))  # (B, T, D)
        for layer in self.layers:
            h, _ = layer(h)  # (B, T, D)
        logits = self.out(self.norm(h))  # (B, T, V)
        return nn.functional.cross_entropy(logits.flatten(0, 1), y.flatten())


def stack_experiment(
    *,
    norm_first: bool,
    n_layers: int = 12,
    d_model: int = 64,
    steps: int = 100,
    lr: float = 3e-3,
    batch_size: int = 32,
    length: int = 12,
    vocab: int = 16,
    seed: int = 0,
    device: torch.device | str | None = None,
) -> dict[str, list[float]]:
    """Train a deep encoder stack to sort digits, without warm-up; record what happens.

    Returns {"loss": per step, "grad_norm": global norm per step, "layer_grad":
    the gradient norm of each layer's parameters at the first step (bottom to top)}.
    """
    torch.manual_seed(run_seed(seed))
    model = SortStack(
        lambda: EncoderLayer(
            d_model, 4, 4 * d_model, dropout=0.0, norm_first=norm_first
        ),
        n_layers,
        vocab,
        d_model,
        final_norm=norm_first,
    ).to(device)
    batches = sort_batches(steps, batch_size, length, vocab, seed=seed, device=device)
    first = model(*batches[0])
    first.backward()
    layer_grad = [
        float(torch.cat([p.grad.flatten() for p in layer.parameters()]).norm())
        for layer in model.layers
    ]
    model.zero_grad()
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    hist = fit(model, batches, optimizer=opt, epochs=1, progress=False, device=device)
    return {
        "loss": hist.step_loss,
        "grad_norm": hist.grad_norm,
        "layer_grad": layer_grad,
    }

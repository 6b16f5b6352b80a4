"""Training the Transformer: data to batches, the warm-up schedule, fitting, translating. Chapter 8.

CS224N lecture 8. Pairs of sentences are tokenised and numbered as in Chapter 7
(``course_lib.seq2seq.train.tokenize`` and ``build_vocab``: a :class:`Vocab` whose first
four entries are ``<pad> <unk> <bos> <eos>``), grouped into batches of similar length
and padded. Training uses ``course_lib.training.fit`` with Adam and the warm-up schedule of
Vaswani et al. (2017, eq. 3): linear warm-up, then decay as 1/√step.

``stack_experiment`` trains a deep stack of encoder layers, pre-LN or post-LN, on a toy
sorting task and records the loss and gradient norms (Xiong et al., 2020).

Shape legend: B batch, S source length, T target length, D model width.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import torch
from torch import Tensor, nn

from course_lib.data.vocab import Vocab
from course_lib.seq2seq.train import SPECIALS, build_vocab, tokenize
from course_lib.training import History, fit
from course_lib.transformer.decoding import beam_search, greedy_decode
from course_lib.transformer.layers import EncoderLayer
from course_lib.transformer.model import Transformer
from course_lib.transformer.positional import SinusoidalPositionalEncoding

__all__ = [
    "SPECIALS",
    "build_vocab",
    "encode_pairs",
    "make_batches",
    "noam_lambda",
    "stack_experiment",
    "tokenize",
    "train_translation",
    "translate",
]

PAD, UNK, BOS, EOS = range(4)  # the order of SPECIALS, shared with Chapter 7


def encode_pairs(
    pairs: Sequence[tuple[list[str], list[str]]], src_vocab: Vocab, tgt_vocab: Vocab
) -> list[tuple[list[int], list[int]]]:
    """Token pairs -> id pairs; the target gets <bos> first and <eos> last."""
    return [(src_vocab.encode(s), [BOS, *tgt_vocab.encode(t), EOS]) for s, t in pairs]


def _pad(rows: Sequence[list[int]]) -> Tensor:
    width = max(len(r) for r in rows)
    return torch.tensor([r + [PAD] * (width - len(r)) for r in rows])  # (B, T)


def make_batches(
    encoded: Sequence[tuple[list[int], list[int]]],
    batch_size: int,
    *,
    seed: int | None = 0,
) -> list[tuple[Tensor, Tensor]]:
    """Padded (src (B, S), tgt (B, T)) batches of similar lengths, in shuffled order.

    Sorting by length first keeps padding low; ``seed=None`` keeps the sorted order.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1; got {batch_size}")
    if not encoded:
        raise ValueError("no pairs to batch: the data is empty")
    order = sorted(
        range(len(encoded)), key=lambda i: (len(encoded[i][0]), len(encoded[i][1]))
    )
    batches = []
    for start in range(0, len(order), batch_size):
        idx = order[start : start + batch_size]
        batches.append(
            (_pad([encoded[i][0] for i in idx]), _pad([encoded[i][1] for i in idx]))
        )
    if seed is not None:
        random.Random(seed).shuffle(batches)
    return batches


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
    batches: list[tuple[Tensor, Tensor]],
    *,
    epochs: int,
    lr: float = 1e-3,
    warmup: int = 400,
    valid: list[tuple[Tensor, Tensor]] | None = None,
    clip_norm: float | None = 1.0,
    device=None,
    reshuffle: bool = True,
    progress: bool = True,
) -> History:
    """Train with Adam(β = 0.9, 0.98) and the warm-up schedule peaking at ``lr``.

    Returns the :class:`History` of ``course_lib.training.fit``.
    """
    opt = torch.optim.Adam(model.parameters(), lr=lr, betas=(0.9, 0.98), eps=1e-9)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, noam_lambda(warmup))
    epoch = iter(range(10**9))

    def shuffled():
        order = list(batches)
        if reshuffle:
            random.Random(next(epoch)).shuffle(order)
        return order

    return fit(
        model,
        shuffled,
        optimizer=opt,
        epochs=epochs,
        loss_fn=lambda m, b: m.loss(*b),
        clip_norm=clip_norm,
        valid=valid,
        device=device,
        scheduler=sched,
        desc="transformer",
        progress=progress,
    )


def translate(
    model: Transformer,
    sources: Sequence[list[str]],
    src_vocab: Vocab,
    tgt_vocab: Vocab,
    *,
    beam_size: int = 1,
    max_len: int = 40,
    batch_size: int = 128,
    device=None,
) -> list[list[str]]:
    """Translate tokenised sentences: greedy (``beam_size=1``, batched) or beam search."""
    out: list[list[str]] = []
    for start in range(0, len(sources), batch_size):
        chunk = [
            src_vocab.encode(s) or [UNK] for s in sources[start : start + batch_size]
        ]
        src = _pad(chunk).to(device)  # (B, S)
        if beam_size == 1:
            ids = greedy_decode(model, src, bos=BOS, eos=EOS, max_len=max_len)
        else:
            ids = beam_search(
                model, src, bos=BOS, eos=EOS, beam_size=beam_size, max_len=max_len
            )
        out.extend(tgt_vocab.decode(row) for row in ids)
    return out


class _SortStack(nn.Module):
    """Embeddings + positions + a deep stack of encoder layers + a per-position classifier."""

    def __init__(
        self, n_layers: int, norm_first: bool, vocab: int, d_model: int
    ) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.pos = SinusoidalPositionalEncoding(d_model)
        self.layers = nn.ModuleList(
            EncoderLayer(d_model, 4, 4 * d_model, dropout=0.0, norm_first=norm_first)
            for _ in range(n_layers)
        )
        self.norm = nn.LayerNorm(d_model) if norm_first else nn.Identity()
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
    gen = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    model = _SortStack(n_layers, norm_first, vocab, d_model).to(device)
    x = torch.randint(0, vocab, (steps, batch_size, length), generator=gen)
    batches = [(xb.to(device), xb.sort(-1).values.to(device)) for xb in x]
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

"""Position encodings past the training length, measured on a copy task. Chapter 8.

CS224N lecture 8; Vaswani et al. (2017, §3.5) chose sinusoids because they "may allow the
model to extrapolate to sequence lengths longer than the ones encountered during
training". This module tests that: a small encoder-decoder :class:`Transformer` learns to
copy strings of length 1 … L, then is scored at lengths L, 2L, 4L, … with teacher forcing
(the share of next tokens, ``<eos>`` included, that it predicts right), for the sinusoidal
and the learned encodings. The learned table is made long enough for the longest test, so
its rows past L exist but were never trained.

Shape legend: B batch, n string length, S = n source length, T = n + 2 target length.
"""

from __future__ import annotations

import torch
from torch import Tensor

from course_lib.runtime import run_seed
from course_lib.training import evaluating
from course_lib.transformer.model import Transformer, TransformerConfig
from course_lib.transformer.train import train_translation

__all__ = ["copy_batch", "length_experiment"]

_FIRST = (
    4  # ids 0-3 are <pad>, <unk>, <bos>, <eos>, as in course_lib.seq2seq.translation
)
_BOS, _EOS = 2, 3


def copy_batch(
    batch_size: int, length: int, n_symbols: int, generator: torch.Generator
) -> tuple[Tensor, Tensor]:
    """Random strings src (B, n) of ids 4 … 3 + n_symbols and their copies with <bos> and
    <eos> around them, tgt (B, n + 2): the copy task, without padding."""
    if length < 1 or n_symbols < 2:
        raise ValueError(
            f"need length >= 1 and n_symbols >= 2; got {length}, {n_symbols}"
        )
    src = torch.randint(
        _FIRST, _FIRST + n_symbols, (batch_size, length), generator=generator
    )
    bos = torch.full((batch_size, 1), _BOS)
    eos = torch.full((batch_size, 1), _EOS)
    return src, torch.cat([bos, src, eos], dim=1)  # (B, n), (B, n + 2)


def _accuracy_by_position(model: Transformer, src: Tensor, tgt: Tensor) -> Tensor:
    """Teacher-forced: is each next token of tgt[:, 1:] the arg-max? (n + 1,) mean over B."""
    with evaluating(model), torch.no_grad():
        logits = model(src, tgt[:, :-1])  # (B, n + 1, V)
    return (logits.argmax(-1) == tgt[:, 1:]).float().mean(0)  # (n + 1,)


def length_experiment(
    *,
    positional: str,
    train_len: int = 8,
    test_lens: tuple[int, ...] = (8, 16, 32),
    steps: int = 400,
    d_model: int = 32,
    n_heads: int = 4,
    n_layers: int = 1,
    n_symbols: int = 10,
    batch_size: int = 32,
    lr: float = 3e-3,
    n_test: int = 64,
    seed: int = 0,
    device: torch.device | str | None = None,
) -> dict:
    """Train on copies of length 1 … ``train_len``; score every length in ``test_lens``.

    Returns {"accuracy": {n: token accuracy at length n}, "by_position": {n: (n + 1,)
    accuracy of each predicted position}, "loss": the training loss per step}.
    """
    if positional not in ("sinusoidal", "learned"):
        raise ValueError(
            f"positional must be 'sinusoidal' or 'learned'; got {positional!r}"
        )
    gen = torch.Generator().manual_seed(run_seed(seed))
    torch.manual_seed(run_seed(seed))
    config = TransformerConfig(
        _FIRST + n_symbols,
        _FIRST + n_symbols,
        d_model=d_model,
        n_heads=n_heads,
        d_ff=4 * d_model,
        n_encoder_layers=n_layers,
        n_decoder_layers=n_layers,
        dropout=0.0,
        positional=positional,
        max_len=max(test_lens) + 2,
        label_smoothing=0.0,
    )
    model = Transformer(config, device=device)
    lengths = torch.randint(1, train_len + 1, (steps,), generator=gen).tolist()
    batches = []
    for n in lengths:
        src, tgt = copy_batch(batch_size, n, n_symbols, gen)
        batches.append((src, torch.full((batch_size,), n), tgt))
    hist = train_translation(
        model,
        batches,
        epochs=1,
        lr=lr,
        warmup=max(1, steps // 10),
        device=device,
        progress=False,
    )
    by_position = {}
    for n in test_lens:
        src, tgt = copy_batch(n_test, n, n_symbols, gen)
        by_position[n] = _accuracy_by_position(model, src.to(device), tgt.to(device))
    return {
        "accuracy": {n: float(acc.mean()) for n, acc in by_position.items()},
        "by_position": {n: acc.cpu() for n, acc in by_position.items()},
        "loss": hist.step_loss,
    }

"""Features in, trained speech models out: batching and the four training loops. Chapter 10.

Each loop is ``course_lib.training.fit`` with the chapter's loss: cross-entropy for the
digit classifier, our from-scratch :func:`~course_lib.speech.ctc.ctc_loss` for the digit
strings, Chapter 7's ``seq2seq_loss`` for the attention recogniser's characters, and
per-step binary cross-entropy for the trigger detector. Batches group
utterances of similar length (less padding) and are shuffled each epoch with a seeded
generator, so a run is repeatable.

Shape legend: B batch, T frames, M mel bands, Y output steps, C classes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from course_lib.data.batching import length_groups, pad, pad_with_lengths
from course_lib.runtime import one_thread, run_seed
from course_lib.seq2seq.train import seq2seq_loss
from course_lib.speech.ctc import ctc_loss
from course_lib.speech.features import log_mel
from course_lib.speech.models import conv_output_lengths
from course_lib.training import History, evaluating, fit

__all__ = [
    "classify",
    "ctc_outputs",
    "featurize",
    "length_batches",
    "normalise",
    "pad_batch",
    "spec_augment",
    "train_attention_recognizer",
    "train_ctc",
    "train_digit_classifier",
    "train_trigger",
    "trigger_probabilities",
    "windowed_probabilities",
]


def featurize(audios: Sequence[np.ndarray], *, n_mels: int = 40) -> list[Tensor]:
    """Log-mel frames of each waveform, normalised per utterance and band (zero mean,
    unit variance over time: removes the channel and the loudness). Returns (T, M) each."""
    out = []
    for a in audios:
        x = torch.from_numpy(np.pad(a, (0, max(0, 256 - len(a)))).astype(np.float32))
        out.append(normalise(log_mel(x, n_mels=n_mels)))  # (T, M)
    return out


def normalise(frames: Tensor) -> Tensor:
    """Zero mean and unit variance per band over time: (T, M) → (T, M)."""
    return (frames - frames.mean(0)) / (frames.std(0, correction=0) + 1e-5)


def pad_batch(frames: Sequence[Tensor]) -> tuple[Tensor, Tensor]:
    """Zero-pad (T_b, M) frames into (B, T, M); returns it and the lengths (B,)."""
    return pad_with_lengths(frames, 0)


def spec_augment(
    x: Tensor, generator: torch.Generator, freq: int = 8, time: int = 10
) -> Tensor:
    """SpecAugment's masks (Park et al., 2019): zero one random band of up to ``freq`` mel
    bins and one span of up to ``time`` frames per utterance. x: (B, T, M) → (B, T, M)."""
    B, T, M = x.shape
    f0 = torch.randint(0, M, (B, 1), generator=generator)
    fw = torch.randint(0, freq + 1, (B, 1), generator=generator)
    t0 = torch.randint(0, T, (B, 1), generator=generator)
    tw = torch.randint(0, time + 1, (B, 1), generator=generator)
    bands = (torch.arange(M) >= f0) & (torch.arange(M) < f0 + fw)  # (B, M)
    frames = (torch.arange(T) >= t0) & (torch.arange(T) < t0 + tw)  # (B, T)
    return x.masked_fill(bands[:, None, :] | frames[:, :, None], 0.0)  # (B, T, M)


def length_batches(lengths: Sequence[int], batch_size: int, seed: int | None = None):
    """Index batches of similar lengths; shuffled (seeded) when ``seed`` is given."""
    batches = length_groups(lengths, batch_size)
    if seed is not None:
        np.random.default_rng(run_seed(seed)).shuffle(batches)
    return batches


def _fit_one_cycle(
    model,
    frames,
    targets,
    make,
    loss,
    *,
    lr,
    epochs,
    desc,
    batch_size=32,
    seed=0,
    augment=True,
    device=None,
    progress=True,
) -> History:
    """``fit`` on :func:`_epochs`' batches with Adam and a one-cycle schedule (warm up to
    ``lr``, then anneal) over all steps, gradients clipped at 5, on one CPU thread
    (``runtime.one_thread``)."""
    batches = _epochs(frames, targets, batch_size, seed, make, augment)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    steps = epochs * -(-len(frames) // batch_size)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=steps)
    with one_thread(device):
        return fit(
            model,
            batches,
            optimizer=opt,
            epochs=epochs,
            loss_fn=loss,
            clip_norm=5.0,
            scheduler=sched,
            device=device,
            progress=progress,
            desc=desc,
        )


def _epochs(frames, targets, batch_size, seed, make, augment=False):
    """A function giving each epoch's shuffled batches (fit calls it once an epoch);
    ``augment`` applies :func:`spec_augment` to the frames (first item) of each batch."""
    epoch, gen = [0], torch.Generator().manual_seed(run_seed(seed))

    def batches():
        epoch[0] += 1
        lengths = [len(f) for f in frames]
        for idx in length_batches(lengths, batch_size, seed + epoch[0]):
            batch = make([frames[i] for i in idx], [targets[i] for i in idx])
            if augment:
                batch = (spec_augment(batch[0], gen), *batch[1:])
            yield batch

    return batches


def train_digit_classifier(
    model: nn.Module,
    frames,
    digits,
    *,
    epochs,
    lr=3e-3,
    batch_size=32,
    augment=True,
    device=None,
    seed=0,
    progress=True,
) -> History:
    """Cross-entropy on the digit of each (T, M) utterance (SpecAugment when ``augment``)."""

    def make(fs, ys):
        x, lengths = pad_batch(fs)
        return x, lengths, torch.tensor(ys)

    def loss(m, batch):
        x, lengths, y = batch
        return F.cross_entropy(m(x, lengths), y)

    return _fit_one_cycle(
        model,
        frames,
        digits,
        make,
        loss,
        lr=lr,
        epochs=epochs,
        batch_size=batch_size,
        seed=seed,
        augment=augment,
        device=device,
        progress=progress,
        desc="digits",
    )


@torch.no_grad()
def classify(model: nn.Module, frames, *, batch_size=128, device=None) -> list[int]:
    """The predicted digit of every utterance, in order."""
    preds = [0] * len(frames)
    with evaluating(model):
        for idx in length_batches([len(f) for f in frames], batch_size):
            x, lengths = pad_batch([frames[i] for i in idx])
            logits = model(x.to(device), lengths.to(device))  # (B, 10)
            for i, p in zip(idx, logits.argmax(-1).tolist(), strict=True):
                preds[i] = p
    return preds


def train_ctc(
    model: nn.Module,
    frames,
    labels,
    *,
    epochs,
    lr=2e-3,
    batch_size=32,
    augment=True,
    device=None,
    seed=0,
    progress=True,
) -> History:
    """Our CTC loss (``reduction="mean"``) on (T, M) utterances and their class labels."""

    def make(fs, ys):
        x, lengths = pad_batch(fs)
        targets = pad(ys)  # (B, S)
        return x, lengths, targets, torch.tensor([len(y) for y in ys])

    def loss(m, batch):
        x, lengths, targets, target_lengths = batch
        log_probs, out_lengths = m(x, lengths)  # (B, Y, C)
        return ctc_loss(log_probs, targets, out_lengths, target_lengths)

    return _fit_one_cycle(
        model,
        frames,
        labels,
        make,
        loss,
        lr=lr,
        epochs=epochs,
        batch_size=batch_size,
        seed=seed,
        augment=augment,
        device=device,
        progress=progress,
        desc="ctc",
    )


def train_attention_recognizer(
    model: nn.Module, frames, labels, *, epochs, lr=3e-3, **options
) -> History:
    """Chapter 7's loss (``seq2seq_loss``: mean −log P(y_t | y_<t, x) under teacher
    forcing) on (T, M) utterances and their <bos> … <eos> character ids. ``options``:
    ``batch_size`` (32), ``augment`` (True), ``device``, ``seed`` (0), ``progress``, as
    for :func:`train_ctc`."""

    def make(fs, ys):
        x, lengths = pad_batch(fs)
        return x, lengths, pad(ys)  # (B, T, M), (B,), (B, L) padded with id 0

    return _fit_one_cycle(
        model,
        frames,
        labels,
        make,
        seq2seq_loss,
        lr=lr,
        epochs=epochs,
        desc="attention",
        **options,
    )


@torch.no_grad()
def ctc_outputs(
    model: nn.Module, frames, *, batch_size=64, device=None
) -> list[Tensor]:
    """Per utterance, the (Y_b, C) log-probabilities of a CTC model, on the CPU."""
    out: list[Tensor] = [torch.empty(0)] * len(frames)
    with evaluating(model):
        for idx in length_batches([len(f) for f in frames], batch_size):
            x, lengths = pad_batch([frames[i] for i in idx])
            lp, n = model(x.to(device), lengths.to(device))  # (B, Y, C)
            for row, i in enumerate(idx):
                out[i] = lp[row, : n[row]].cpu()
    return out


def train_trigger(
    model: nn.Module,
    frames,
    labels,
    *,
    epochs,
    lr=2e-3,
    batch_size=16,
    device=None,
    seed=0,
    progress=True,
) -> History:
    """Per-step binary cross-entropy; frames (T, M) and labels (Y,) of equal-length clips."""

    def make(fs, ys):
        return torch.stack(fs), torch.from_numpy(np.stack(ys))

    def loss(m, batch):
        x, y = batch
        return F.binary_cross_entropy_with_logits(m(x), y)

    return _fit_one_cycle(
        model,
        frames,
        labels,
        make,
        loss,
        lr=lr,
        epochs=epochs,
        batch_size=batch_size,
        seed=seed,
        augment=False,
        device=device,
        progress=progress,
        desc="trigger",
    )


@torch.no_grad()
def trigger_probabilities(model: nn.Module, frames, *, device=None) -> list[np.ndarray]:
    """σ(logit) per output step for each (T, M) input, one at a time (any length)."""
    with evaluating(model):
        return [
            torch.sigmoid(model(f[None].to(device)))[0].cpu().numpy() for f in frames
        ]


@torch.no_grad()
def windowed_probabilities(
    model: nn.Module,
    log_mels: Tensor,
    *,
    window: int,
    hop: int,
    normalise_each: bool = True,
    device=None,
) -> np.ndarray:
    """σ(logit) over a long stream heard through windows of ``window`` frames every
    ``hop`` frames. log_mels: the stream's raw (T, M) :func:`log_mel` frames; each window
    is normalised on its own (as each training clip was, by :func:`featurize`), or, with
    ``normalise_each=False``, taken as given (frames normalised beforehand), and run from
    a zero state; every output step comes from the latest window that has heard at least
    ``window − hop`` frames before it (the first window's from the start). Returns (Y,)."""
    stride = model.stride
    if window % stride or hop % stride or not 0 < hop <= window:
        raise ValueError(
            f"window and hop must be multiples of the stride {stride} with "
            f"0 < hop <= window; got window={window}, hop={hop}"
        )
    T = len(log_mels)
    Y = int(conv_output_lengths(torch.tensor(T), model.kernel, stride))
    out = np.zeros(Y, dtype=np.float32)
    with evaluating(model):
        for start in range(0, max(T - window, 0) + 1, hop):
            end = start + window if start + window + hop <= T else T
            chunk = log_mels[start:end]  # (W, M)
            chunk = normalise(chunk) if normalise_each else chunk
            p = torch.sigmoid(model(chunk[None].to(device)))[0].cpu().numpy()  # (Y_w,)
            skip = 0 if start == 0 else (window - hop) // stride
            g = start // stride
            out[g + skip : g + len(p)] = p[skip : Y - g]
    return out

"""The chapter's three speech models: many-to-one, CTC and per-step detection. Chapter 10.

- :class:`DigitClassifier`: Chapter 6's from-scratch GRU (``RecurrentNet``) over log-mel
  frames; its last state → 10 digits (many-to-one).
- :class:`CTCRecognizer`: a strided Conv1D front-end (halves the frame rate and learns
  local spectral patterns), a BiGRU, and per-step log-probabilities over blank + 10 digits
  (Graves et al., 2006; the *Sequence Models* speech-recognition model).
- :class:`TriggerDetector`: Conv1D → GRU (one direction: it must run on a stream) → a
  per-step sigmoid logit (*Sequence Models*, week 3, trigger word detection).

The CTC and trigger models use ``torch.nn.GRU`` (fused, fast): Chapter 6 shows our GRU
equal to it. Shape legend: B batch, T frames, M mel bands, Y output steps, H hidden,
C classes.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from course_lib.data.batching import length_mask
from course_lib.rnn.stacked import RecurrentNet

__all__ = [
    "CTCRecognizer",
    "DigitClassifier",
    "StridedFrontEnd",
    "TriggerDetector",
    "conv_output_lengths",
]


def conv_output_lengths(lengths: Tensor, kernel: int, stride: int) -> Tensor:
    """Frames after a Conv1D with padding kernel // 2: ⌊(T + 2⌊k/2⌋ − k) / s⌋ + 1."""
    return (
        torch.div(lengths + 2 * (kernel // 2) - kernel, stride, rounding_mode="floor")
        + 1
    )


def check_frames(x: Tensor, lengths: Tensor, n_mels: int) -> None:
    if not isinstance(x, Tensor) or x.dim() != 3 or x.size(-1) != n_mels:
        raise ValueError(
            f"x must be log-mel frames (B, T, M={n_mels}); got {getattr(x, 'shape', x)}"
        )
    if (
        lengths.shape != (x.size(0),)
        or (lengths < 1).any()
        or (lengths > x.size(1)).any()
    ):
        raise ValueError(f"lengths must be (B,) in 1..T; got {lengths.tolist()}")


def _check_mels(x: Tensor, n_mels: int) -> None:
    if not isinstance(x, Tensor) or x.dim() != 3 or x.size(-1) != n_mels:
        raise ValueError(f"x must be (B, T, M={n_mels}); got {getattr(x, 'shape', x)}")


class DigitClassifier(nn.Module):
    """Many-to-one: a GRU (Chapter 6's ``RecurrentNet("gru")``) reads the frames; its state
    at each utterance's last frame is classified, logits = W h_{T_b} + b. Bidirectional:
    the forward state at the last frame and the backward state at the first, concatenated.
    ``pool="mean"`` classifies the average of the outputs over the frames instead."""

    def __init__(
        self,
        n_mels: int = 40,
        hidden: int = 64,
        n_classes: int = 10,
        *,
        bidirectional: bool = False,
        pool: str = "last",
        device=None,
    ) -> None:
        super().__init__()
        if pool not in ("last", "mean"):
            raise ValueError(f"pool must be 'last' or 'mean'; got {pool!r}")
        self.n_mels, self.pool = n_mels, pool
        self.rnn = RecurrentNet(
            "gru", n_mels, hidden, bidirectional=bidirectional, device=device
        )
        K = 2 if bidirectional else 1
        self.out = nn.Linear(K * hidden, n_classes, device=device)

    def forward(self, x: Tensor, lengths: Tensor) -> Tensor:
        """x: (B, T, M), lengths: (B,). Returns logits (B, n_classes)."""
        check_frames(x, lengths, self.n_mels)
        out, h = self.rnn(x, lengths)  # (B, T, K·H), zero at padding; (K, B, H)
        if self.pool == "mean":  # the average output over each utterance's frames
            pooled = out.sum(1) / lengths[:, None].to(out.dtype)  # (B, K·H)
        else:  # the states at each end
            pooled = torch.cat(list(h), -1)  # (B, K·H)
        return self.out(pooled)  # (B, n_classes)


class StridedFrontEnd:
    """Two strided Conv1D + ReLU layers over log-mel frames, shared by the CTC and the
    attention recognisers: 10 ms frames become 40 ms steps at stride 2."""

    def _build_front_end(self, n_mels, channels, kernel, stride, device) -> None:
        self.n_mels, self.kernel, self.stride = n_mels, kernel, stride
        pad = kernel // 2
        self.conv1 = nn.Conv1d(n_mels, channels, kernel, stride, pad, device=device)
        self.conv2 = nn.Conv1d(channels, channels, kernel, stride, pad, device=device)

    def output_lengths(self, lengths: Tensor) -> Tensor:
        """Output steps per input: two strided convolutions, Y ≈ T / stride²."""
        once = conv_output_lengths(lengths, self.kernel, self.stride)
        return conv_output_lengths(once, self.kernel, self.stride)

    def _front_end(self, x: Tensor, lengths: Tensor) -> Tensor:
        """Both convolutions; padding is zeroed before each (as at the edges)."""
        x = x * length_mask(lengths, x.size(1))[..., None]  # (B, T, M)
        z = torch.relu(self.conv1(x.transpose(1, 2)))  # (B, channels, T / s)
        n1 = conv_output_lengths(lengths, self.kernel, self.stride)  # (B,)
        z = z * length_mask(n1, z.size(-1))[:, None]  # (B, channels, T / s)
        return torch.relu(self.conv2(z)).transpose(1, 2)  # (B, Y, channels)


class CTCRecognizer(StridedFrontEnd, nn.Module):
    """Conv1D → ReLU → Conv1D → ReLU (each with stride ``stride``) → BiGRU → Linear →
    log-softmax: 10 ms frames become 40 ms steps at the default stride 2."""

    def __init__(
        self,
        n_mels: int = 40,
        channels: int = 64,
        hidden: int = 96,
        n_classes: int = 11,
        *,
        kernel: int = 5,
        stride: int = 2,
        device=None,
    ) -> None:
        super().__init__()
        self._build_front_end(n_mels, channels, kernel, stride, device)
        self.rnn = nn.GRU(
            channels, hidden, batch_first=True, bidirectional=True, device=device
        )
        self.out = nn.Linear(2 * hidden, n_classes, device=device)

    def forward(self, x: Tensor, lengths: Tensor) -> tuple[Tensor, Tensor]:
        """x: (B, T, M), lengths: (B,). Returns log-probs (B, Y, C) and lengths (B,)."""
        check_frames(x, lengths, self.n_mels)
        z = self._front_end(x, lengths)  # (B, Y, channels)
        out_lengths = self.output_lengths(lengths)  # (B,)
        packed = pack_padded_sequence(
            z, out_lengths.cpu(), batch_first=True, enforce_sorted=False
        )
        h, _ = pad_packed_sequence(
            self.rnn(packed)[0], batch_first=True, total_length=z.size(1)
        )  # (B, Y, 2H)
        return self.out(h).log_softmax(-1), out_lengths  # (B, Y, C)


class TriggerDetector(nn.Module):
    """Conv1D (stride ``stride``) → ReLU → GRU → Linear: a logit per output step."""

    def __init__(
        self,
        n_mels: int = 40,
        channels: int = 64,
        hidden: int = 64,
        *,
        kernel: int = 5,
        stride: int = 2,
        device=None,
    ) -> None:
        super().__init__()
        self.n_mels, self.kernel, self.stride = n_mels, kernel, stride
        self.conv = nn.Conv1d(
            n_mels, channels, kernel, stride, kernel // 2, device=device
        )
        self.rnn = nn.GRU(channels, hidden, batch_first=True, device=device)
        self.out = nn.Linear(hidden, 1, device=device)

    def forward(self, x: Tensor) -> Tensor:
        """x: (B, T, M). Returns logits (B, Y), Y = conv_output_lengths(T)."""
        _check_mels(x, self.n_mels)
        z = torch.relu(self.conv(x.transpose(1, 2))).transpose(1, 2)  # (B, Y, channels)
        h, _ = self.rnn(z)  # (B, Y, H)
        return self.out(h).squeeze(-1)  # (B, Y)

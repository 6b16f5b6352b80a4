r"""The window-based word classifier of CS224N lecture 3, trained on real part-of-speech tags.

Chapter 3. The lecture classifies the centre word of a window (its example: is "Paris" a
location in "museums in Paris are amazing"?) from the concatenated embeddings of the window;
here the labels are the UPOS tags of UD English EWT:

    x = [e_{t−w}; …; e_t; …; e_{t+w}] ∈ ℝ^{(2w+1)D}        (concatenated word vectors)
    h = f(W x + b) ∈ ℝ^H                                   (f = tanh or ReLU)
    ŷ = softmax(U h + c) ∈ ℝ^C,   J = −log ŷ_y              (lecture 3)

The same model twice, from the same initial weights: ``TorchWindowClassifier`` (torch autograd,
``F.cross_entropy``) and ``engine_logits``/``engine_loss`` over ``course_lib.backprop`` values.
Trained with plain SGD on the same batches in the same order (``train_with_torch`` and
``train_with_engine``), the two give the same loss curve.

Shape letters: N windows, B batch, K = 2w+1 window slots, V vocabulary, D embedding width,
H hidden units, C tags.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from course_lib import step_plan
from course_lib.backprop import Value, softmax_cross_entropy, zero_grad
from course_lib.data.batching import shuffled_batches
from course_lib.data.vocab import Vocab
from course_lib.data.windows import context_at
from course_lib.runtime import progress_bar, run_seed
from course_lib.training import History, fit

__all__ = [
    "PAD",
    "TorchWindowClassifier",
    "WindowConfig",
    "engine_logits",
    "engine_loss",
    "engine_params",
    "init_params",
    "make_batches",
    "make_windows",
    "train_with_engine",
    "train_with_torch",
]

PAD = "<pad>"
ACTIVATIONS = ("tanh", "relu")
Batch = tuple[Tensor, Tensor]


@dataclass(frozen=True)
class WindowConfig:
    """Sizes of the window classifier: V words, C tags, ±``window`` words, D, H, f."""

    vocab_size: int
    n_tags: int
    window: int = 2
    d_embed: int = 50
    d_hidden: int = 100
    activation: str = "tanh"

    def __post_init__(self) -> None:
        for name in ("vocab_size", "n_tags", "d_embed", "d_hidden"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int; got {value!r}")
        if not isinstance(self.window, int) or self.window < 0:
            raise ValueError(f"window must be an int >= 0; got {self.window!r}")
        if self.activation not in ACTIVATIONS:
            raise ValueError(
                f"activation must be one of {ACTIVATIONS}; got {self.activation!r}"
            )

    @property
    def width(self) -> int:
        """K = 2w + 1, the number of words in a window."""
        return 2 * self.window + 1


def make_windows(
    sentences: Iterable[Any],
    vocab: Vocab,
    tag_vocab: Vocab,
    window: int,
    *,
    device: torch.device | str | None = None,
) -> tuple[Tensor, Tensor]:
    """Every word of every sentence as a window of word ids and its tag id.

    sentences: ``Sentence`` objects (``.words``, ``.upos``), or (words, tags) pairs.
    Windows stop at sentence edges: the missing neighbours are ``vocab[PAD]``, so ``vocab`` must
    contain ``"<pad>"`` (``Vocab.build(..., specials=("<unk>", "<pad>"))``).
    Returns ids (N, 2w+1) and tags (N,), LongTensors on ``device``.
    """
    if not isinstance(window, int) or window < 0:
        raise ValueError(f"window must be an int >= 0; got {window!r}")
    if PAD not in vocab:
        raise ValueError(
            f"vocab has no {PAD!r} token to fill windows at sentence edges; build it with "
            f"specials=('<unk>', '{PAD}')"
        )
    pad = vocab.index(PAD)
    words_ids: list[int] = []
    segments: list[int] = []
    labels: list[int] = []
    for k, sentence in enumerate(sentences):
        words, tags = (
            (sentence.words, sentence.upos) if hasattr(sentence, "words") else sentence
        )
        if len(words) != len(tags):
            raise ValueError(
                f"sentence {k} has {len(words)} words but {len(tags)} tags; they must pair up"
            )
        words_ids += vocab.encode(words)
        segments += [k] * len(words)
        labels += tag_vocab.encode(tags)
    if not words_ids:
        raise ValueError("no words: sentences is empty (or every sentence is)")
    stream = torch.tensor(words_ids, dtype=torch.long, device=device)  # (N,)
    seg = torch.tensor(segments, dtype=torch.long, device=device)  # (N,)
    ids, _ = context_at(stream, torch.arange(-window, window + 1), pad, seg)  # (N, K)
    return ids, torch.tensor(labels, dtype=torch.long, device=device)  # (N,)


def make_batches(
    ids: Tensor, tags: Tensor, batch_size: int, *, seed: int | None = None
) -> list[Batch]:
    """Split (N, K) windows and (N,) tags into a list of (B, K), (B,) batches.

    With ``seed`` the order is shuffled once, deterministically (one epoch of
    :func:`course_lib.data.batching.shuffled_batches`); the same list can then be fed to
    both trainers so that they see the same batches in the same order.
    """
    if ids.dim() != 2 or tags.shape != ids.shape[:1]:
        raise ValueError(
            f"ids must be (N, K) and tags (N,); got {tuple(ids.shape)} and {tuple(tags.shape)}"
        )
    if not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive int; got {batch_size!r}")
    if seed is None:
        return list(zip(ids.split(batch_size), tags.split(batch_size)))  # (B, K), (B,)
    gen = torch.Generator().manual_seed(run_seed(seed))
    return shuffled_batches(ids, tags, batch_size, gen)  # (B, K), (B,)


def init_params(
    cfg: WindowConfig,
    *,
    seed: int = 0,
    dtype: torch.dtype = torch.float32,
    device: torch.device | str | None = None,
) -> dict[str, Tensor]:
    """Initial weights shared by both implementations: E, W, b, U, c.

    E ~ N(0, 1) (V, D); W ~ N(0, 1/fan_in) (H, K·D), U likewise (C, H); b, c zero.
    """
    gen = torch.Generator().manual_seed(run_seed(seed))
    fan_in = cfg.width * cfg.d_embed

    def normal(*shape: int, std: float = 1.0) -> Tensor:
        return (torch.randn(*shape, generator=gen, dtype=dtype) * std).to(device)

    return {
        "E": normal(cfg.vocab_size, cfg.d_embed),  # (V, D)
        "W": normal(cfg.d_hidden, fan_in, std=fan_in**-0.5),  # (H, K·D)
        "b": torch.zeros(cfg.d_hidden, dtype=dtype, device=device),  # (H,)
        "U": normal(cfg.n_tags, cfg.d_hidden, std=cfg.d_hidden**-0.5),  # (C, H)
        "c": torch.zeros(cfg.n_tags, dtype=dtype, device=device),  # (C,)
    }


def _check_ids(ids: Tensor, cfg: WindowConfig) -> None:
    if ids.dim() != 2 or ids.size(1) != cfg.width:
        raise ValueError(
            f"ids must be (B, 2w+1) = (B, {cfg.width}) word ids; got {tuple(ids.shape)}"
        )


class TorchWindowClassifier(nn.Module):
    """The window classifier in torch: logits = U f(W [e_{t−w}; …; e_{t+w}] + b) + c.

    params: the dict of ``init_params`` (copied), or None to draw it with ``seed``.
    """

    def __init__(
        self,
        cfg: WindowConfig,
        params: dict[str, Tensor] | None = None,
        *,
        seed: int = 0,
        device: torch.device | str | None = None,
    ) -> None:
        super().__init__()
        self.cfg = cfg
        params = (
            init_params(cfg, seed=seed, device=device) if params is None else params
        )
        for name in ("E", "W", "b", "U", "c"):
            setattr(self, name, nn.Parameter(params[name].detach().clone().to(device)))

    def forward(self, ids: Tensor) -> Tensor:
        """ids: (B, K) word ids. Returns the tag logits (B, C)."""
        _check_ids(ids, self.cfg)
        x = F.embedding(ids, self.E).flatten(1)  # (B, K·D)  concatenated window
        h = getattr(torch, self.cfg.activation)(x @ self.W.T + self.b)  # (B, H)
        return h @ self.U.T + self.c  # (B, C)

    def loss(self, ids: Tensor, tags: Tensor) -> Tensor:
        """Mean cross-entropy J over the batch (``F.cross_entropy``). Returns a scalar."""
        return F.cross_entropy(self(ids), tags)  # ()


def engine_params(params: dict[str, Tensor]) -> dict[str, Value]:
    """The weights of ``init_params`` as engine leaves (copies) that require grad."""
    return {k: Value(v, requires_grad=True, name=k) for k, v in params.items()}


def engine_logits(
    params: dict[str, Value], ids: Tensor, activation: str = "tanh"
) -> Value:
    """The same forward pass over ``course_lib.backprop`` gates. ids: (B, K). Returns (B, C)."""
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {ACTIVATIONS}; got {activation!r}")
    if ids.dim() != 2:
        raise ValueError(f"ids must be (B, 2w+1) word ids; got {tuple(ids.shape)}")
    E, W, b, U, c = (params[k] for k in ("E", "W", "b", "U", "c"))
    B, K = ids.shape
    x = E.embedding(ids).reshape(B, K * E.shape[1])  # (B, K·D)  concatenated window
    h = getattr(x @ W.T + b, activation)()  # (B, H)
    return h @ U.T + c  # (B, C)


def engine_loss(
    params: dict[str, Value], ids: Tensor, tags: Tensor, activation: str = "tanh"
) -> Value:
    """Mean cross-entropy J with the engine's fused softmax-cross-entropy gate. Scalar Value."""
    return softmax_cross_entropy(engine_logits(params, ids, activation), tags)  # ()


def train_with_engine(
    params: dict[str, Value],
    batches: Sequence[Batch],
    lr: float,
    epochs: int = 1,
    *,
    activation: str = "tanh",
    progress: bool = True,
) -> History:
    """Plain SGD with the engine: θ ← θ − lr · ∂J/∂θ after each batch (params updated in place).

    Returns a ``training.History`` (per-step and per-epoch loss, wall time), as ``fit`` does.
    ``fit`` itself is not used: the engine's ``Value``s are not torch parameters, so no torch
    optimizer can update them, and the update is the lecture's rule written out.
    Its planned steps (a gpu check, :mod:`course_lib.step_plan`): ``epochs`` × batches.
    """
    if epochs < 1 or not lr > 0:
        raise ValueError(
            f"epochs must be >= 1 and lr > 0; got epochs={epochs}, lr={lr}"
        )
    if not batches:
        raise ValueError("batches is empty")
    history, start = History(), time.perf_counter()
    run = step_plan.begin("train_with_engine", epochs * len(batches))
    for epoch in range(epochs):
        total = 0.0
        bar = progress_bar(
            batches, desc=f"engine {epoch + 1}/{epochs}", disable=not progress
        )
        for ids, tags in bar:
            zero_grad(list(params.values()))
            loss = engine_loss(params, ids, tags, activation)
            loss.backward()
            for p in params.values():
                p.data -= lr * p.grad  # SGD step, outside any graph
            history.step_loss.append(loss.item())
            total += loss.item()
            if step_plan.step(run):  # a gpu check: a few steps of them
                break
        history.train_loss.append(total / len(batches))
        if step_plan.stopped(run):
            break
    history.seconds = time.perf_counter() - start
    return history


def train_with_torch(
    model: TorchWindowClassifier,
    batches: Sequence[Batch],
    lr: float,
    epochs: int = 1,
    *,
    progress: bool = True,
) -> History:
    """Plain SGD with torch autograd, through the course's ``fit`` loop (no clipping)."""
    if not lr > 0:
        raise ValueError(f"lr must be > 0; got {lr}")
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    return fit(
        model,
        batches,
        optimizer=optimizer,
        epochs=epochs,
        loss_fn=lambda m, batch: m.loss(*batch),
        progress=progress,
        desc="torch",
    )

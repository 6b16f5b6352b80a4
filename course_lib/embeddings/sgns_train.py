r"""A fast, batched word2vec trainer (SGNS skip-gram and CBOW) for the CPU and the GPU. Chapter 2.

The algorithm of word2vec's C code and gensim (Mikolov et al., 2013): each epoch subsamples
frequent words, gives every kept word a reduced window b ~ U{1..W} and walks the corpus in order
with plain SGD, the learning rate falling linearly from ``lr`` to ``min_lr``; vectors start as
word2vec's (v uniform in ±0.5/D, u = 0). What makes it fast in PyTorch (no Python loop per pair,
no autograd, no dense optimizer state):

* Windows and negatives are drawn for 64 batches at a time, vectorised.
* As in word2vec's code, skip-gram runs in the "window word predicts centre" direction: the 2b
  window words of a centre c are inputs v_w that share c's output vector u_c and the same K
  negatives (Ji, Satish, Li and Dubey, 2016, "Parallelizing word2vec in shared and distributed
  memory"). B consecutive centres then need the B + 2W input rows X once (the windows are
  strided views of them) and three batched products: S = X_w Yᵀ with Y the (B, 1+K, D) outputs,
  ∂J/∂S = σ(S) - label (``sgns_loss_and_gradient``), ∂J/∂X_w = (∂J/∂S) Y, ∂J/∂Y = (∂J/∂S)ᵀ X_w.
* Only the rows in the batch change (``scatter_add_``); a word repeated in a batch adds up its
  updates, as parallel word2vec's lock-free "Hogwild" updates do (Recht et al., 2011). Small
  batches (256 centres) keep this close to plain SGD.
* ``workers > 1`` (CPU) runs that many Python threads over interleaved chunks of the corpus,
  sharing the tables without locks, like gensim's ``workers`` (results then vary a little).

Throughput is counted as gensim counts it: effective words (tokens kept after ``min_count`` and
subsampling) per second of training.

Shape letters: N tokens, n effective words, C centres in a chunk, B centres in a batch,
W window (2W+1 slots with the centre's own), K negatives, D width, V vocabulary.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor

from course_lib import step_plan
from course_lib.embeddings._common import (
    Corpus,
    Device,
    check_positive_int,
    flatten_corpus,
)
from course_lib.embeddings.negative_sampling import (
    CBOWNS,
    NoiseSampler,
    SkipGramNS,
    check_negatives,
)
from course_lib.embeddings.subsampling import (
    keep_probabilities,
    reduced_windows,
    subsample,
)
from course_lib.runtime import progress_bar, run_seed

__all__ = ["SGNSConfig", "SGNSRun", "encode_corpus", "train_sgns", "vocab_counts"]

ARCHITECTURES = ("skipgram", "cbow")
CHUNK = 64  # batches whose windows and negatives are drawn at once


@dataclass(frozen=True)
class SGNSConfig:
    """Settings of ``train_sgns``; the defaults are gensim's for skip-gram (``sg=1``)."""

    architecture: str = "skipgram"  # or "cbow"
    dim: int = 100  # D
    window: int = 5  # W, the largest reduced window
    negatives: int = 5  # K
    sample: float = 1e-3  # subsampling threshold t (0 = off)
    power: float = 0.75  # noise distribution exponent
    epochs: int = 5
    lr: float = 0.025  # gensim's alpha
    min_lr: float = 0.0001  # gensim's min_alpha
    batch_size: int = 256  # B, centre words per step
    workers: int = 1  # CPU threads updating the tables lock-free (1 = deterministic)
    seed: int = 1

    def __post_init__(self) -> None:
        if self.architecture not in ARCHITECTURES:
            raise ValueError(
                f"architecture must be one of {ARCHITECTURES}, got {self.architecture!r}"
            )
        for name in ("dim", "window", "negatives", "epochs", "batch_size", "workers"):
            check_positive_int(getattr(self, name), name)
        if not 0 <= self.sample < 1:
            raise ValueError(f"sample must be in [0, 1), got {self.sample}")
        if not 0 <= self.min_lr <= self.lr:
            raise ValueError(
                f"need 0 <= min_lr <= lr, got lr={self.lr}, min_lr={self.min_lr}"
            )


@dataclass
class SGNSRun:
    """What ``train_sgns`` returns: the model and what a lesson plots.

    model: ``SkipGramNS`` or ``CBOWNS`` (``model.vectors()`` are the word vectors, gensim's
    ``wv.vectors``); history: one dict per logged step (epoch, progress in [0, epochs], lr, loss
    = mean SGNS loss per pair of that batch); epochs: one dict per epoch (effective_words, pairs,
    seconds, words_per_second).
    """

    model: SkipGramNS | CBOWNS
    config: SGNSConfig
    history: list[dict[str, float]] = field(default_factory=list)
    epochs: list[dict[str, float]] = field(default_factory=list)

    @property
    def effective_words(self) -> int:
        return int(sum(e["effective_words"] for e in self.epochs))

    @property
    def seconds(self) -> float:
        return float(sum(e["seconds"] for e in self.epochs))

    @property
    def words_per_second(self) -> float:
        """Effective words per second of training, as gensim reports it."""
        return self.effective_words / max(self.seconds, 1e-9)


def vocab_counts(vocab: Any) -> Tensor:
    """The counts of a ``course_lib.data.Vocab`` (or a list of counts) as a tensor (V,)."""
    if hasattr(vocab, "counts") and hasattr(vocab, "tokens"):
        counts = vocab.counts
        return torch.tensor([counts[w] for w in vocab.tokens], dtype=torch.float64)
    return torch.as_tensor(vocab, dtype=torch.float64)  # (V,)


def encode_corpus(sentences: Sequence[Sequence[str]], vocab: Any) -> list[list[int]]:
    """Word ids of each sentence, leaving out words not in ``vocab`` (gensim's ``min_count``)."""
    index = (
        {w: i for i, w in enumerate(vocab.tokens)}
        if hasattr(vocab, "tokens")
        else vocab
    )
    return [[index[w] for w in s if w in index] for s in sentences]


class _Epoch:
    """One epoch's kept words in corpus order, padded by W on each side for the windows."""

    def __init__(self, tokens, seg, keep, cfg, gen) -> None:
        kept = subsample(tokens, keep, generator=gen)  # (N,)
        centres, sents = tokens[kept], seg[kept]  # (n,), (n,)
        W, n, dev = cfg.window, centres.numel(), tokens.device
        self.n, self.window = n, W
        self.centres, self.sents = centres, sents  # (n,), (n,)
        self.sizes = reduced_windows(n, W, generator=gen, device=dev)  # (n,)
        pad = torch.full((W,), -1, dtype=torch.long, device=dev)  # (W,)
        self.ids = torch.cat([pad.clamp(min=0), centres, pad.clamp(min=0)])  # (n + 2W,)
        self.sent_ids = torch.cat([pad, sents, pad])  # (n + 2W,)  -1 = no sentence
        dist = torch.arange(-W, W + 1, device=dev).abs()  # (2W+1,)
        self.dist = dist.masked_fill(dist == 0, W + 1)  # (2W+1,)  centre: never

    def chunk(self, start: int, stop: int, sampler: NoiseSampler, k: int) -> _Chunk:
        """The centres start..stop-1: their window ids and masks, outputs and negatives."""
        W2 = 2 * self.window + 1
        sent = self.sent_ids[start : stop + W2 - 1].unfold(0, W2, 1)  # (C, 2W+1)
        same = sent == self.sents[start:stop, None]  # (C, 2W+1)  same sentence
        inside = self.dist <= self.sizes[start:stop, None]  # (C, 2W+1)  within b
        centres = self.centres[start:stop]  # (C,)
        negatives = sampler.sample(stop - start, k)  # (C, K)
        outputs = torch.cat([centres[:, None], negatives], dim=1)  # (C, 1+K)
        out_weight = torch.ones(outputs.shape, device=centres.device)  # (C, 1+K)
        out_weight[:, 1:] = negatives != centres[:, None]  # gensim skips a negative = c
        ids = self.ids[start : stop + W2 - 1]  # (C + 2W,)
        return _Chunk(ids, (same & inside).float(), outputs, out_weight)


class _Chunk(NamedTuple):
    """Consecutive centres' training data; ``batch`` slices B of them (views, no copies)."""

    ids: Tensor  # (C + 2W,) word at every position of the chunk and its margins
    valid: Tensor  # (C, 2W+1) 1 for a real (window word, centre) pair
    outputs: Tensor  # (C, 1+K) the centre, then its K negatives
    out_weight: Tensor  # (C, 1+K) 0 for a negative equal to the centre

    def batch(self, start: int, stop: int) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        W2 = self.valid.size(1)
        return (
            self.ids[start : stop + W2 - 1],  # (B + 2W,)
            self.valid[start:stop],  # (B, 2W+1)
            self.outputs[start:stop],  # (B, 1+K)
            self.out_weight[start:stop],  # (B, 1+K)
        )


def _scatter_rows(table: Tensor, ids: Tensor, rows: Tensor) -> None:
    """table[ids[i]] += rows[i] for every i, repeats adding up (scatter_add_ on rows)."""
    table.scatter_add_(0, ids[:, None].expand(-1, table.size(1)), rows)  # (V, D)


def _sg_step(V, U, ids, valid, outs, out_w, lr, label, sign, want_loss) -> float:
    """One skip-gram step on B centres; returns the mean loss per pair if asked, else nan."""
    B, W2, D = valid.size(0), valid.size(1), V.size(1)
    X = V.index_select(0, ids)  # (B + 2W, D)  v_w at every position, once
    Xw = X.unfold(0, W2, 1).transpose(1, 2)  # (B, 2W+1, D)  the windows, a view
    Y = U.index_select(0, outs.reshape(-1)).view(B, -1, D)  # (B, 1+K, D)  u_c, u_k
    S = torch.bmm(Xw, Y.transpose(1, 2))  # (B, 2W+1, 1+K)  scores u·v
    M = valid[:, :, None] * out_w[:, None, :]  # (B, 2W+1, 1+K)  pairs that count
    loss = math.nan
    if want_loss:
        loss = -(F.logsigmoid(S * sign) * M).sum().item() / max(valid.sum().item(), 1)
    G = S.sigmoid_().sub_(label).mul_(M).mul_(-lr)  # (B, 2W+1, 1+K)  -lr ∂J/∂S
    window_ids = ids.unfold(0, W2, 1).reshape(-1)  # (B·(2W+1),)
    _scatter_rows(V, window_ids, torch.bmm(G, Y).view(-1, D))  # ∂J/∂X = G Y
    _scatter_rows(U, outs.reshape(-1), torch.bmm(G.transpose(1, 2), Xw).view(-1, D))
    return loss


def _cbow_step(V, U, ids, valid, outs, out_w, lr, label, sign, want_loss) -> float:
    """One CBOW step: v̂ = mean of the window words predicts the centre against K negatives."""
    B, W2, D = valid.size(0), valid.size(1), V.size(1)
    X = V.index_select(0, ids)  # (B + 2W, D)
    Xw = X.unfold(0, W2, 1).transpose(1, 2)  # (B, 2W+1, D)
    count = valid.sum(dim=1, keepdim=True)  # (B, 1)
    h = torch.bmm(valid[:, None, :], Xw).squeeze(1) / count.clamp_min(1)  # (B, D)  v̂
    Y = U.index_select(0, outs.reshape(-1)).view(B, -1, D)  # (B, 1+K, D)
    s = torch.bmm(Y, h[:, :, None]).squeeze(2)  # (B, 1+K)
    M = out_w * (count > 0)  # (B, 1+K)  centres without a window word do not train
    loss = math.nan
    if want_loss:
        n = max(int((count > 0).sum()), 1)
        loss = -(F.logsigmoid(s * sign[0]) * M).sum().item() / n
    G = s.sigmoid_().sub_(label[0]).mul_(M).mul_(-lr)  # (B, 1+K)  -lr ∂J/∂s
    g_h = torch.bmm(G[:, None, :], Y)  # (B, 1, D)  -lr ∂J/∂v̂
    # gensim (cbow_mean=1) gives every window word the whole ∂J/∂v̂, not ∂J/∂v̂ / count
    window_ids = ids.unfold(0, W2, 1).reshape(-1)  # (B·(2W+1),)
    _scatter_rows(V, window_ids, (valid[:, :, None] * g_h).reshape(-1, D))
    _scatter_rows(U, outs.reshape(-1), (G[:, :, None] * h[:, None, :]).reshape(-1, D))
    return loss


def _init_model(cfg: SGNSConfig, V: int, dev: torch.device, gen) -> SkipGramNS | CBOWNS:
    cls = SkipGramNS if cfg.architecture == "skipgram" else CBOWNS
    model = cls(V, cfg.dim, device=dev)
    with torch.no_grad():
        model.V.uniform_(-0.5 / cfg.dim, 0.5 / cfg.dim, generator=gen)  # (V, D)
        model.U.zero_()  # (V, D)
    return model.requires_grad_(False)


def train_sgns(
    sentences: Corpus,
    counts: Tensor,
    config: SGNSConfig | None = None,
    *,
    device: Device = None,
    progress: bool = True,
    log_every: int = 200,
) -> SGNSRun:
    r"""Train word2vec with negative sampling, batched, without autograd. Chapter 2.

    sentences: token ids per sentence (words outside the vocabulary already removed, see
    ``encode_corpus``); counts: (V,) word counts (``vocab_counts``), for subsampling and the
    noise distribution P_n ∝ count^{3/4}. ``config`` (``SGNSConfig``) holds the settings, gensim's
    by default. The loss is logged every ``log_every`` steps. Deterministic for a given seed
    with ``workers=1`` on one device. Returns an ``SGNSRun`` (model, history, epoch timings).
    Its planned steps (a gpu check, :mod:`course_lib.step_plan`): each epoch's batches of
    subsampled centres, every epoch to come as many as the one under way.
    """
    cfg = config or SGNSConfig()
    dev = torch.device(device) if device is not None else torch.device("cpu")
    if cfg.workers > 1 and dev.type != "cpu":
        raise ValueError(
            f"workers > 1 is for the CPU; got workers={cfg.workers} on {dev}"
        )
    check_positive_int(log_every, "log_every")
    counts = vocab_counts(counts).cpu()  # (V,) float64, kept on the CPU
    V = counts.numel()
    check_negatives(V, cfg.negatives)
    tokens, seg = flatten_corpus(sentences)  # (N,), (N,)
    if int(tokens.max()) >= V:
        raise ValueError(
            f"token id {int(tokens.max())} is outside the {V} counted words: "
            "encode the sentences with the vocabulary the counts come from"
        )
    if bool((counts[tokens] <= 0).any()):
        raise ValueError(
            "a word in the corpus has count 0: counts must match the corpus"
        )
    tokens, seg = tokens.to(dev), seg.to(dev)  # (N,), (N,)
    gen = torch.Generator(device=dev).manual_seed(run_seed(cfg.seed))
    trainer = _Trainer(_init_model(cfg, V, dev, gen), cfg, counts, log_every)
    trainer.plan = run = step_plan.begin("train_sgns")  # a gpu check: a few steps
    keep = keep_probabilities(counts, cfg.sample)  # (V,)
    threads_before = torch.get_num_threads()
    if dev.type == "cpu":
        torch.set_num_threads(1)  # small ops: one thread per worker is fastest
    try:
        for epoch in range(cfg.epochs):
            _sync(dev)
            start = time.perf_counter()
            data = _Epoch(tokens, seg, keep, cfg, gen)
            # this epoch's ⌈n / B⌉ batches, and as many in each epoch after it
            step_plan.plan_epochs(run, cfg.epochs - epoch, -(-data.n // cfg.batch_size))
            pairs = trainer.epoch(epoch, data, progress)
            _sync(dev)
            seconds = time.perf_counter() - start
            trainer.run.epochs.append(
                dict(
                    epoch=epoch,
                    effective_words=data.n,
                    pairs=pairs,
                    seconds=seconds,
                    words_per_second=data.n / max(seconds, 1e-9),
                )
            )
            if step_plan.stopped(run):
                break
    finally:
        torch.set_num_threads(threads_before)
    trainer.run.history.sort(key=lambda h: h["progress"])
    return trainer.run


class _Trainer:
    """The SGD loop over one epoch's batches, in ``workers`` lock-free threads."""

    def __init__(self, model, cfg: SGNSConfig, counts: Tensor, log_every: int) -> None:
        dev = model.V.device
        self.model, self.cfg, self.log_every = model, cfg, log_every
        self.samplers = [
            NoiseSampler(counts, cfg.power, device=dev, seed=cfg.seed + 1 + t)
            for t in range(cfg.workers)
        ]  # one per worker: each draws its own negatives
        self.label = torch.zeros(1, 1, 1 + cfg.negatives, device=dev)  # (1, 1, 1+K)
        self.label[..., 0] = 1
        self.sign = 2 * self.label - 1  # (1, 1, 1+K)  +1 true word, -1 negatives
        self.step = _sg_step if cfg.architecture == "skipgram" else _cbow_step
        self.run = SGNSRun(model=model, config=cfg)
        self.lock = threading.Lock()
        self.plan = None  # the gpu check's Run (course_lib.step_plan), if any

    def epoch(self, epoch: int, data: _Epoch, progress: bool) -> int:
        """Train on every batch of the epoch; returns the number of (window, centre) pairs."""
        cfg = self.cfg
        n_batches = math.ceil(data.n / cfg.batch_size)
        bar = progress_bar(
            total=n_batches,
            desc=f"epoch {epoch + 1}/{cfg.epochs}",
            disable=not progress,
        )
        pairs = [torch.zeros((), device=data.centres.device) for _ in self.samplers]
        errors: list[BaseException] = []
        args = (epoch, data, n_batches, bar, pairs, errors)
        if cfg.workers == 1:
            self.work(0, *args)
        else:
            pool = [
                threading.Thread(target=self.work, args=(t, *args), daemon=True)
                for t in range(cfg.workers)
            ]
            for thread in pool:
                thread.start()
            for thread in pool:
                thread.join()
        bar.close()
        if errors:
            raise errors[0]
        return int(sum(p.item() for p in pairs))

    def work(self, t, epoch, data, n_batches, bar, pairs, errors) -> None:
        """Worker t takes chunks t, t + workers, ... of CHUNK batches each."""
        cfg, B, V, U = self.cfg, self.cfg.batch_size, self.model.V, self.model.U
        try:
            for c in range(t, math.ceil(n_batches / CHUNK), cfg.workers):
                lo = c * CHUNK * B
                hi = min(lo + CHUNK * B, data.n)
                chunk = data.chunk(lo, hi, self.samplers[t], cfg.negatives)
                pairs[t] += chunk.valid.sum()
                for b in range(c * CHUNK, min((c + 1) * CHUNK, n_batches)):
                    done = (epoch + b / n_batches) / cfg.epochs
                    lr = cfg.lr - (cfg.lr - cfg.min_lr) * done
                    first = b * B - lo
                    batch = chunk.batch(first, min(first + B, hi - lo))
                    want = b % self.log_every == 0
                    loss = self.step(V, U, *batch, lr, self.label, self.sign, want)
                    with self.lock:
                        bar.update(1)
                        if want:
                            entry = dict(epoch=epoch, progress=done * cfg.epochs, lr=lr)
                            self.run.history.append(dict(entry, loss=loss))
                        if step_plan.step(self.plan):  # a gpu check's steps are taken
                            return
        except BaseException as err:  # re-raised in the main thread
            errors.append(err)


def _sync(dev: torch.device) -> None:
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)

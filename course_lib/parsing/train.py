r"""Training the Chen & Manning parser on a treebank: oracle examples, then ``fit``. Chapter 4.

Chen & Manning (2014), section 3.1: every configuration on the static oracle's path through a
projective training tree is one example (its 48 features, the oracle's transition), so a
sentence of n words gives 2n examples; the loss is the cross-entropy of the transitions,
L(θ) = −Σᵢ log p_{tᵢ} + (λ/2)‖θ‖². Non-projective trees have no oracle path and are skipped.
:func:`oracle_examples` runs the oracle on thousands of sentences at once
(:class:`BatchConfigurations`), so all of EWT train (about 400,000 examples) takes seconds.

:func:`load_word_vectors` starts the word embeddings from pretrained vectors (the paper's
50-d vectors; here Chapter 2's word2vec). :func:`train_parser` builds the vocabularies,
the examples and the model, trains with
``course_lib.training.fit`` one epoch at a time, scores the dev set after each epoch (greedy
batched parsing) and keeps the weights with the best dev UAS. Options against the
overfitting of a wide parser on a small treebank: a learning rate decayed to 0 over the
epochs (``lr_schedule``), dev scored with a moving average of the weights (``average``;
Polyak & Juditsky 1992; Weiss et al. 2015), dropout on the embeddings (``embed_dropout``).
Shape legend: M examples, F = 48 features.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from course_lib.data.batching import batches
from course_lib.parsing.batch_parser import Parse, parse
from course_lib.parsing.evaluation import AttachmentScores, attachment_scores
from course_lib.parsing.features import (
    SPECIALS,
    UNK,
    ParserVocabs,
    batch_features,
    build_vocabs,
)
from course_lib.parsing.model import ChenManningParser, ParserConfig
from course_lib.parsing.oracle import gold_arrays, oracle_ids
from course_lib.parsing.projectivity import is_projective
from course_lib.parsing.state import BatchConfigurations
from course_lib.runtime import device as default_device
from course_lib.runtime import run_seed
from course_lib.training import (
    SCHEDULES,
    History,
    fit,
    lr_scheduler,
    weight_average,
)

__all__ = [
    "TrainedParser",
    "load_word_vectors",
    "oracle_examples",
    "oracle_parse",
    "train_parser",
]


def _run_oracle(
    sentences: Sequence[Any], vocabs: ParserVocabs, chunk_size: int, keep: bool
) -> tuple[list[np.ndarray], list[np.ndarray], list[BatchConfigurations]]:
    """Drive the batched oracle over ``sentences`` (projective ones), chunk by chunk."""
    system, feats, targets, states = vocabs.system, [], [], []
    for start in range(0, len(sentences), chunk_size):
        chunk = sentences[start : start + chunk_size]
        word_ids, tag_ids = vocabs.encode_batch([(s.words, s.upos) for s in chunk])
        state = BatchConfigurations([len(s.words) for s in chunk])
        gold = gold_arrays(
            [s.heads for s in chunk],
            [s.deprels for s in chunk],
            system,
            word_ids.shape[1],
        )
        while True:
            rows = np.flatnonzero(~state.done())  # (R,)
            if rows.size == 0:
                break
            ids = oracle_ids(state, system, *gold, rows)  # (R,)
            if keep:
                feats.append(batch_features(state, word_ids, tag_ids, rows))  # (R, F)
                targets.append(ids)
            state.apply(ids, system, rows)
        states.append(state)
    return feats, targets, states


def oracle_examples(
    sentences: Sequence[Any], vocabs: ParserVocabs, *, chunk_size: int = 4096
) -> tuple[Tensor, Tensor]:
    """The training examples of the projective ``sentences``: features (M, 48), targets (M,).

    sentences: objects with ``.words .upos .heads .deprels`` (``course_lib.data.Sentence``).
    Non-projective trees are skipped; M = 2 × (words in the projective sentences).
    """
    projective = [s for s in sentences if is_projective(s.heads)]
    if not projective:
        raise ValueError("no projective sentence to make examples from")
    feats, targets, _ = _run_oracle(projective, vocabs, chunk_size, keep=True)
    x = torch.from_numpy(np.concatenate(feats))  # (M, F)
    y = torch.from_numpy(np.concatenate(targets))  # (M,)
    return x, y


def oracle_parse(
    sentences: Sequence[Any], vocabs: ParserVocabs, *, chunk_size: int = 4096
) -> list[Parse]:
    """The trees the batched oracle builds for projective ``sentences`` (the gold ones)."""
    _, _, states = _run_oracle(list(sentences), vocabs, chunk_size, keep=False)
    system = vocabs.system
    return [
        Parse(tuple(state.heads(b)), tuple(state.labels(b, system)))
        for state in states
        for b in range(len(state))
    ]


@dataclass
class TrainedParser:
    """A trained model with its vocabularies, its training history and dev scores per epoch."""

    model: ChenManningParser
    vocabs: ParserVocabs
    history: History
    dev_scores: list[AttachmentScores] = field(default_factory=list)
    dev_parses: list[list[Parse]] = field(
        default_factory=list
    )  # each epoch's dev trees
    best_epoch: int = 0
    seconds: float = 0.0
    word_vector_coverage: float = 0.0  # share of the word vocabulary started pretrained

    def parse(
        self,
        sentences: Sequence[Any],
        *,
        batch_size: int = 2048,
        device: torch.device | str | None = None,
    ) -> list[Parse]:
        """Greedy batched parsing (``batch_parser.parse``) with this model."""
        return parse(
            self.model, self.vocabs, sentences, batch_size=batch_size, device=device
        )


def load_word_vectors(
    model: ChenManningParser,
    vocabs: ParserVocabs,
    words: Sequence[str],
    vectors: Tensor,
) -> float:
    """Copy pretrained vectors into the rows of ``model.word_embed`` whose word they cover.

    words: (N,) the words of ``vectors`` (N, d), d = the parser's ``embed_dim``; matched
    lower-cased when the vocabularies are. The specials (<null>, <root>, <unk>) and words
    without a vector keep their random initialisation; the copied vectors are rescaled to
    the standard deviation of the random table, so only their directions are new.
    Returns the share of the (non-special) word vocabulary that got a vector.
    """
    vectors = torch.as_tensor(vectors, dtype=torch.float32)  # (N, d)
    d = model.config.embed_dim
    if vectors.dim() != 2 or vectors.size(1) != d or vectors.size(0) != len(words):
        raise ValueError(
            f"vectors must be (len(words), embed_dim) = ({len(words)}, {d}), "
            f"got {tuple(vectors.shape)}"
        )
    fold = str.lower if vocabs.lowercase else str
    index: dict[str, int] = {}
    for i, w in enumerate(words):
        index.setdefault(fold(w), i)
    tokens = vocabs.words.tokens
    pairs = [
        (r, index[w]) for r, w in enumerate(tokens) if w not in SPECIALS and w in index
    ]
    if pairs:
        rows, src = (torch.tensor(c) for c in zip(*pairs))  # (R,), (R,)
        table = model.word_embed.weight  # (n_words, d)
        chosen = vectors[src]  # (R, d)
        scale = table.detach().std() / chosen.std().clamp_min(1e-12)
        with torch.no_grad():
            table[rows.to(table.device)] = (chosen * scale).to(table.device)
    n_words = sum(w not in SPECIALS for w in tokens)
    return len(pairs) / max(n_words, 1)


def _shuffled_batches(
    x: Tensor, y: Tensor, batch_size: int, gen: torch.Generator, deadline: float
) -> Iterator[tuple[Tensor, Tensor]]:
    """One epoch of :func:`course_lib.data.batching.batches`, cut short once the
    ``deadline`` has passed (after the first batch)."""
    for batch in batches((x, y), batch_size, generator=gen):
        yield batch
        if time.perf_counter() > deadline:
            return


def _word_dropout(vocabs: ParserVocabs, alpha: float, device: torch.device):
    """A function (B, F) -> (B, F) that swaps rare word ids for <unk> (none when alpha = 0)."""
    if alpha == 0:
        return lambda x: x
    counts = torch.tensor(
        [vocabs.words.counts[w] for w in vocabs.words.tokens], dtype=torch.float32
    )  # (V,)
    p = torch.where(counts > 0, alpha / (alpha + counts), 0.0).to(device)  # (V,)

    def drop(x: Tensor) -> Tensor:
        words = x[:, :18]  # (B, 18)
        swap = torch.rand(words.shape, device=x.device) < p[words]  # (B, 18)
        return torch.cat([words.masked_fill(swap, UNK), x[:, 18:]], dim=1)  # (B, F)

    return drop


def train_parser(
    train: Sequence[Any],
    dev: Sequence[Any] | None = None,
    *,
    epochs: int = 10,
    batch_size: int = 1024,
    optimizer: str = "adam",
    lr: float = 2e-3,
    weight_decay: float = 1e-8,
    embed_dim: int = 50,
    hidden: int = 200,
    activation: str = "cube",
    dropout: float = 0.5,
    embed_dropout: float = 0.0,
    init: str = "xavier",
    min_freq: int = 2,
    word_dropout: float = 0.0,
    clip_norm: float | None = 5.0,
    lr_schedule: str = "constant",
    average: float | None = None,
    word_vectors: tuple[Sequence[str], Tensor] | None = None,
    vector_vocab: bool = False,
    max_seconds: float | None = None,
    device: torch.device | str | None = None,
    seed: int = 0,
    progress: bool = True,
) -> TrainedParser:
    """Train a Chen & Manning parser on ``train``; keep the epoch with the best dev UAS.

    train, dev: sentences with ``.words .upos .heads .deprels`` (gold UPOS are the tags).
    optimizer: "adam" or "adagrad" (the paper's, with lr 0.01 and ``init="paper"``);
    weight_decay is the L2 λ of every weight but the word embeddings' (see the code); the
    model's other sizes are :class:`ParserConfig`'s.
    word_dropout α: during training each word feature becomes <unk> with probability
    α / (α + count(word)) (Kiperwasser & Goldberg 2016), so rare words teach <unk> too.
    lr_schedule: "constant", or "linear" / "cosine" from lr to 0 over the ``epochs``,
    updated after every step (``course_lib.training.lr_scheduler``).
    average: β of an exponential moving average of the weights
    (``course_lib.training.weight_average``; Weiss et al. 2015): dev is scored, and the
    best epoch kept, with the averaged weights; None trains and scores the raw weights.
    word_vectors: (words, vectors (N, embed_dim)) to start the word embeddings from
    (:func:`load_word_vectors`); None keeps the random initialisation. vector_vocab: the
    word vocabulary also holds every word of ``word_vectors`` (``build_vocabs``'s
    extra_words), so that a dev word the training sentences lack is read through its vector.
    max_seconds: stop training (mid-epoch) once this much time has passed since the call;
    the dev scoring after the last epoch still runs. device: default ``course_lib.device()``.
    Deterministic for a given seed and device.
    """
    if optimizer not in ("adam", "adagrad"):
        raise ValueError(f"optimizer must be 'adam' or 'adagrad', got {optimizer!r}")
    if not train:
        raise ValueError("train_parser needs training sentences")
    if word_dropout < 0:
        raise ValueError(f"word_dropout must be >= 0, got {word_dropout}")
    if lr_schedule not in SCHEDULES:
        raise ValueError(f"lr_schedule must be one of {SCHEDULES}, got {lr_schedule!r}")
    device = torch.device(device) if device is not None else default_device()
    start = time.perf_counter()
    deadline = start + max_seconds if max_seconds is not None else math.inf
    torch.manual_seed(run_seed(seed))
    if vector_vocab and word_vectors is None:
        raise ValueError("vector_vocab=True needs word_vectors to take the words from")
    extra = word_vectors[0] if vector_vocab else ()
    vocabs = build_vocabs(train, min_freq=min_freq, extra_words=extra)
    x, y = oracle_examples(train, vocabs)  # (M, F), (M,)
    x, y = x.to(device), y.to(device)  # on a GPU the minibatches are sliced there
    config = ParserConfig.for_vocabs(
        vocabs,
        embed_dim=embed_dim,
        hidden=hidden,
        activation=activation,
        dropout=dropout,
        embed_dropout=embed_dropout,
        init=init,
    )
    model = ChenManningParser(config, device=device)
    coverage = 0.0
    if word_vectors is not None:
        coverage = load_word_vectors(model, vocabs, *word_vectors)
    opt_class = torch.optim.Adam if optimizer == "adam" else torch.optim.Adagrad
    # no weight decay on the word embeddings: under Adam an L2 term alone moves a row that
    # the batch does not use by up to a full step towards 0, so a rare word's vector (and an
    # unseen word's pretrained one) would shrink away between its uses (Loshchilov & Hutter)
    rest = [p for name, p in model.named_parameters() if name != "word_embed.weight"]
    groups = [
        {"params": rest},
        {"params": [model.word_embed.weight], "weight_decay": 0.0},
    ]
    opt = opt_class(groups, lr=lr, weight_decay=weight_decay)
    sched = lr_scheduler(opt, lr_schedule, epochs * math.ceil(len(y) / batch_size))
    averaged = weight_average(model, average) if average is not None else None
    scored = averaged.module if averaged is not None else model  # dev is scored with it
    gen = torch.Generator().manual_seed(run_seed(seed))
    loss = nn.CrossEntropyLoss()
    drop = _word_dropout(vocabs, word_dropout, device)
    history, scores, parses = History(), [], []
    best, best_state, best_epoch = -1.0, None, 0
    for epoch in range(epochs):
        h = fit(
            model,
            lambda: _shuffled_batches(x, y, batch_size, gen, deadline),
            optimizer=opt,
            loss_fn=lambda m, batch: loss(m(drop(batch[0])), batch[1]),
            clip_norm=clip_norm,
            device=device,
            scheduler=sched,
            on_step=None
            if averaged is None
            else lambda: averaged.update_parameters(model),
            progress=progress,
            desc=f"parser epoch {epoch + 1}/{epochs}",
        )
        history.train_loss += h.train_loss
        history.step_loss += h.step_loss
        history.grad_norm += h.grad_norm
        history.seconds += h.seconds
        if dev:
            parses.append(parse(scored, vocabs, dev))
            scores.append(attachment_scores(dev, parses[-1]))
            if scores[-1].uas > best:
                best, best_epoch = scores[-1].uas, epoch + 1
                best_state = copy.deepcopy(scored.state_dict())
        if time.perf_counter() > deadline:
            break
    if best_state is not None:
        model.load_state_dict(best_state)
    else:
        best_epoch = len(history.train_loss)
        if averaged is not None:
            model.load_state_dict(scored.state_dict())  # keep the averaged weights
    seconds = time.perf_counter() - start
    return TrainedParser(
        model, vocabs, history, scores, parses, best_epoch, seconds, coverage
    )

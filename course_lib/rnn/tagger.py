r"""A BiLSTM part-of-speech tagger, its most-frequent-tag baseline and per-tag accuracy. Ch. 6.

CS224N lecture 6: a bidirectional RNN gives each word a state that has read the whole sentence,
h_t = [→h_t; ←h_t], and a softmax over h_t tags it (sequence labelling; Graves & Schmidhuber,
2005; Huang et al., 2015; Plank et al., 2016). Each word enters as the concatenation of three
embeddings: the lower-cased word (rare words replaced by ``<unk>`` while training, *word
dropout*, so ``<unk>`` is learned), its last three letters (most of English morphology:
-ing, -ed, -ly, -s) and its shape (capitalised, all caps, digits, punctuation), which together
tag unseen words well without a character-level network.

The baseline gives every known word its most frequent training tag and every unknown word the
most frequent tag overall (the tagging baseline of Jurafsky & Martin, ch. 8).

Training uses the fused ``torch.nn.LSTM`` (``bidirectional=True``) with packed sequences, so
padding never reaches the states (``course_lib.rnn.stacked.RecurrentNet`` is the from-scratch
twin, with the same numbers); ``TaggerConfig(cell="gru")`` swaps in ``torch.nn.GRU``, for
Chapter 6's LSTM-against-GRU comparison.

Shape legend: B batch (sentences), T time (words, padded), E embedding width, H hidden width,
S = directions · H (2H for the BiLSTM), C tags.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from course_lib.data.batching import length_groups, pad
from course_lib.data.treebank import Sentence
from course_lib.data.vocab import Vocab
from course_lib.runtime import run_seed
from course_lib.training import evaluating

__all__ = [
    "BiLSTMTagger",
    "MostFrequentTag",
    "TaggerConfig",
    "TaggerVocabs",
    "confusions",
    "per_tag_accuracy",
    "predict",
    "tagging_batches",
    "word_shape",
]

PAD = "<pad>"
_RECURRENT = {"lstm": nn.LSTM, "gru": nn.GRU}
IGNORE = -100  # the label of padding positions (F.cross_entropy's ignore_index)


def word_shape(word: str) -> str:
    """A coarse shape: ``"x"`` lower, ``"Xx"`` capitalised, ``"X"`` all caps, ``"d"`` digits,
    ``"p"`` punctuation, ``"m"`` anything else (mixed, e.g. *e-mail*, *3rd*)."""
    if word.isdigit() or word.replace(",", "").replace(".", "").isdigit():
        return "d"
    if word.isalpha():
        if word.islower():
            return "x"
        if word.isupper():
            return "X"
        return "Xx" if word[0].isupper() and word[1:].islower() else "m"
    if not any(ch.isalnum() for ch in word):
        return "p"
    return "m"


def _suffix(word: str) -> str:
    return word.lower()[-3:]


@dataclass(frozen=True)
class TaggerVocabs:
    """Vocabularies of words (lower-cased), suffixes, shapes and tags, built from training."""

    words: Vocab
    suffixes: Vocab
    shapes: Vocab
    tags: Vocab

    @classmethod
    def build(cls, sentences: Sequence[Sentence], min_freq: int = 1) -> TaggerVocabs:
        """Words seen at least ``min_freq`` times; specials ``<unk>``, ``<pad>`` first."""
        if not sentences:
            raise ValueError(
                "need at least one training sentence to build vocabularies"
            )
        specials = ("<unk>", PAD)
        return cls(
            words=Vocab.build(
                [[w.lower() for w in s.words] for s in sentences],
                min_freq,
                None,
                specials,
            ),
            suffixes=Vocab.build(
                [[_suffix(w) for w in s.words] for s in sentences], 1, None, specials
            ),
            shapes=Vocab.build(
                [[word_shape(w) for w in s.words] for s in sentences], 1, None, specials
            ),
            tags=Vocab.build([s.upos for s in sentences], specials=(), unk=None),
        )


@dataclass(frozen=True)
class TaggerConfig:
    """Sizes of the BiLSTM tagger (defaults: the ``cpu`` profile's)."""

    n_words: int
    n_suffixes: int
    n_shapes: int
    n_tags: int
    word_dim: int = 64
    suffix_dim: int = 32
    shape_dim: int = 8
    hidden: int = 64
    num_layers: int = 1
    dropout: float = 0.3
    bidirectional: bool = True
    cell: str = "lstm"  # or "gru"

    def __post_init__(self) -> None:
        if self.cell not in _RECURRENT:
            raise ValueError(
                f"cell must be one of {list(_RECURRENT)}; got {self.cell!r}"
            )

    @classmethod
    def from_vocabs(
        cls, vocabs: TaggerVocabs, **sizes: int | float | bool | str
    ) -> TaggerConfig:
        """The config of ``vocabs`` with the given sizes."""
        return cls(
            len(vocabs.words),
            len(vocabs.suffixes),
            len(vocabs.shapes),
            len(vocabs.tags),
            **sizes,
        )


Batch = tuple[Tensor, Tensor, Tensor, Tensor, Tensor]


def tagging_batches(
    sentences: Sequence[Sentence],
    vocabs: TaggerVocabs,
    batch_size: int = 32,
    *,
    shuffle: bool = False,
    word_dropout: float = 0.0,
    seed: int = 0,
) -> Callable[[], Iterator[Batch]]:
    """A function returning fresh padded batches ``(words, suffixes, shapes, lengths, tags)``.

    words, suffixes, shapes, tags: (B, T) ids (tags ``IGNORE`` = −100 at padding); lengths (B,).
    Sentences are sorted by length into batches (little padding); with ``shuffle`` the batch
    order changes every epoch and each word appearing once in training becomes ``<unk>`` with
    probability ``word_dropout`` (seeded, so two runs see the same batches).
    """
    if any(len(s) == 0 for s in sentences):
        raise ValueError(
            "every sentence needs at least one word; got an empty sentence"
        )
    v = vocabs
    enc = [
        (
            v.words.encode([w.lower() for w in s.words]),
            v.suffixes.encode([_suffix(w) for w in s.words]),
            v.shapes.encode([word_shape(w) for w in s.words]),
            [v.tags.index(t) if t in v.tags else IGNORE for t in s.upos],
        )
        for s in sentences
    ]
    groups = length_groups([len(e[0]) for e in enc], batch_size)
    counts = v.words.counts
    rare = {i for i, w in enumerate(v.words.tokens) if counts.get(w, 0) == 1}
    unk, pad_id = v.words.unk_index, v.words.index(PAD)
    rng = random.Random(run_seed(seed))

    def batches() -> Iterator[Batch]:
        chosen = rng.sample(groups, len(groups)) if shuffle else groups
        for group in chosen:
            rows = [enc[i] for i in group]
            words = [list(r[0]) for r in rows]
            if word_dropout > 0:
                for ws in words:
                    for j, w in enumerate(ws):
                        if w in rare and rng.random() < word_dropout:
                            ws[j] = unk
            yield (
                pad(words, pad_id),  # (B, T)
                pad([r[1] for r in rows], pad_id),  # (B, T)
                pad([r[2] for r in rows], pad_id),  # (B, T)
                torch.tensor([len(r[0]) for r in rows]),  # (B,)
                pad([r[3] for r in rows], IGNORE),  # (B, T)
            )

    return batches


def _check_tagger_inputs(
    words: Tensor, suffixes: Tensor, shapes: Tensor, lengths: Tensor
) -> None:
    """The tagger's inputs: three (B, T) id tensors of one shape and (B,) lengths >= 1."""
    if words.dim() != 2 or not words.shape == suffixes.shape == shapes.shape:
        raise ValueError(
            "words, suffixes and shapes must be (B, T) of one shape; got "
            f"{tuple(words.shape)}, {tuple(suffixes.shape)}, {tuple(shapes.shape)}"
        )
    if lengths.shape != (words.size(0),) or lengths.min() < 1:
        raise ValueError(f"lengths must be (B,) with entries >= 1; got {lengths}")


class BiLSTMTagger(nn.Module):
    """Embeddings [word; suffix; shape] → (Bi)LSTM (or GRU) → linear: logits for every word."""

    def __init__(self, cfg: TaggerConfig, *, device: torch.device | str | None = None):
        super().__init__()
        self.cfg = cfg
        self.word = nn.Embedding(cfg.n_words, cfg.word_dim, device=device)
        self.suffix = nn.Embedding(cfg.n_suffixes, cfg.suffix_dim, device=device)
        self.shape = nn.Embedding(cfg.n_shapes, cfg.shape_dim, device=device)
        self.rnn = _RECURRENT[cfg.cell](
            cfg.word_dim + cfg.suffix_dim + cfg.shape_dim,
            cfg.hidden,
            num_layers=cfg.num_layers,
            bidirectional=cfg.bidirectional,
            dropout=cfg.dropout if cfg.num_layers > 1 else 0.0,
            batch_first=True,
            device=device,
        )
        directions = 2 if cfg.bidirectional else 1
        self.out = nn.Linear(directions * cfg.hidden, cfg.n_tags, device=device)
        self.dropout = nn.Dropout(cfg.dropout)

    def forward(
        self, words: Tensor, suffixes: Tensor, shapes: Tensor, lengths: Tensor
    ) -> Tensor:
        """words, suffixes, shapes: (B, T) ids; lengths: (B,). Returns logits (B, T, C)."""
        _check_tagger_inputs(words, suffixes, shapes, lengths)
        x = torch.cat(
            [self.word(words), self.suffix(suffixes), self.shape(shapes)], dim=-1
        )  # (B, T, E)
        x = self.dropout(x)  # (B, T, E)
        packed = pack_padded_sequence(
            x, lengths.cpu(), batch_first=True, enforce_sorted=False
        )  # only the real steps of each sentence
        out, _ = self.rnn(packed)  # packed, (sum of lengths, S)
        T = words.size(1)
        h, _ = pad_packed_sequence(out, batch_first=True, total_length=T)  # (B, T, S)
        return self.out(self.dropout(h))  # (B, T, C)

    def loss(self, batch: Batch) -> Tensor:
        """Mean cross-entropy over the real (non-padding) words of a batch. Scalar."""
        words, suffixes, shapes, lengths, tags = batch
        logits = self(words, suffixes, shapes, lengths)  # (B, T, C)
        return F.cross_entropy(
            logits.flatten(0, 1), tags.flatten(), ignore_index=IGNORE
        )


@torch.no_grad()
def predict(
    model: BiLSTMTagger,
    batches: Callable[[], Iterator[Batch]],
    *,
    device: torch.device | str | None = None,
) -> tuple[list[int], list[int]]:
    """Gold and predicted tag ids of every real word, in batch order (model in eval mode)."""
    gold, pred = [], []
    with evaluating(model):
        for words, suffixes, shapes, lengths, tags in batches():
            logits = model(
                words.to(device),
                suffixes.to(device),
                shapes.to(device),
                lengths.to(device),
            )  # (B, T, C)
            keep = tags != IGNORE  # (B, T)
            gold += tags[keep].tolist()
            pred += logits.argmax(-1).cpu()[keep].tolist()
    return gold, pred


class MostFrequentTag:
    """Baseline: each known word's most frequent training tag; unknown words the overall one.

    Ties go to the tag seen first in training. Words are matched exactly (case kept).
    """

    def __init__(self, sentences: Sequence[Sentence]) -> None:
        counts: dict[str, Counter[str]] = defaultdict(Counter)
        overall: Counter[str] = Counter()
        for s in sentences:
            for w, t in zip(s.words, s.upos):
                counts[w][t] += 1
                overall[t] += 1
        if not overall:
            raise ValueError("need at least one tagged word to count tags")
        self.table = {w: c.most_common(1)[0][0] for w, c in counts.items()}
        self.default = overall.most_common(1)[0][0]

    def __call__(self, words: Sequence[str]) -> list[str]:
        """The tags of one sentence's words."""
        return [self.table.get(w, self.default) for w in words]

    def right(self, sentences: Sequence[Sentence]) -> list[bool]:
        """For every word of ``sentences``, whether its looked-up tag is its gold tag."""
        return [g == p for s in sentences for g, p in zip(s.upos, self(s.words))]


def per_tag_accuracy(
    gold: Sequence[str], pred: Sequence[str]
) -> dict[str, tuple[float, int]]:
    """``{tag: (accuracy, count)}`` over the words whose gold tag is ``tag``, frequent first."""
    if len(gold) != len(pred):
        raise ValueError(f"gold and pred differ in length: {len(gold)} vs {len(pred)}")
    right: Counter[str] = Counter()
    total = Counter(gold)
    for g, p in zip(gold, pred):
        right[g] += g == p
    return {t: (right[t] / n, n) for t, n in total.most_common()}


def confusions(
    gold: Sequence[str], pred: Sequence[str], k: int = 10
) -> list[tuple[str, str, int]]:
    """The ``k`` most frequent errors as ``(gold, predicted, count)``."""
    errors = Counter((g, p) for g, p in zip(gold, pred) if g != p)
    return [(g, p, n) for (g, p), n in errors.most_common(k)]

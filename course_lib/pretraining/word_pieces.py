r"""A word-level task on a subword model: one vector per word from its pieces. Chapter 9.

A subword tokenizer splits a rare word into several pieces, and the encoder gives one hidden
state per piece; a tagger needs one per word. Three common choices, for a word w whose pieces
are p_1 … p_n (CS224N lecture 9; BERT takes the first piece for named entities, Devlin et al.,
2019, §5.3):

    first:  h_w = h_{p_1}        last:  h_w = h_{p_n}        mean:  h_w = (1/n) Σ_i h_{p_i}

A *linear probe* (Alain & Bengio, 2016) then measures what the frozen vectors carry: a single
linear layer ŷ = softmax(W h_w + b) trained on the task's labels, the encoder left untouched,
so the accuracy tells what the representation makes linearly available, not what a large
classifier could learn on top of it.

Shape letters: B sentences, T pieces (with [CLS] and padding), N pieces in all, W words, D width.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor, nn

from course_lib.data.batching import pad, shuffled_batches
from course_lib.runtime import run_seed
from course_lib.training import evaluating, fit

__all__ = [
    "POOLINGS",
    "linear_probe",
    "pool_pieces",
    "word_features",
    "words_to_pieces",
]

POOLINGS = ("first", "last", "mean")


def words_to_pieces(
    tokenizer: Any, sentences: Sequence[Sequence[str]], *, cls_id: int, max_len: int
) -> tuple[list[list[int]], list[list[int]], list[int]]:
    """Each sentence (a list of words) as [CLS] followed by its words' pieces, each word
    encoded as " " + word (as the chapter encodes text), and the word of every piece
    (−1 for [CLS]). Sentences of more than ``max_len`` ids are left out.

    Returns the ids, the word indices and the positions of the kept sentences.
    """
    ids, index, kept = [], [], []
    for s, words in enumerate(sentences):
        row, of_word = [cls_id], [-1]
        for i, word in enumerate(words):
            pieces = tokenizer.encode(" " + word).ids
            if not pieces:
                raise ValueError(f"word {word!r} of sentence {s} has no pieces")
            row += pieces
            of_word += [i] * len(pieces)
        if len(row) <= max_len:
            ids.append(row)
            index.append(of_word)
            kept.append(s)
    return ids, index, kept


def _check_pooling(hidden: Tensor, word_index: Tensor, how: str) -> None:
    if how not in POOLINGS:
        raise ValueError(f"how must be one of {POOLINGS}; got {how!r}")
    if hidden.dim() != 2 or word_index.shape != hidden.shape[:1]:
        raise ValueError(
            f"hidden must be (N, D) and word_index (N,); got {tuple(hidden.shape)} "
            f"and {tuple(word_index.shape)}"
        )
    counts = torch.bincount(word_index[word_index >= 0])  # (W,) pieces of each word
    if (counts == 0).any():
        missing = int((counts == 0).nonzero()[0])
        raise ValueError(f"word {missing} has no piece: words must be numbered 0 … W−1")


def pool_pieces(hidden: Tensor, word_index: Tensor, how: str) -> Tensor:
    """Word vectors from piece vectors, by ``how`` (first, last or mean piece).

    hidden (N, D); word_index (N,): the word of each piece, 0 … W−1, or −1 for none
    ([CLS], padding). Returns (W, D).
    """
    _check_pooling(hidden, word_index, how)
    keep = word_index >= 0  # (N,)
    h, w = hidden[keep], word_index[keep]  # (M, D), (M,)
    counts = torch.bincount(w)  # (W,) pieces of each word
    if how == "mean":
        total = h.new_zeros(len(counts), h.size(1)).index_add_(0, w, h)  # (W, D)
        return total / counts[:, None].to(h.dtype)  # (W, D)
    position = torch.arange(len(w), device=w.device)  # (M,)
    start = torch.full_like(counts, len(w) if how == "first" else -1)  # (W,)
    reduce = "amin" if how == "first" else "amax"
    piece = start.scatter_reduce(0, w, position, reduce)  # (W,) first or last piece
    return h[piece]  # (W, D)


@torch.no_grad()
def word_features(
    encoder: nn.Module,
    ids: Sequence[Sequence[int]],
    word_index: Sequence[Sequence[int]],
    *,
    pad_id: int,
    poolings: Sequence[str] = POOLINGS,
    batch_size: int = 64,
    device: torch.device | str | None = None,
) -> dict[str, Tensor]:
    """The frozen ``encoder``'s vector for every word of every sentence, in order, by each
    pooling: {how: (W, D)} on the CPU. ``encoder(tokens)`` returns (hidden (B, T, D), ...)."""
    if len(ids) != len(word_index) or not ids:
        raise ValueError("ids and word_index must be non-empty and of the same length")
    out: dict[str, list[Tensor]] = {how: [] for how in poolings}
    with evaluating(encoder):
        for s in range(0, len(ids), batch_size):
            tokens = pad(ids[s : s + batch_size], pad_id, device=device)  # (B, T)
            hidden = encoder(tokens)[0].float().cpu()  # (B, T, D)
            offset, rows = 0, []
            for of_word in word_index[s : s + batch_size]:
                row = torch.tensor(of_word)  # (T_b,)
                rows.append(torch.where(row >= 0, row + offset, row))
                offset += int(row.max()) + 1
            index = pad(rows, -1)  # (B, T): each piece's word in the batch, −1 for none
            flat = hidden.reshape(-1, hidden.size(-1))  # (B·T, D)
            for how in poolings:
                out[how].append(pool_pieces(flat, index.reshape(-1), how))  # (W_b, D)
    return {how: torch.cat(parts) for how, parts in out.items()}


def linear_probe(
    train_x: Tensor,
    train_y: Tensor,
    test_x: Tensor,
    *,
    n_classes: int,
    epochs: int = 5,
    lr: float = 1e-2,
    batch_size: int = 256,
    seed: int = 0,
    device: torch.device | str | None = None,
) -> Tensor:
    """The labels (N_test,) that one linear layer ŷ = softmax(W h + b) predicts for ``test_x``,
    trained with Adam on cross-entropy over (train_x (N, D), train_y (N,)) in shuffled
    minibatches through :func:`~course_lib.training.fit`. Seeded by ``seed`` alone: the
    global random state is left as it was."""
    if len(train_x) != len(train_y) or not len(train_x) or not len(test_x):
        raise ValueError(
            "the features and labels must be non-empty and of the same length"
        )
    gen = torch.Generator().manual_seed(run_seed(seed))
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(run_seed(seed))
        probe = nn.Linear(train_x.size(1), n_classes).to(device)  # W, b

    batches = lambda: shuffled_batches(train_x, train_y, batch_size, gen)  # noqa: E731
    fit(
        probe,
        batches,
        optimizer=torch.optim.Adam(probe.parameters(), lr=lr),
        epochs=epochs,
        loss_fn=lambda m, b: nn.functional.cross_entropy(m(b[0]), b[1]),
        device=device,
        progress=False,
    )
    with torch.no_grad(), evaluating(probe):
        return probe(test_x.to(device)).argmax(-1).cpu()  # (N_test,)

r"""Scoring whole sentences with a language model: log P(w_1 … w_n <eos>). Chapter 5.

CS224N lecture 5 and *Sequence Models* week 1: a language model gives every sentence a
probability, P(w_1 … w_n) = Π_t P(w_t | w_<t), which is what a speech recogniser asks
of it to choose between transcriptions that sound alike ("apple and pear salad" against
"apple and pair salad"). The sentence starts after a start token (``bos``, WikiText-2's
``<eos>``: the end of the previous line) and, with ``eos``, ends with the end token:

    log P(s) = Σ_{t=1}^{n+1} log P(w_t | <bos> w_1 … w_{t-1}),   w_{n+1} = <eos>

scored by teacher forcing through the decoding protocol (:mod:`course_lib.decoding`,
``step(tokens, state)``), so the same function scores the n-gram models and the neural ones.

Shape legend: B sentences, T the longest sentence (with <eos>), V vocabulary.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

import torch
from torch import Tensor, nn

from course_lib.decoding.protocol import check_decodable, check_log_probs
from course_lib.training import evaluating

__all__ = ["SOUNDS_ALIKE", "sentence_log_probs", "token_log_probs"]

#: Pairs (what was said, a transcription that sounds the same) for a language model to
#: choose between, WikiText-2 tokenized (lower case, spaced punctuation). The first is
#: the lecture's (*Sequence Models*, week 1); its "apple" and "salad" are not in
#: WikiText-2's vocabulary, every word of the others is. Chapter 5.
SOUNDS_ALIKE: tuple[tuple[str, str], ...] = (
    ("apple and pear salad", "apple and pair salad"),
    ("the peace treaty was signed in 1919", "the piece treaty was signed in 1919"),
    ("the weather was cold and wet", "the whether was cold and wet"),
    ("there were two ships in the harbour", "their were two ships in the harbour"),
    ("he was elected for a second term", "he was elected four a second term"),
    ("the reign of the king ended in 1910", "the rain of the king ended in 1910"),
    ("one week later , the army returned", "one weak later , the army returned"),
    ("the right to vote", "the write to vote"),
    ("he knew the answer", "he new the answer"),
    ("they won the game", "they one the game"),
    ("the son of the king", "the sun of the king"),
    ("recognize speech", "wreck a nice beach"),
)


def _check_sentences(sentences, bos: int, eos: int | None) -> list[list[int]]:
    """The sentences as lists of ids, each with <eos> appended when ``eos`` is given."""
    if isinstance(sentences, (str, Tensor)) or not isinstance(sentences, Sequence):
        raise TypeError(
            "sentences must be a list of token-id lists (encode them with the vocabulary)"
        )
    if len(sentences) == 0:
        raise ValueError("no sentences to score")
    rows = []
    for i, s in enumerate(sentences):
        if isinstance(s, str) or not all(isinstance(w, int) for w in s):
            raise TypeError(f"sentence {i} must be a list of int ids, got {s!r:.60}")
        rows.append(list(s) + ([eos] if eos is not None else []))
        if not rows[-1]:
            raise ValueError(
                f"sentence {i} is empty and no eos is given: nothing to score"
            )
    if not isinstance(bos, int):
        raise TypeError(f"bos must be an int id, got {bos!r}")
    return rows


def _device(model) -> torch.device:
    if isinstance(model, nn.Module):
        for p in model.parameters():
            return p.device
    return torch.device("cpu")


@torch.no_grad()
def token_log_probs(
    model,
    sentences: Sequence[Sequence[int]],
    *,
    bos: int,
    eos: int | None = None,
    device: torch.device | str | None = None,
) -> list[Tensor]:
    r"""log P(w_t | <bos> w_<t) of every token of each sentence, <eos> last when given.

    model: any language model with the decoding protocol (an n-gram model, an ``RNNLM``);
    sentences: B lists of token ids; ``device``: where the ids go (default: the model's).
    All sentences run as one batch, padded; the padding is never scored. Returns B
    float64 tensors (n_b + 1,) (or (n_b,) without ``eos``), on the CPU.
    """
    check_decodable(model)
    rows = _check_sentences(sentences, bos, eos)
    device = torch.device(device) if device is not None else _device(model)
    B, T = len(rows), max(len(r) for r in rows)
    targets = torch.full((B, T), bos, dtype=torch.long, device=device)  # (B, T)
    for b, r in enumerate(rows):
        targets[b, : len(r)] = torch.tensor(r, dtype=torch.long)
    mode = (
        evaluating(model) if isinstance(model, nn.Module) else contextlib.nullcontext()
    )
    columns = []
    with mode:
        tokens = torch.full((B,), bos, dtype=torch.long, device=device)  # (B,)
        log_p, state = model.step(tokens, None)  # (B, V): P(w_1 | <bos>)
        for t in range(T):
            check_log_probs(log_p, B)
            columns.append(
                log_p.gather(1, targets[:, t : t + 1])[:, 0].double()
            )  # (B,)
            if t < T - 1:
                log_p, state = model.step(targets[:, t], state)  # (B, V)
    lp = torch.stack(columns, dim=1).cpu()  # (B, T)
    return [lp[b, : len(r)] for b, r in enumerate(rows)]


def sentence_log_probs(
    model,
    sentences: Sequence[Sequence[int]],
    *,
    bos: int,
    eos: int | None = None,
    device: torch.device | str | None = None,
) -> Tensor:
    r"""log P(s) = Σ_t log P(w_t | <bos> w_<t) of each sentence (B,) float64 (natural log).

    The sum of :func:`token_log_probs`; with ``eos`` the sentence must also end there.
    """
    scores = token_log_probs(model, sentences, bos=bos, eos=eos, device=device)
    return torch.stack([s.sum() for s in scores])  # (B,)

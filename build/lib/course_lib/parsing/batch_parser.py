r"""Greedy parsing with the neural classifier: one sentence at a time, or many together. Chapter 4.

CS224N lecture 4 and assignment 2 (minibatch parsing); Chen & Manning (2014), section 3.2: in each
configuration take the most probable *legal* transition, t* = argmax_{t legal} p(t | c), until
the configuration is terminal: 2n steps, no search.

- :func:`parse` advances a minibatch of sentences together: each step gathers the features of
  every unfinished sentence (:func:`batch_features`), runs one forward pass on ``device``, masks
  the illegal transitions with −∞ and applies the argmax in every sentence at once.
- :func:`parse_one` is the reference: a :class:`Configuration`, the readable
  :func:`config_features` and one forward pass per transition; with ``top_k`` it also records
  every state and the model's most probable transitions (the parser-state widget's data).

Both give the same trees (a test checks it); the batched one is much faster.
Shape legend: R unfinished sentences in a batch, F = 48 features, K transitions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import torch
from torch import nn

from course_lib.parsing.features import ParserVocabs, batch_features, config_features
from course_lib.parsing.state import BatchConfigurations
from course_lib.parsing.transitions import Configuration, Transition
from course_lib.training import evaluating

__all__ = ["Parse", "ParseStep", "as_words_and_tags", "parse", "parse_one"]


class Parse(NamedTuple):
    """A predicted tree: heads[i - 1] is the head of word i (0 = ROOT), deprels its label."""

    heads: tuple[int, ...]
    deprels: tuple[str, ...]


class ParseStep(NamedTuple):
    """One state of a greedy parse: the configuration, the transition taken, the top-k."""

    config: Configuration
    transition: Transition | None  # None in the final configuration
    top: tuple[tuple[str, float], ...]  # (transition, probability), most probable first


def as_words_and_tags(sentence: Any, i: int = 0) -> tuple[list[str], list[str]]:
    """(words, tags) of a Sentence-like object (``.words .upos``) or a (words, tags) pair."""
    if hasattr(sentence, "words") and hasattr(sentence, "upos"):
        words, tags = sentence.words, sentence.upos
    elif isinstance(sentence, Sequence) and len(sentence) == 2:
        words, tags = sentence
    else:
        raise TypeError(
            f"sentence {i} must have .words and .upos or be a (words, tags) pair; got "
            f"{type(sentence).__name__}"
        )
    if isinstance(words, str) or isinstance(tags, str):
        raise TypeError(f"sentence {i}: words and tags must be lists, not strings")
    if len(words) == 0 or len(words) != len(tags):
        raise ValueError(
            f"sentence {i} needs one tag per word and at least one word; got "
            f"{len(words)} words and {len(tags)} tags"
        )
    return list(words), list(tags)


def _device_of(model: nn.Module, device: torch.device | str | None) -> torch.device:
    if device is not None:
        return torch.device(device)
    return next(model.parameters()).device


@torch.no_grad()
def parse(
    model: nn.Module,
    vocabs: ParserVocabs,
    sentences: Sequence[Any],
    *,
    batch_size: int = 2048,
    device: torch.device | str | None = None,
) -> list[Parse]:
    """Parse ``sentences`` greedily, ``batch_size`` of them advancing together.

    sentences: Sentence-like objects (``.words .upos``) or (words, tags) pairs; the model
    must already be on ``device`` (default: where its parameters are). Sentences are batched
    by length (fewer idle rows); the results come back in the input order.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    pairs = [as_words_and_tags(s, i) for i, s in enumerate(sentences)]
    dev = _device_of(model, device)
    system = vocabs.system
    order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]))
    results: list[Parse | None] = [None] * len(pairs)
    with evaluating(model):
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            batch = [pairs[i] for i in chunk]
            word_ids, tag_ids = vocabs.encode_batch(batch)  # (B, P), (B, P)
            state = BatchConfigurations([len(w) for w, _ in batch])
            while True:
                rows = np.flatnonzero(~state.done())  # (R,)
                if rows.size == 0:
                    break
                feats = batch_features(state, word_ids, tag_ids, rows)  # (R, F)
                logits = model(torch.from_numpy(feats).to(dev))  # (R, K)
                legal = torch.from_numpy(state.legal_mask(system, rows)).to(
                    dev
                )  # (R, K)
                best = logits.masked_fill(~legal, float("-inf")).argmax(dim=1)  # (R,)
                state.apply(best.cpu().numpy(), system, rows, check=False)
            for b, i in enumerate(chunk):
                results[i] = Parse(
                    tuple(state.heads(b)), tuple(state.labels(b, system))
                )
    return results  # type: ignore[return-value]


@torch.no_grad()
def parse_one(
    model: nn.Module,
    vocabs: ParserVocabs,
    words: Sequence[str],
    tags: Sequence[str],
    *,
    top_k: int = 0,
    device: torch.device | str | None = None,
) -> tuple[Parse, list[ParseStep]]:
    """Parse one sentence transition by transition (the reference for :func:`parse`).

    Returns the tree and, when ``top_k > 0``, every :class:`ParseStep` (configuration,
    transition taken, the ``top_k`` most probable legal transitions with p(t | c) of eq. 2,
    the softmax taken over the legal transitions only); the last step is the terminal
    configuration, with no transition.
    """
    words, tags = as_words_and_tags((words, tags))
    dev = _device_of(model, device)
    system = vocabs.system
    word_ids, tag_ids = vocabs.encode(words, tags)  # (n + 1,), (n + 1,)
    config, steps = Configuration.initial(words), []
    with evaluating(model):
        while not config.is_terminal():
            feats = config_features(config, word_ids, tag_ids, system)  # (F,)
            x = torch.tensor([feats], dtype=torch.long, device=dev)  # (1, F)
            logits = model(x)[0]  # (K,)
            legal = torch.from_numpy(system.legal(config)).to(dev)  # (K,)
            logits = logits.masked_fill(~legal, float("-inf"))  # (K,)
            t = system.transitions[int(logits.argmax())]
            if top_k > 0:
                p = logits.softmax(dim=0)  # (K,) over the legal transitions
                k = min(top_k, int(legal.sum()))
                vals, idx = p.topk(k)  # (k,), (k,)
                top = tuple(
                    (str(system.transitions[int(j)]), float(v))
                    for v, j in zip(vals, idx, strict=True)
                )
                steps.append(ParseStep(config, t, top))
            config = config.apply(t)
    if top_k > 0:
        steps.append(ParseStep(config, None, ()))
    return Parse(tuple(config.heads()), tuple(config.deprels())), steps

"""HF ``tokenizers`` as the reference for the subword tests: train, and read back merges."""

from __future__ import annotations

import json
import random

from tokenizers import Tokenizer, models, pre_tokenizers, trainers


def hf_bpe(lines, vocab_size, *, min_frequency=0, specials=(), pre="whitespace_split"):
    """Train HF's BpeTrainer (no normalizer); returns (tokenizer, vocab dict, merge list)."""
    tok = Tokenizer(models.BPE())
    kwargs = {}
    if pre == "byte_level":
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        kwargs["initial_alphabet"] = pre_tokenizers.ByteLevel.alphabet()
    elif pre == "whitespace":
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
    else:
        tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=list(specials),
        show_progress=False,
        **kwargs,
    )
    tok.train_from_iterator(list(lines), trainer)
    model = json.loads(tok.to_str())["model"]
    return tok, model["vocab"], [tuple(m) for m in model["merges"]]


def hf_wordpiece(vocab, pre="whitespace_split", unk="[UNK]"):
    """HF's WordPiece model over a given vocabulary (list in id order)."""
    tok = Tokenizer(
        models.WordPiece({p: i for i, p in enumerate(vocab)}, unk_token=unk)
    )
    tok.pre_tokenizer = (
        pre_tokenizers.Whitespace()
        if pre == "whitespace"
        else pre_tokenizers.WhitespaceSplit()
    )
    return tok


def random_corpus(
    rng: random.Random, alphabet: str, *, max_word: int, lines: int
) -> list[str]:
    """Lines of random words over a small ``alphabet``, drawn from ``rng``: ties everywhere."""
    return [
        " ".join(
            "".join(rng.choice(alphabet) for _ in range(rng.randint(1, max_word)))
            for _ in range(rng.randint(1, 8))
        )
        for _ in range(lines)
    ]

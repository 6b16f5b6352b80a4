"""Our BPE trainer against HF ``tokenizers`` on WikiText-2 train, and the plain loop
against the incremental pair index, in one run. Chapter 9.

Issue target: the same merges, and our training time within 20x of HF's on WikiText-2
train (2 M tokens, 8,000 merges). Both sides start from the raw lines (pre-tokenizing and
counting words is part of the time), train with the same pre-tokenizer, no normalizer and
the same special token, and must produce identical merges and vocabularies; then both
encode the valid and test lines one line at a time (HF with ``encode_batch``, on all the
threads it uses by default), must give identical ids, and their throughputs are printed.

Then one long word (``--long-word`` characters, 100,000 by default: the letters of the valid
and test lines run together, as a pasted URL or token would be), encoded by both: the ids
must be identical, and ours must grow linearly (or as n log n) with the word's length:
the time for the whole word (best of 3) against the time for its first quarter (target at
most 10x; linear is 4x, n log n about 4.5x, quadratic 16x).

Then the chapter's two trainers side by side on one smaller corpus (the first
``--naive-lines`` lines, byte-level words, ``--naive-merges`` merges): the plain loop
``train_bpe_naive``, which recounts every pair after every merge, and ``train_bpe``, which
keeps an index of pair counts that each merge updates only where it changes a word. Both
must learn the same merges; their times and the ratio naive / incremental are printed.

Usage::

    python benchmarks/bpe_speed.py [--kind byte_bpe|bpe|both] [--merges 8000] [--lines N]
        [--naive-lines 300] [--naive-merges 300] [--long-word 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import time

from course_lib.data import wikitext_lines
from course_lib.subwords import (
    Tokenizer,
    bytes_to_unicode,
    train_bpe,
    train_bpe_naive,
    word_counts,
)

SPECIALS = ["<|endoftext|>"]
LONG_WORD = 100_000  # characters of the one long word (--long-word)


def _hf_train(lines, kind, vocab_size):
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers import models, pre_tokenizers, trainers

    tok = HFTokenizer(models.BPE())
    extra = {}
    if kind == "byte_bpe":
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        extra["initial_alphabet"] = pre_tokenizers.ByteLevel.alphabet()
    else:
        tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=SPECIALS, show_progress=False, **extra
    )
    tok.train_from_iterator(lines, trainer)
    return tok


def run(
    kind: str, lines: list[str], n_merges: int, test: list[str], long: int = LONG_WORD
) -> dict:
    pre = "byte_level" if kind == "byte_bpe" else "whitespace_split"
    alphabet = {c for w in word_counts(lines, pre) for c in w}
    if kind == "byte_bpe":
        alphabet |= set(bytes_to_unicode().values())
    vocab_size = len(SPECIALS) + len(alphabet) + n_merges

    start = time.perf_counter()
    hf = _hf_train(lines, kind, vocab_size)
    t_hf = time.perf_counter() - start
    start = time.perf_counter()
    ours = Tokenizer.train(
        lines, kind=kind, vocab_size=vocab_size, special_tokens=SPECIALS
    )
    t_ours = time.perf_counter() - start

    model = json.loads(hf.to_str())["model"]
    same_merges = [tuple(m) for m in model["merges"]] == list(ours.model.merges)
    same_vocab = model["vocab"] == {p: i for i, p in enumerate(ours.vocab)}

    start = time.perf_counter()
    hf_ids = [e.ids for e in hf.encode_batch(test)]
    e_hf = time.perf_counter() - start
    start = time.perf_counter()
    our_ids = [ours.encode(line).ids for line in test]
    e_ours = time.perf_counter() - start
    n_tokens = sum(map(len, our_ids))
    letters = "".join(c for line in test for c in line if c.isalpha())
    return {
        **long_word(hf, ours, letters, long),
        "kind": kind,
        "vocab_size": vocab_size,
        "merges": len(ours.model.merges),
        "same_merges": same_merges,
        "same_vocab": same_vocab,
        "same_ids": hf_ids == our_ids,
        "train_hf_s": t_hf,
        "train_ours_s": t_ours,
        "encode_tokens": n_tokens,
        "encode_hf_tok_s": n_tokens / e_hf,
        "encode_ours_tok_s": n_tokens / e_ours,
    }


def long_word(hf, ours, letters: str, n: int, repeats: int = 3) -> dict:
    """One word of ``n`` letters encoded by HF and by us, and ours on its first quarter:
    same ids, the best of ``repeats`` times (our word cache emptied before each), and
    our growth from n/4 to n."""
    word = (letters * (n // max(len(letters), 1) + 1))[:n]

    def ours_ids(w: str) -> list[int]:
        ours._word_ids.clear()  # a new word each time, as a learner's pasted token
        return ours.encode(w).ids

    times, ids = {}, {}
    for name, size, encode in (
        ("hf", n, lambda w: hf.encode(w).ids),
        ("quarter", n // 4, ours_ids),
        ("ours", n, ours_ids),
    ):
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            ids[name] = encode(word[:size])
            best = min(best, time.perf_counter() - start)
        times[name] = best
    return {
        "long_same_ids": ids["hf"] == ids["ours"],
        "long_pieces": len(ids["ours"]),
        "long_hf_s": times["hf"],
        "long_ours_s": times["ours"],
        "long_growth": times["ours"] / max(times["quarter"], 1e-9),
    }


def naive_against_incremental(lines: list[str], n_merges: int) -> dict:
    """The plain loop and the pair index on the same word counts: times, same merges."""
    counts = word_counts(lines, "byte_level")
    vocab_size = len({c for word in counts for c in word}) + n_merges
    start = time.perf_counter()
    naive = train_bpe_naive(counts, vocab_size)
    t_naive = time.perf_counter() - start
    start = time.perf_counter()
    fast = train_bpe(counts, vocab_size)
    t_fast = time.perf_counter() - start
    return {
        "words": len(counts),
        "merges": len(naive),
        "same_merges": naive == list(fast.merges),
        "naive_s": t_naive,
        "incremental_s": t_fast,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", choices=["byte_bpe", "bpe", "both"], default="both")
    parser.add_argument("--merges", type=int, default=8000)
    parser.add_argument("--lines", type=int, default=None, help="first N train lines")
    parser.add_argument("--naive-lines", type=int, default=300)
    parser.add_argument("--naive-merges", type=int, default=300)
    parser.add_argument("--long-word", type=int, default=LONG_WORD)
    args = parser.parse_args(argv)

    import tokenizers

    lines = wikitext_lines("train")[: args.lines]
    test = wikitext_lines("valid") + wikitext_lines("test")
    n_words = sum(len(line.split()) for line in lines)
    print(
        f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} "
        f"(1 min); tokenizers {tokenizers.__version__}, RAYON_NUM_THREADS="
        f"{os.environ.get('RAYON_NUM_THREADS', 'default')}"
    )
    print(
        f"WikiText-2 train: {len(lines):,} lines, {n_words:,} tokens; {args.merges:,} merges"
    )
    ok = True
    for kind in ["bpe", "byte_bpe"] if args.kind == "both" else [args.kind]:
        r = run(kind, lines, args.merges, test, args.long_word)
        ratio = r["train_ours_s"] / r["train_hf_s"]
        ok &= r["same_merges"] and r["same_vocab"] and r["same_ids"] and ratio <= 20
        ok &= r["long_same_ids"] and r["long_growth"] <= 10
        print(
            f"\n[{kind}] vocab_size {r['vocab_size']:,} ({r['merges']:,} merges kept); "
            f"identical merges: {r['same_merges']}, vocabulary: {r['same_vocab']}, "
            f"encodings: {r['same_ids']}\n"
            f"  training  HF {r['train_hf_s']:6.2f} s   ours {r['train_ours_s']:6.2f} s   "
            f"ours/HF {ratio:5.1f}x (target <= 20x)\n"
            f"  encoding  HF {r['encode_hf_tok_s']:>10,.0f} tokens/s   ours "
            f"{r['encode_ours_tok_s']:>10,.0f} tokens/s   on valid+test "
            f"({r['encode_tokens']:,} tokens)\n"
            f"  one {args.long_word:,}-character word ({r['long_pieces']:,} pieces): HF "
            f"{r['long_hf_s']:6.3f} s   ours {r['long_ours_s']:6.3f} s   ours/HF "
            f"{r['long_ours_s'] / r['long_hf_s']:5.1f}x; identical ids: "
            f"{r['long_same_ids']}; ours n/4 -> n: {r['long_growth']:4.1f}x (linear 4x, "
            "target <= 10x)"
        )
    r = naive_against_incremental(lines[: args.naive_lines], args.naive_merges)
    ok &= r["same_merges"]
    print(
        f"\n[naive vs incremental] first {args.naive_lines:,} lines, {r['words']:,} "
        f"distinct words, {r['merges']:,} merges; identical merges: {r['same_merges']}\n"
        f"  training  naive {r['naive_s']:6.2f} s   incremental {r['incremental_s']:6.2f} s"
        f"   naive/incremental {r['naive_s'] / r['incremental_s']:5.1f}x"
    )
    print(f"\nload average after: {os.getloadavg()[0]:.2f}; all targets met: {ok}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""Our batched word2vec (``course_lib.embeddings.train_sgns``) against gensim's Word2Vec.

Chapter 2's "measured against the standard tool". Both train on WikiText-2 train as
``shared/data/README.md`` describes it (``course_lib.data.wikitext_sentences("train")``:
lower-cased, whitespace tokens, headings and empty lines skipped) with the same settings:
skip-gram, 5 negatives, dimension 100, window 5, min_count 5, sample 1e-3, 5 epochs, 2 threads
(gensim ``workers=2``; ours ``workers=2`` lock-free threads on the CPU). Printed side by side:

* training throughput in effective words per second (words left after min_count and subsampling,
  per second of ``train``, as gensim's log counts them) and the ratio ours / gensim;
* analogy accuracy on the Google questions with ``restrict_vocab=30000`` (gensim's
  ``evaluate_word_analogies``; ours: ``evaluate_analogies``);
* WordSim-353 and SimLex-999 Spearman (gensim's ``evaluate_word_pairs``; ours:
  ``evaluate_similarity`` on lower-cased pairs, the case-insensitive match gensim makes);
* our evaluation functions on gensim's vectors too: they should agree with gensim's own.

Usage (gensim is a dev requirement: ``pip install -r requirements-dev.txt``)::

    python benchmarks/word2vec_vs_gensim.py [--epochs 5] [--device cpu] [--quick] [--ours-only]

Timings on a shared 2-core machine vary by up to 2x between runs: the load average is printed
before and after, and the two trainers run back to back so they see similar load.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time

import torch

from course_lib.data import (
    Vocab,
    analogy_questions,
    fetch,
    similarity_pairs,
    wikitext_sentences,
)
from course_lib.embeddings import evaluate_analogies, evaluate_similarity
from course_lib.embeddings.sgns_train import (
    SGNSConfig,
    encode_corpus,
    train_sgns,
    vocab_counts,
)

SETTINGS = dict(dim=100, window=5, negatives=5, min_count=5, sample=1e-3, threads=2)


def ours_scores(E: torch.Tensor, vocab) -> dict[str, float]:
    """Our evaluation functions on any (V, D) vectors with a word -> row mapping."""
    analogies = evaluate_analogies(E, vocab, analogy_questions(), restrict_vocab=30000)
    scores = dict(
        analogy=analogies["accuracy"],
        analogy_correct=analogies["correct"],
        analogy_covered=analogies["covered"],
    )
    for name in ("wordsim353", "simlex999"):
        pairs = [(a.lower(), b.lower(), s) for a, b, s in similarity_pairs(name)]
        result = evaluate_similarity(E, vocab, pairs)
        scores[name] = result["spearman"]
        scores[f"{name}_oov"] = 1 - result["covered"] / result["total"]
    return scores


def run_gensim(sentences, epochs: int, seed: int) -> tuple[dict, object]:
    from gensim.models import Word2Vec

    model = Word2Vec(
        sg=1,
        hs=0,
        negative=SETTINGS["negatives"],
        vector_size=SETTINGS["dim"],
        window=SETTINGS["window"],
        min_count=SETTINGS["min_count"],
        sample=SETTINGS["sample"],
        workers=SETTINGS["threads"],
        epochs=epochs,
        seed=seed,
    )
    model.build_vocab(sentences)
    start = time.perf_counter()
    effective, raw = model.train(
        sentences, total_examples=model.corpus_count, epochs=epochs
    )
    seconds = time.perf_counter() - start
    wv = model.wv
    questions = str(fetch("word_vector_eval", "questions-words.txt"))
    analogy, _ = wv.evaluate_word_analogies(questions, restrict_vocab=30000)
    scores = dict(analogy=analogy)
    for name, file in (
        ("wordsim353", "wordsim353.tsv"),
        ("simlex999", "simlex999.txt"),
    ):
        _, spearman, oov = wv.evaluate_word_pairs(str(fetch("word_vector_eval", file)))
        scores[name], scores[f"{name}_oov"] = spearman.statistic, oov / 100
    stats = dict(
        vocab=len(wv), effective_words=effective, raw_words=raw, seconds=seconds
    )
    return dict(stats, words_per_second=effective / seconds, **scores), wv


def run_ours(sentences, epochs: int, seed: int, device: str, workers: int, batch: int):
    vocab = Vocab.build(
        sentences, min_freq=SETTINGS["min_count"], specials=(), unk=None
    )
    ids, counts = encode_corpus(sentences, vocab), vocab_counts(vocab)
    config = SGNSConfig(
        dim=SETTINGS["dim"],
        window=SETTINGS["window"],
        negatives=SETTINGS["negatives"],
        sample=SETTINGS["sample"],
        epochs=epochs,
        batch_size=batch,
        workers=workers,
        seed=seed,
    )
    run = train_sgns(ids, counts, config, device=device, progress=False)
    E = run.model.vectors().cpu()
    stats = dict(
        vocab=len(vocab),
        effective_words=run.effective_words,
        raw_words=sum(map(len, ids)) * epochs,
        seconds=run.seconds,
        words_per_second=run.words_per_second,
    )
    return dict(stats, **ours_scores(E, vocab)), run


def table(rows: list[tuple[str, str, str, str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = []
    for k, row in enumerate(rows):
        cells = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:])
        ]
        lines.append("  ".join(cells))
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--device", default="cpu", help="device for ours (cpu, cuda)")
    parser.add_argument("--quick", action="store_true", help="1 epoch")
    parser.add_argument("--ours-only", action="store_true", help="skip gensim")
    parser.add_argument("--workers", type=int, default=None, help="ours: CPU threads")
    parser.add_argument(
        "--batch-size", type=int, default=256, help="ours: centres/step"
    )
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    epochs = 1 if args.quick else args.epochs
    device = torch.device(args.device)
    workers = args.workers or (SETTINGS["threads"] if device.type == "cpu" else 1)
    logging.basicConfig(level=logging.WARNING)

    print(f"word2vec on WikiText-2 train: skip-gram, {epochs} epoch(s), {SETTINGS}")
    print(
        f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; "
        f"torch {torch.__version__}, ours on {device} with workers={workers}, "
        f"batch {args.batch_size} centres"
    )
    start = time.perf_counter()
    sentences = wikitext_sentences("train")
    print(
        f"corpus: {len(sentences):,} sentences, {sum(map(len, sentences)):,} tokens "
        f"(read in {time.perf_counter() - start:.1f} s)"
    )
    ours, _ = run_ours(
        sentences, epochs, args.seed, str(device), workers, args.batch_size
    )
    load_mid = os.getloadavg()[0]
    theirs = gensim_on_ours = None
    if not args.ours_only:
        try:
            import gensim
        except ImportError:
            print(
                "gensim is missing: pip install -r requirements-dev.txt",
                file=sys.stderr,
            )
            return 2
        theirs, wv = run_gensim(sentences, epochs, args.seed)
        gensim_on_ours = ours_scores(torch.tensor(wv.vectors), wv.key_to_index)
        version = gensim.__version__
    load_end = os.getloadavg()[0]

    def pct(x):
        return f"{100 * x:.2f} %"

    def num(x, fmt="{:,.0f}"):
        return "-" if x is None else fmt.format(x)

    g = theirs or {}
    rows = [
        (
            "",
            f"gensim {version}" if theirs else "gensim",
            f"ours ({device})",
            "ours/gensim",
        )
    ]
    rows.append(("vocabulary", num(g.get("vocab")), num(ours["vocab"]), ""))
    rows.append(
        (
            "effective words",
            num(g.get("effective_words")),
            num(ours["effective_words"]),
            "",
        )
    )
    rows.append(
        (
            "training seconds",
            num(g.get("seconds"), "{:.1f}"),
            f"{ours['seconds']:.1f}",
            "",
        )
    )
    ratio = ours["words_per_second"] / g["words_per_second"] if theirs else None
    rows.append(
        (
            "effective words/s",
            num(g.get("words_per_second")),
            num(ours["words_per_second"]),
            num(ratio, "{:.2f}"),
        )
    )
    rows.append(
        (
            "analogy, restrict_vocab 30000",
            pct(g["analogy"]) if theirs else "-",
            f"{pct(ours['analogy'])} of {ours['analogy_covered']:,}",
            "",
        )
    )
    for name, label in (
        ("wordsim353", "WordSim-353 Spearman"),
        ("simlex999", "SimLex-999 Spearman"),
    ):
        rows.append(
            (
                f"{label} (OOV pairs)",
                f"{g[name]:.3f} ({pct(g[name + '_oov'])})" if theirs else "-",
                f"{ours[name]:.3f} ({pct(ours[name + '_oov'])})",
                "",
            )
        )
    print()
    print(table(rows))
    if gensim_on_ours is not None:
        o = gensim_on_ours
        print(
            "\nour evaluation functions on gensim's vectors (should match gensim's own): "
            f"analogy {pct(o['analogy'])} of {o['analogy_covered']:,} "
            f"(gensim {pct(g['analogy'])}), WordSim-353 {o['wordsim353']:.3f} "
            f"(gensim {g['wordsim353']:.3f}), SimLex-999 {o['simlex999']:.3f} "
            f"(gensim {g['simlex999']:.3f})"
        )
    print(
        f"\nload average: {load_mid:.2f} after ours, {load_end:.2f} at the end "
        f"({os.cpu_count()} CPUs); per-epoch words/s vary with it"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

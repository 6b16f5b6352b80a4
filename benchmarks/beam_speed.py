"""Batched beam search against one sentence at a time, on the same model and dev set.

Chapter 7's claim that ``course_lib.decoding.beam_search`` runs every sentence and beam as one
batch: the script trains the chapter's date-normalisation model briefly (character-level,
additive attention), then decodes the held-out dev dates with beam size K twice, in one run:
all at once in batches of ``--batch`` sentences, and one sentence at a time. It checks that
both give the same outputs and scores, and prints the two wall times, sentences per second,
the speed-up and the load average before and after.

Usage::

    python benchmarks/beam_speed.py [--dev 500] [--beam 5] [--batch 256] [--device cpu]
"""

from __future__ import annotations

import argparse
import os
import time

import torch

from course_lib import seed_everything
from course_lib.data.synthetic import date_splits
from course_lib.seq2seq import Seq2Seq, Seq2SeqConfig, train_seq2seq
from course_lib.seq2seq.translation import (
    build_vocab,
    encode_batch,
    make_batches,
    translate_ids,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--train", type=int, default=4000, help="training dates")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--dev", type=int, default=500, help="dev dates to decode")
    parser.add_argument("--beam", type=int, default=5)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    seed_everything(0)
    print(
        f"load average before: {os.getloadavg()}; torch threads {torch.get_num_threads()}"
    )
    train, dev = date_splits(args.train, args.dev)
    src_tok = [list(a) for a, _ in train]
    tgt_tok = [list(b) for _, b in train]
    sv, tv = build_vocab(src_tok), build_vocab(tgt_tok)
    model = Seq2Seq(Seq2SeqConfig(len(sv), len(tv), d_emb=32, d_hidden=64, d_attn=32))
    batches = make_batches(src_tok, tgt_tok, sv, tv, 64)
    train_seq2seq(model, batches, epochs=args.epochs, lr=3e-3, device=args.device)
    dev_src = [list(a) for a, _ in dev]

    def batched() -> list:
        out = []
        for k in range(0, len(dev_src), args.batch):
            src, lens, _ = encode_batch(
                dev_src[k : k + args.batch], None, sv, device=args.device
            )
            out += [
                h[0]
                for h in translate_ids(
                    model, src, lens, beam_size=args.beam, max_len=12
                )
            ]
        return out

    def one_by_one() -> list:
        out = []
        for s in dev_src:
            src, lens, _ = encode_batch([s], None, sv, device=args.device)
            out += [
                translate_ids(model, src, lens, beam_size=args.beam, max_len=12)[0][0]
            ]
        return out

    times = {}
    results = {}
    for name, fn in (("batched", batched), ("one at a time", one_by_one)):
        start = time.perf_counter()
        results[name] = fn()
        times[name] = time.perf_counter() - start
    a, b = results["batched"], results["one at a time"]
    same = all(
        x.tokens == y.tokens and abs(x.score - y.score) < 1e-4 for x, y in zip(a, b)
    )
    exact = sum(
        "".join(tv.decode(h.tokens)) == iso for h, (_, iso) in zip(a, dev)
    ) / len(dev)
    n = len(dev_src)
    for name, sec in times.items():
        print(f"{name:>14}: {sec:7.2f} s  {n / sec:8.1f} sentences/s")
    print(
        f"speed-up batched / one at a time: {times['one at a time'] / times['batched']:.1f}x"
    )
    print(f"same outputs and scores: {same}; dev exact match {exact:.3f}")
    print(f"beam {args.beam}, {n} dev sentences, device {args.device}")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()

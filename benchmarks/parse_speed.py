"""Batched greedy parsing against one sentence at a time, on UD English EWT dev. Chapter 4.

Issue target: batched at least 10x faster than one sentence at a time, and at least 1,000
sentences/s on 2 CPU cores (Chen & Manning 2014 report over 1,000 sentences/s). Both parsers
use the same trained Chen & Manning model (``train_parser``, a short run: parsing speed does not
depend on the weights, only on the sizes) and must produce the same trees; both timings and
their ratio are printed from one run.

Usage::

    python benchmarks/parse_speed.py [--epochs 1] [--hidden 200] [--device cpu] [--threads N]
"""

from __future__ import annotations

import argparse
import os
import time

import torch

from course_lib import data
from course_lib.parsing import parse, parse_one, train_parser


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--hidden", type=int, default=200)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    parser.add_argument(
        "--batch-size", type=int, default=2048, help="sentences per batch"
    )
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    print(
        f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; "
        f"torch {torch.__version__} on {device}, {torch.get_num_threads()} threads"
    )
    train, dev = data.ewt("train"), data.ewt("dev")
    trained = train_parser(
        train, epochs=args.epochs, hidden=args.hidden, device=device, progress=False
    )
    model, vocabs = trained.model.eval(), trained.vocabs
    n_words = sum(len(s.words) for s in dev)
    parse(model, vocabs, dev[:50], device=device)  # warm up
    start = time.perf_counter()
    batched = parse(model, vocabs, dev, batch_size=args.batch_size, device=device)
    if device.type == "cuda":
        torch.cuda.synchronize()
    t_batched = time.perf_counter() - start
    start = time.perf_counter()
    single = [parse_one(model, vocabs, s.words, s.upos, device=device)[0] for s in dev]
    t_single = time.perf_counter() - start
    same = all(
        a.heads == b.heads and a.deprels == b.deprels for a, b in zip(batched, single)
    )
    print(f"EWT dev: {len(dev):,} sentences, {n_words:,} words; same trees: {same}")
    print(f"{'':<22} {'seconds':>8} {'sentences/s':>12} {'words/s':>10}")
    for name, t in [("one sentence at a time", t_single), ("batched", t_batched)]:
        print(f"{name:<22} {t:>8.2f} {len(dev) / t:>12,.0f} {n_words / t:>10,.0f}")
    print(f"speed-up of batching: {t_single / t_batched:.1f}x")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""Why a chapter ran 2-3x slower in the book build than alone: torch's thread count.

``make book`` executes each chapter in a Jupyter kernel that inherits the build's environment.
Without ``OMP_NUM_THREADS`` torch starts one intra-op thread per core, and the course's models
are small (a 2 x 64 GPT, a 650-wide LSTM at most, batches of 20-64): each operation is too short
to split, so the threads spend their time synchronising, and on a shared machine a second thread
competes with whatever else runs. This script trains Chapter 5's word-level LSTM language model
(the cell the issue measured at 6.4k tokens/s in the book against 21k alone) and a small
Transformer step for a few seconds each, with 1 thread and with every core, in one process,
and prints tokens per second side by side with the ratio.

Usage::

    python benchmarks/book_threads.py [--seconds 10] [--threads 1 2]

On a shared machine timings vary: the load average is printed with the results.
"""

from __future__ import annotations

import argparse
import os
import time

import torch
from torch import nn


def lstm_lm_step(V: int = 10_000, E: int = 200, H: int = 200, B: int = 20, T: int = 35):
    """One training step of Chapter 5's cpu LSTM LM shape; returns (step, tokens per step)."""
    torch.manual_seed(0)
    model = nn.ModuleDict(
        {
            "emb": nn.Embedding(V, E),
            "rnn": nn.LSTM(E, H, batch_first=True),
            "out": nn.Linear(H, V),
        }
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randint(V, (B, T))
    y = torch.randint(V, (B, T))

    def step() -> None:
        h, _ = model["rnn"](model["emb"](x))  # (B, T, H)
        loss = nn.functional.cross_entropy(model["out"](h).flatten(0, 1), y.flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()

    return step, B * T


def transformer_step(V: int = 4000, D: int = 64, B: int = 32, T: int = 64):
    """One training step of a 2 x 64 Transformer encoder (Chapter 9's cpu GPT's shape)."""
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(D, 4, 4 * D, dropout=0.0, batch_first=True)
    model = nn.ModuleDict(
        {
            "emb": nn.Embedding(V, D),
            "body": nn.TransformerEncoder(layer, 2),
            "out": nn.Linear(D, V),
        }
    )
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randint(V, (B, T))
    mask = nn.Transformer.generate_square_subsequent_mask(T)

    def step() -> None:
        h = model["body"](model["emb"](x), mask=mask, is_causal=True)  # (B, T, D)
        loss = nn.functional.cross_entropy(model["out"](h).flatten(0, 1), x.flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()

    return step, B * T


def tokens_per_second(make, threads: int, seconds: float) -> float:
    torch.set_num_threads(threads)
    step, tokens = make()
    step()  # warm-up
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        step()
        n += 1
    return n * tokens / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument(
        "--threads", type=int, nargs="+", default=[1, os.cpu_count() or 1]
    )
    args = parser.parse_args()
    print(f"torch {torch.__version__}, {os.cpu_count()} cores, load {os.getloadavg()}")
    print(f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '(unset)')}")
    cases = {
        "Ch5 LSTM LM (200 x 200, B 20 x T 35)": lstm_lm_step,
        "Ch9 GPT body (2 x 64, B 32 x T 64)": transformer_step,
    }
    base = args.threads[0]
    header = "  ".join(f"{t} thread(s)".rjust(14) for t in args.threads)
    print(f"{'tokens per second':<40}{header}  ratio {args.threads[-1]}/{base}")
    for name, make in cases.items():
        rates = [tokens_per_second(make, t, args.seconds) for t in args.threads]
        cells = "  ".join(f"{r:14,.0f}" for r in rates)
        print(f"{name:<40}{cells}  {rates[-1] / rates[0]:.2f}")
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()

"""Our from-scratch recurrent cells against torch's fused modules: what fusing buys. Chapter 6.

``course_lib.rnn.stacked.RecurrentNet`` runs one Python-level step per time step (a few small
matrix products and elementwise operations, each a separate kernel); ``torch.nn.LSTM`` and
``torch.nn.GRU`` run the whole sequence in one fused call (cuDNN on a GPU, a C++ loop on the
CPU). Both compute the same numbers (``tests/test_rnn_stacked.py``). This script times a forward
and backward pass of each, on the same batch, in one run, and prints milliseconds per batch and
the ratio ours / torch.

Usage::

    python benchmarks/rnn_speed.py [--device cpu|cuda] [--batch 32] [--length 50]
        [--input 64] [--hidden 128] [--layers 1] [--bidirectional] [--repeats 10]

On a shared machine timings vary: the load average is printed with the results.
"""

from __future__ import annotations

import argparse
import os

import torch

from course_lib.rnn.parity import seconds_per_pass
from course_lib.rnn.stacked import RecurrentNet, load_torch_weights
from course_lib.runtime import device as default_device

TORCH = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU, "rnn": torch.nn.RNN}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--length", type=int, default=50)
    parser.add_argument("--input", type=int, default=64)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--layers", type=int, default=1)
    parser.add_argument("--bidirectional", action="store_true")
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    dev = torch.device(args.device) if args.device else default_device()
    torch.manual_seed(0)
    x = torch.randn(args.batch, args.length, args.input, device=dev)
    print(
        f"device {dev}, torch {torch.__version__}, threads {torch.get_num_threads()}; "
        f"B={args.batch} T={args.length} D={args.input} H={args.hidden} "
        f"layers={args.layers} bidirectional={args.bidirectional}; "
        f"forward + backward, median of {args.repeats}"
    )
    for kind in ("lstm", "gru", "rnn"):
        ref = TORCH[kind](
            args.input,
            args.hidden,
            num_layers=args.layers,
            bidirectional=args.bidirectional,
            batch_first=True,
            device=dev,
        )
        ours = RecurrentNet(
            kind,
            args.input,
            args.hidden,
            num_layers=args.layers,
            bidirectional=args.bidirectional,
            device=dev,
        )
        load_torch_weights(ours, ref)
        with torch.no_grad():
            gap = (ours(x)[0] - ref(x)[0]).abs().max().item()
        t_ref = seconds_per_pass(ref, x, repeats=args.repeats, warmup=2)
        t_ours = seconds_per_pass(ours, x, repeats=args.repeats, warmup=2)
        print(
            f"{kind:>5}: from scratch {t_ours * 1e3:8.2f} ms, torch.nn.{ref._get_name():<4} "
            f"{t_ref * 1e3:8.2f} ms, ours / torch = {t_ours / t_ref:5.2f}×  "
            f"(largest output difference {gap:.1e})"
        )
    if hasattr(os, "getloadavg"):
        print(
            "load average (1, 5, 15 min): {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
        )


if __name__ == "__main__":
    main()

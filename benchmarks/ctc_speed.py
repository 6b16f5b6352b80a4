"""Our CTC loss and gradient against ``torch.nn.CTCLoss``, side by side. Chapter 10.

Times the forward and backward pass of :func:`course_lib.speech.ctc.ctc_loss` (α in the
forward pass, β and the posteriors in the backward pass, a Python loop over time only)
and of ``torch.nn.functional.ctc_loss`` (compiled) on the same batch of log-probabilities:
by default 32 utterances of up to 150 output steps, 11 classes (blank + 10 digits) and
labels of 2-7 symbols, the shapes of the chapter's digit-string recogniser. It checks
that both give the same loss and gradient, prints the median time of each over
``--repeats`` runs, the ratio (the target: within 5x) and the load average.

Usage::

    python benchmarks/ctc_speed.py [--batch 32] [--frames 150] [--repeats 10] [--threads 1]
        [--device cpu]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import torch
import torch.nn.functional as F

from course_lib import seed_everything
from course_lib.speech.ctc import ctc_loss


def _time(fn, repeats: int, device: torch.device) -> float:
    times = []
    for _ in range(repeats):
        if device.type == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        fn()
        if device.type == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--frames", type=int, default=150, help="longest input")
    parser.add_argument("--classes", type=int, default=11)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--device", default="cpu")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="CPU threads (the chapter trains on 1: each step's ops are tiny, and with two "
        "threads on a shared 2-core machine the ratio swung between 4.6x and 38x)",
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    seed_everything(0)
    device = torch.device(args.device)
    g = torch.Generator().manual_seed(0)
    B, T, C = args.batch, args.frames, args.classes
    logits = torch.randn(B, T, C, generator=g).to(device).requires_grad_()
    target_lengths = torch.randint(2, 8, (B,), generator=g)
    targets = torch.randint(1, C, (B, 7), generator=g)
    input_lengths = torch.randint(T * 2 // 3, T + 1, (B,), generator=g)
    input_lengths[0] = T

    def ours():
        logits.grad = None
        loss = ctc_loss(logits.log_softmax(-1), targets, input_lengths, target_lengths)
        loss.backward()
        return loss, logits.grad.clone()

    def torch_ctc():
        logits.grad = None
        loss = F.ctc_loss(
            logits.log_softmax(-1).transpose(0, 1),
            targets,
            input_lengths,
            target_lengths,
        )
        loss.backward()
        return loss, logits.grad.clone()

    (l1, g1), (l2, g2) = ours(), torch_ctc()
    assert torch.allclose(l1, l2, rtol=1e-4) and torch.allclose(g1, g2, atol=1e-5), (
        "the two losses disagree"
    )
    load_before = os.getloadavg()
    t_ours = _time(ours, args.repeats, device)
    t_torch = _time(torch_ctc, args.repeats, device)
    load_after = os.getloadavg()
    print(f"batch {B}, up to {T} steps, {C} classes, labels of 2-7 symbols, {device}")
    print(f"{'':<18}{'loss + grad (ms)':>18}")
    print(f"{'course_lib':<18}{1000 * t_ours:>18.1f}")
    print(f"{'nn.CTCLoss':<18}{1000 * t_torch:>18.1f}")
    print(f"ratio ours / torch: {t_ours / t_torch:.2f}x (target: within 5x)")
    print(
        f"threads {torch.get_num_threads()}; load average before "
        f"{load_before[0]:.2f}, after {load_after[0]:.2f}"
    )


if __name__ == "__main__":
    main()

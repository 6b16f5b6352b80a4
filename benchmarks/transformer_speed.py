"""Training speed of our Transformer against ``nn.Transformer`` of the same size. Chapter 8.

Both models: the same embeddings, sinusoidal positions and output layer around an
encoder-decoder of the same width, heads, FFN width, depth, dropout and pre-LN order;
ours is ``course_lib.transformer.Transformer`` with the fast path
(``F.scaled_dot_product_attention``, tested equal to the explicit teaching path) and,
for reference, with the teaching path. Each training step is forward, cross-entropy over
the flattened logits, backward and an Adam update, on random token batches with padding.
The models run in interleaved rounds so that they see the same machine load.

Printed: target tokens per second of training for each model, the ratio ours / torch
(the target is >= 0.9), and on a GPU the peak memory of each.

Usage::

    python benchmarks/transformer_speed.py [--device cpu] [--quick] [--json out.json]

Timings on a shared CPU vary: the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings

import torch
import torch.nn.functional as F
from torch import nn

from course_lib.runtime import device as default_device
from course_lib.transformer import Transformer, TransformerConfig
from course_lib.transformer.positional import SinusoidalPositionalEncoding

PAD = 0


class TorchSeq2Seq(nn.Module):
    """``nn.Transformer`` with the same embeddings, positions and output layer as ours."""

    def __init__(self, c: TransformerConfig) -> None:
        super().__init__()
        self.src_embed = nn.Embedding(c.src_vocab, c.d_model)
        self.tgt_embed = nn.Embedding(c.tgt_vocab, c.d_model)
        self.src_pos = SinusoidalPositionalEncoding(c.d_model, dropout=c.dropout)
        self.tgt_pos = SinusoidalPositionalEncoding(c.d_model, dropout=c.dropout)
        self.core = nn.Transformer(
            c.d_model,
            c.n_heads,
            c.n_encoder_layers,
            c.n_decoder_layers,
            c.d_ff,
            dropout=c.dropout,
            batch_first=True,
            norm_first=c.norm_first,
        )
        self.generator = nn.Linear(c.d_model, c.tgt_vocab)

    def loss(self, src: torch.Tensor, tgt: torch.Tensor) -> torch.Tensor:
        tgt_in, gold = tgt[:, :-1], tgt[:, 1:]
        T = tgt_in.size(1)
        causal = torch.ones(T, T, dtype=torch.bool, device=src.device).triu(1)
        h = self.core(
            self.src_pos(self.src_embed(src)),
            self.tgt_pos(self.tgt_embed(tgt_in)),
            tgt_mask=causal,
            src_key_padding_mask=src == PAD,
            tgt_key_padding_mask=tgt_in == PAD,
            memory_key_padding_mask=src == PAD,
            tgt_is_causal=True,
        )
        logits = self.generator(h)
        return F.cross_entropy(
            logits.reshape(-1, logits.size(-1)), gold.reshape(-1), ignore_index=PAD
        )


def batches(n, batch, src_len, tgt_len, vocab, device, seed=0):
    """Random token batches; a quarter of each batch is padded to 60 % of its length."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n):
        src = torch.randint(4, vocab, (batch, src_len), generator=g)
        tgt = torch.randint(4, vocab, (batch, tgt_len), generator=g)
        tgt[:, 0] = 2
        src[: batch // 4, int(0.6 * src_len) :] = PAD
        tgt[: batch // 4, int(0.6 * tgt_len) :] = PAD
        out.append((src.to(device), tgt.to(device)))
    return out


def step_time(model, opt, data, loss_fn, device) -> tuple[float, int]:
    """Seconds for one pass of training steps over ``data``, and the target tokens seen."""
    if device.type == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    tokens = 0
    for src, tgt in data:
        loss = loss_fn(model, src, tgt)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        tokens += int((tgt[:, 1:] != PAD).sum())
    if device.type == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - start, tokens


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--d-model", type=int, default=256)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--len", type=int, default=24, dest="length")
    parser.add_argument("--steps", type=int, default=10, help="steps per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--quick", action="store_true", help="a small, seconds-long run"
    )
    parser.add_argument("--json", default=None, help="write the numbers here")
    args = parser.parse_args(argv)
    if args.quick:
        args.d_model, args.layers, args.batch, args.steps, args.rounds = 64, 2, 16, 3, 2
    dev = torch.device(args.device) if args.device else default_device()
    cfg = TransformerConfig(
        src_vocab=1000,
        tgt_vocab=1000,
        d_model=args.d_model,
        n_heads=args.heads,
        d_ff=4 * args.d_model,
        n_encoder_layers=args.layers,
        n_decoder_layers=args.layers,
        dropout=0.1,
        label_smoothing=0.0,
    )
    models = {}
    for name in ("ours (fast)", "ours (teaching)", "nn.Transformer"):
        torch.manual_seed(0)
        if name.startswith("ours"):
            model = Transformer(cfg, device=dev)
            fast = name == "ours (fast)"

            def loss_fn(m, s, t, fast=fast):
                return m.loss(s, t, fast=fast)
        else:
            with warnings.catch_warnings():  # "enable_nested_tensor is True, but ..."
                warnings.simplefilter("ignore", UserWarning)
                model = TorchSeq2Seq(cfg).to(dev)

            def loss_fn(m, s, t):
                return m.loss(s, t)

        opt = torch.optim.Adam(model.parameters(), lr=1e-4)
        models[name] = (model.train(), opt, loss_fn)
    n_params = {
        n: sum(p.numel() for p in m.parameters()) for n, (m, _, _) in models.items()
    }
    data = batches(args.steps, args.batch, args.length, args.length, 1000, dev)
    print(f"device {dev}, threads {torch.get_num_threads()}, load {os.getloadavg()}")
    print(f"config {cfg}")
    print(f"parameters {n_params}")
    seconds = {n: 0.0 for n in models}
    tokens = {n: 0 for n in models}
    peak = {}
    for name, (model, opt, loss_fn) in models.items():  # warm-up, and peak memory
        if dev.type == "cuda":
            torch.cuda.reset_peak_memory_stats(dev)
        step_time(model, opt, data[:2], loss_fn, dev)
        if dev.type == "cuda":
            peak[name] = torch.cuda.max_memory_allocated(dev) / 2**20
    for _ in range(args.rounds):
        for name, (model, opt, loss_fn) in models.items():
            s, n = step_time(model, opt, data, loss_fn, dev)
            seconds[name] += s
            tokens[name] += n
    rate = {n: tokens[n] / seconds[n] for n in models}
    result = {
        "device": str(dev),
        "tokens_per_s": rate,
        "ratio_fast_vs_torch": rate["ours (fast)"] / rate["nn.Transformer"],
        "ratio_teaching_vs_torch": rate["ours (teaching)"] / rate["nn.Transformer"],
        "peak_mib": peak,
        "params": n_params,
        "load_after": os.getloadavg(),
    }
    for name in models:
        mem = f"  peak {peak[name]:.0f} MiB" if name in peak else ""
        print(f"{name:<16} {rate[name]:>10.0f} target tokens/s{mem}")
    print(
        f"ours (fast) / nn.Transformer = {result['ratio_fast_vs_torch']:.2f} (target >= 0.9)"
    )
    print(f"ours (teaching) / nn.Transformer = {result['ratio_teaching_vs_torch']:.2f}")
    print(f"load after {os.getloadavg()}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(result, handle, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

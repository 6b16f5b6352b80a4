"""Command line for :func:`~course_lib.pretraining.distributed.pretrain`: run it with
``python -m`` on one process or with ``torchrun`` on many. Chapter 9.

    torchrun --nproc_per_node 2 -m course_lib.pretraining.launch \\
        --data ids.pt --model '{"vocab_size": 4000, "d_model": 128}' \\
        --steps 200 --batch-size 32 --checkpoint ckpt.pt [--resume] --out losses.json

``--data`` is a ``torch.save``'d 1-D tensor of token ids (``--synthetic N`` draws N random
ids instead, for tests); it is cut into blocks of ``max_len + 1`` tokens. torchrun sets
``RANK``/``WORLD_SIZE``/``LOCAL_RANK``; the process group uses NCCL on GPUs, gloo on CPUs.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import torch
import torch.distributed as dist

from course_lib.pretraining.causal_lm import eval_blocks
from course_lib.pretraining.distributed import TrainConfig, pretrain
from course_lib.pretraining.gpt import GPT, GPTConfig

__all__ = ["main", "parse_args"]

_DTYPES = {"float32": torch.float32, "float64": torch.float64}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The launcher's arguments (see the module docstring)."""
    p = argparse.ArgumentParser(prog="python -m course_lib.pretraining.launch")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--data", type=Path, help="torch.save'd 1-D tensor of token ids")
    src.add_argument("--synthetic", type=int, help="draw this many random ids (tests)")
    p.add_argument("--model", default="{}", help="GPTConfig fields as JSON")
    p.add_argument("--steps", type=int, required=True)
    p.add_argument("--until", type=int, default=None)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--dtype", choices=sorted(_DTYPES), default="float32")
    p.add_argument("--checkpoint", type=Path, default=None)
    p.add_argument("--resume", action="store_true")
    p.add_argument("--out", type=Path, default=None, help="write the losses (rank 0)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> list[float]:
    """Join the process group when torchrun started us, build the GPT, train, save."""
    args = parse_args(argv)
    distributed = "RANK" in os.environ and int(os.environ.get("WORLD_SIZE", "1")) > 1
    cuda = torch.cuda.is_available()
    if distributed:
        dist.init_process_group("nccl" if cuda else "gloo")
    local = int(os.environ.get("LOCAL_RANK", "0"))
    device = torch.device(f"cuda:{local}" if cuda else "cpu")
    fields = json.loads(args.model)
    torch.manual_seed(args.seed)  # the same initial weights on every rank
    if args.synthetic:
        V = fields.setdefault("vocab_size", 64)
        g = torch.Generator().manual_seed(args.seed)
        ids = torch.randint(0, V, (args.synthetic,), generator=g)
    else:
        ids = torch.load(args.data, weights_only=True)
    config = GPTConfig(**fields)
    model = GPT(config).to(_DTYPES[args.dtype])
    blocks = eval_blocks(ids, config.max_len + 1)  # (n, T + 1)
    cfg = TrainConfig(
        steps=args.steps, batch_size=args.batch_size, lr=args.lr, warmup=args.warmup,
        seed=args.seed,
    )  # fmt: skip
    losses = pretrain(
        model, blocks, cfg, checkpoint=args.checkpoint, resume=args.resume,
        until=args.until, device=device,
    )  # fmt: skip
    if args.out is not None and (not distributed or dist.get_rank() == 0):
        args.out.write_text(json.dumps(losses))
    if distributed:
        dist.destroy_process_group()
    return losses


if __name__ == "__main__":
    main()

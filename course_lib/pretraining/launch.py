"""Command line for :func:`~course_lib.pretraining.distributed.pretrain`: run it with
``python -m`` on one process or with ``torchrun`` on many. Chapter 9.

    torchrun --nproc_per_node 2 -m course_lib.pretraining.launch \\
        --data ids.pt --model '{"vocab_size": 4000, "d_model": 128}' \\
        --steps 200 --batch-size 32 --checkpoint ckpt.pt [--resume] --out losses.json

``--data`` is a ``torch.save``'d 1-D tensor of token ids (``--synthetic N`` draws N random
ids instead, for tests); it is cut into blocks of ``max_len + 1`` tokens. torchrun sets
``RANK``/``WORLD_SIZE``/``LOCAL_RANK``; the process group uses NCCL on GPUs, gloo on CPUs.
``run_torchrun`` starts such a run from Python (a notebook) on CPU processes, with gloo.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import torch
import torch.distributed as dist

from course_lib.pretraining.causal_lm import eval_blocks
from course_lib.pretraining.distributed import TrainConfig, pretrain
from course_lib.pretraining.gpt import GPT, GPTConfig
from course_lib.runtime import run_seed

__all__ = ["main", "parse_args", "run_torchrun", "torchrun_command"]

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
    torch.manual_seed(run_seed(args.seed))  # the same initial weights on every rank
    if args.synthetic:
        V = fields.setdefault("vocab_size", 64)
        g = torch.Generator().manual_seed(run_seed(args.seed))
        ids = torch.randint(0, V, (args.synthetic,), generator=g)
    else:
        ids = torch.load(args.data, weights_only=True)
    config = GPTConfig(**fields)
    model = GPT(config).to(_DTYPES[args.dtype])
    blocks = eval_blocks(ids, config.max_len + 1)  # (n, T + 1)
    cfg = TrainConfig(
        steps=args.steps,
        batch_size=args.batch_size,
        lr=args.lr,
        warmup=args.warmup,
        seed=args.seed,
    )
    losses = pretrain(
        model,
        blocks,
        cfg,
        checkpoint=args.checkpoint,
        resume=args.resume,
        until=args.until,
        device=device,
    )
    if args.out is not None and (not distributed or dist.get_rank() == 0):
        args.out.write_text(json.dumps(losses))
    if distributed:
        dist.destroy_process_group()
    return losses


def torchrun_command(argv: list[str], nproc_per_node: int = 2) -> list[str]:
    """The command line that runs the launcher with ``argv`` on ``nproc_per_node``
    processes, as a reader types it: ``torchrun --nproc_per_node 2 -m ...``."""
    return [
        "torchrun",
        "--nproc_per_node",
        str(nproc_per_node),
        "-m",
        "course_lib.pretraining.launch",
        *argv,
    ]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_torchrun(
    argv: list[str],
    *,
    nproc_per_node: int = 2,
    cwd: str | Path | None = None,
    timeout: float = 600,
) -> subprocess.CompletedProcess:
    """Run :func:`torchrun_command` as a subprocess on CPU processes (gloo): torchrun is
    ``python -m torch.distributed.run``, started with this interpreter, on a free port,
    with this ``course_lib`` importable, one thread a process and no GPU visible (so
    that every process joins with gloo, on any machine). Raises ``RuntimeError`` with
    the end of the processes' output when the run fails."""
    root = str(Path(__file__).resolve().parents[2])
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
    env = dict(
        os.environ, PYTHONPATH=path, OMP_NUM_THREADS="1", CUDA_VISIBLE_DEVICES=""
    )
    command = torchrun_command(argv, nproc_per_node)
    port = ["--master_port", str(_free_port())]
    full = [sys.executable, "-m", "torch.distributed.run", *port, *command[1:]]
    done = subprocess.run(
        full, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"torchrun exited with {done.returncode}:\n{done.stderr[-3000:]}"
        )
    return done


if __name__ == "__main__":
    main()

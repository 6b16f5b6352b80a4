r"""The pretraining loop, on one process or many (``torchrun``), with checkpoints. Chapter 9.

One loop for every scale (DESIGN.md, "Past one machine"). Started by ``torchrun``
(``RANK``, ``WORLD_SIZE`` … in the environment) it joins a process group (gloo on the CPU,
NCCL on GPUs), wraps the model in ``DistributedDataParallel`` (gradients all-reduced, so
each step equals one step on the global batch) and gives each rank its share of every
global batch with a ``DistributedSampler``. Only rank 0 logs and writes checkpoints.

A checkpoint is a ``torch.save`` dict — model, optimiser, step, RNG states — read back
with ``torch.load(weights_only=True)``; the data order is a function of the step, so a
resumed run continues the same curve. The learning rate warms up linearly and decays
along a cosine (Loshchilov & Hutter, 2017). On a GPU that supports it the forward pass
runs under bf16 autocast.

Shape legend: B global batch, B_r = B / world size per rank, T block length.
"""

from __future__ import annotations

import math
import os
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import Tensor, nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data.distributed import DistributedSampler

from course_lib import step_plan
from course_lib.pretraining.common import at_least_float32

__all__ = [
    "TrainConfig",
    "causal_lm_objective",
    "load_checkpoint",
    "lr_at",
    "pretrain",
    "rank_batch",
    "save_checkpoint",
]

Objective = Callable[[nn.Module, Tensor], Tensor]


@dataclass(frozen=True)
class TrainConfig:
    """The loop's settings. ``batch_size`` is the *global* batch (all ranks together)."""

    steps: int
    batch_size: int = 32
    lr: float = 1e-3
    warmup: int = 10
    weight_decay: float = 0.01
    clip_norm: float = 1.0
    seed: int = 0
    log_every: int = 10
    checkpoint_every: int = 0  # 0: only at the end (when a path is given)
    bf16: bool = True  # autocast on devices that support bf16


def lr_at(step: int, cfg: TrainConfig) -> float:
    """Linear warm-up over ``warmup`` steps, then a cosine down to 10 % of ``lr``."""
    if step < cfg.warmup:
        return cfg.lr * (step + 1) / cfg.warmup
    progress = (step - cfg.warmup) / max(1, cfg.steps - cfg.warmup)
    return cfg.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))


def causal_lm_objective(model: nn.Module, blocks: Tensor) -> Tensor:
    """Next-token cross-entropy of blocks (B_r, T) through ``model(...).logits``."""
    logits = model(blocks[:, :-1]).logits  # (B_r, T-1, V)
    return F.cross_entropy(
        at_least_float32(logits.reshape(-1, logits.size(-1))),  # (B_r·(T-1), V)
        blocks[:, 1:].reshape(-1),  # (B_r·(T-1),)
    )


def _rng_state() -> dict:
    state = {"torch": torch.get_rng_state(), "python": random.getstate()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def _set_rng_state(state: dict) -> None:
    torch.set_rng_state(state["torch"])
    version, internal, gauss = state["python"]
    random.setstate((version, tuple(internal), gauss))
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def save_checkpoint(
    path: str | Path,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    step: int,
    losses: list[float],
) -> None:
    """Write {model, optimizer, step, losses, rng} with ``torch.save`` (atomic rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    torch.save(
        {
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "step": step,
            "losses": list(losses),
            "rng": _rng_state(),
        },
        tmp,
    )
    os.replace(tmp, path)


def load_checkpoint(
    path: str | Path, model: nn.Module, optimizer: torch.optim.Optimizer
) -> tuple[int, list[float]]:
    """Restore model, optimiser and RNG states from ``path`` (``weights_only=True``);
    returns the step to continue from and the losses logged so far."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no checkpoint at {path}; train without resume first")
    ckpt = torch.load(path, map_location="cpu", weights_only=True)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    _set_rng_state(ckpt["rng"])
    return int(ckpt["step"]), list(ckpt["losses"])


def _world() -> tuple[int, int]:
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def _check_blocks(blocks: Tensor, batch_size: int) -> None:
    if blocks.size(0) < batch_size:
        raise ValueError(
            f"{blocks.size(0)} blocks are fewer than one global batch of {batch_size}"
        )


def rank_batch(
    blocks: Tensor, step: int, cfg: TrainConfig, rank: int, world: int
) -> Tensor:
    """This rank's rows (B_r, T) of global batch ``step``, B_r = B / world: a function
    of the step only, so a resumed run sees the same batches.

    A ``DistributedSampler`` shuffles the n blocks' indices once per epoch (the same
    permutation on every rank, seeded by ``cfg.seed`` and the epoch) and deals them
    out, rank r taking positions r, r + world, r + 2·world, …; batch i of an epoch is
    the i-th run of B_r of them. The world's shares of batch i are then the one-process
    batch i, dealt out: the ranks together see the same B blocks as one process.
    Chapter 9.
    """
    _check_blocks(blocks, cfg.batch_size)
    n = blocks.size(0)
    per_epoch = n // cfg.batch_size  # global batches an epoch
    sampler = DistributedSampler(
        range(n), num_replicas=world, rank=rank, seed=cfg.seed, drop_last=True
    )  # shuffles, then deals out: rank r takes positions r, r + world, ...
    sampler.set_epoch(step // per_epoch)  # the epoch's permutation, on every rank
    B_r, i = cfg.batch_size // world, step % per_epoch
    return blocks[list(sampler)[i * B_r : (i + 1) * B_r]]  # (B_r, T)


def _check_pretrain(
    cfg: TrainConfig, world: int, resume: bool, checkpoint: str | Path | None
) -> None:
    if cfg.batch_size % world:
        raise ValueError(
            f"batch_size {cfg.batch_size} must be divisible by the world size {world}"
        )
    if resume and checkpoint is None:
        raise ValueError("resume=True needs a checkpoint path")


def _start(
    model: nn.Module,
    cfg: TrainConfig,
    device: torch.device,
    checkpoint: str | Path | None,
    resume: bool,
) -> tuple[torch.optim.Optimizer, int, list[float]]:
    """Move the model to ``device``, make its AdamW, and restore the checkpoint when
    resuming: returns the optimiser, the step to start from and the losses so far."""
    model.to(device)
    opt = torch.optim.AdamW(
        model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay
    )
    start, losses = load_checkpoint(checkpoint, model, opt) if resume else (0, [])
    model.train()
    return opt, start, losses


def _set_lr(opt: torch.optim.Optimizer, lr: float) -> None:
    for group in opt.param_groups:
        group["lr"] = lr


def _mean_over_ranks(loss: Tensor, world: int) -> float:
    """The loss averaged over the ranks (each rank's own loss on one process)."""
    value = loss.detach()
    if world > 1:
        dist.all_reduce(value)
        value = value / world
    return float(value)


def _log_and_save(
    step, stop, cfg, rank, log, checkpoint, model, opt, losses, run
) -> None:
    """Rank 0 logs every ``log_every`` steps and saves every ``checkpoint_every`` steps
    and at the last step (when a checkpoint path is given); a gpu check's ``run`` counts
    the step (:mod:`course_lib.step_plan`)."""
    step_plan.step(run)
    if log is not None and rank == 0 and (step + 1) % cfg.log_every == 0:
        log(f"step {step + 1}/{cfg.steps}  loss {losses[-1]:.4f}")
    every = cfg.checkpoint_every
    if checkpoint is not None and rank == 0:
        if (every and (step + 1) % every == 0) or step + 1 == stop:
            save_checkpoint(checkpoint, model, opt, step + 1, losses)


def _wait_for_every_rank(world: int) -> None:
    if world > 1:
        dist.barrier()


def uses_bf16(cfg: TrainConfig, device: torch.device | str) -> bool:
    """Whether ``pretrain`` runs under bf16 autocast: ``cfg.bf16`` on a GPU with bf16
    arithmetic (compute capability 8 or more). A T4 (7.5) only emulates bf16, slower than
    float32, so there the loop stays in float32."""
    device = torch.device(device)
    return (
        cfg.bf16
        and device.type == "cuda"
        and torch.cuda.is_bf16_supported(including_emulation=False)
    )


def pretrain(
    model: nn.Module,
    blocks: Tensor,
    cfg: TrainConfig,
    *,
    objective: Objective = causal_lm_objective,
    checkpoint: str | Path | None = None,
    resume: bool = False,
    until: int | None = None,
    device: torch.device | str | None = None,
    log: Callable[[str], None] | None = print,
) -> list[float]:
    """Train ``model`` on ``blocks`` (n, T) for ``cfg.steps`` global batches.

    Under ``torch.distributed`` (an initialised process group) the model is wrapped in
    DDP and each rank takes B / world rows of each batch. Returns the global mean loss
    of every step (all ranks agree). ``resume`` continues from ``checkpoint``.
    ``course_lib.training.fit`` is not used: the loop is nanoGPT's, which the chapter
    teaches: a DDP-wrapped model, each rank's slice of the global batch, bf16 autocast,
    the learning rate set per step, the loss averaged over ranks, checkpoints to resume.
    Its planned steps (a gpu check, :mod:`course_lib.step_plan`): from the step it
    starts at (0, or the checkpoint's) to ``until`` or ``cfg.steps``.
    """
    rank, world = _world()
    _check_pretrain(cfg, world, resume, checkpoint)
    device = torch.device(device or "cpu")
    opt, start, losses = _start(model, cfg, device, checkpoint, resume)
    net = DistributedDataParallel(model) if world > 1 else model
    amp = uses_bf16(cfg, device)
    run, stop = step_plan.begin_steps("pretrain", start, cfg.steps, until)
    for step in range(start, stop):
        _set_lr(opt, lr_at(step, cfg))  # warm-up, then the cosine
        batch = rank_batch(blocks, step, cfg, rank, world).to(device)  # (B_r, T)
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=amp):
            loss = objective(net, batch)
        opt.zero_grad(set_to_none=True)
        loss.backward()  # DDP all-reduces (averages) the gradients here
        nn.utils.clip_grad_norm_(model.parameters(), cfg.clip_norm)
        opt.step()
        losses.append(_mean_over_ranks(loss, world))
        _log_and_save(step, stop, cfg, rank, log, checkpoint, model, opt, losses, run)
    _wait_for_every_rank(world)
    return losses

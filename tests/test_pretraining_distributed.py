"""The pretraining loop: 2 gloo processes = 1 process at the same global batch; resuming
a checkpoint continues the same curve (DESIGN.md, "Past one machine")."""

from __future__ import annotations

import json

import pytest
import torch

from course_lib.pretraining import (
    GPT,
    GPTConfig,
    TrainConfig,
    eval_blocks,
    pretrain,
    rank_batch,
)
from course_lib.pretraining.launch import main, run_torchrun, torchrun_command

MODEL = dict(
    vocab_size=40, d_model=16, n_heads=2, d_ff=32, n_layers=2, max_len=12, dropout=0.0
)
ARGS = [
    "--synthetic",
    "2000",
    "--model",
    json.dumps(MODEL),
    "--steps",
    "6",
    "--batch-size",
    "8",
    "--warmup",
    "2",
    "--dtype",
    "float64",
]


def test_two_gloo_processes_equal_one_process(tmp_path):
    one = main([*ARGS, "--out", str(tmp_path / "one.json")])
    done = run_torchrun(
        [*ARGS, "--out", "two.json"], nproc_per_node=2, cwd=tmp_path, timeout=240
    )
    assert done.returncode == 0
    two = json.loads((tmp_path / "two.json").read_text())
    assert len(two) == len(one) == 6
    for a, b in zip(one, two, strict=True):
        assert abs(a - b) < 1e-6, (one, two)


def test_torchrun_command_and_a_failed_run(tmp_path):
    assert torchrun_command(["--steps", "3"], 4) == [
        "torchrun",
        "--nproc_per_node",
        "4",
        "-m",
        "course_lib.pretraining.launch",
        "--steps",
        "3",
    ]
    with pytest.raises(RuntimeError, match="torchrun exited with"):
        run_torchrun(["--steps", "3"], cwd=tmp_path, timeout=240)  # no data given


def test_resuming_continues_the_same_curve(tmp_path):
    ckpt = tmp_path / "ckpt.pt"
    full = main([*ARGS])
    first = main([*ARGS, "--checkpoint", str(ckpt), "--until", "3"])
    assert len(first) == 3
    resumed = main([*ARGS, "--checkpoint", str(ckpt), "--resume"])
    assert len(resumed) == 6
    torch.testing.assert_close(
        torch.tensor(resumed), torch.tensor(full), rtol=0, atol=1e-12
    )
    saved = torch.load(ckpt, weights_only=True)
    assert saved["step"] == 6 and set(saved) >= {"model", "optimizer", "rng"}


def test_resume_with_dropout_restores_the_rng(tmp_path):
    torch.manual_seed(0)
    cfg = GPTConfig(**{**MODEL, "dropout": 0.2})
    blocks = eval_blocks(torch.randint(0, 40, (1000,)), 13)
    tc = TrainConfig(steps=4, batch_size=4, warmup=1, log_every=100)

    def run(**kw):
        torch.manual_seed(1)
        model = GPT(cfg).double()
        torch.manual_seed(2)
        return pretrain(model, blocks, tc, log=None, **kw)

    full = run()
    run(checkpoint=tmp_path / "c.pt", until=2)
    torch.manual_seed(99)  # a different RNG state: the checkpoint must restore it
    resumed = run(checkpoint=tmp_path / "c.pt", resume=True)
    assert resumed == pytest.approx(full, abs=1e-12)


def test_errors(tmp_path):
    model = GPT(GPTConfig(**MODEL))
    blocks = eval_blocks(torch.arange(200) % 40, 13)
    with pytest.raises(ValueError, match="fewer than one global batch"):
        pretrain(model, blocks, TrainConfig(steps=1, batch_size=64), log=None)
    with pytest.raises(FileNotFoundError, match="no checkpoint"):
        pretrain(
            model,
            blocks,
            TrainConfig(steps=1, batch_size=4),
            log=None,
            checkpoint=tmp_path / "none.pt",
            resume=True,
        )


def test_bf16_autocast_only_where_the_gpu_has_bf16_arithmetic(monkeypatch):
    """A T4 (compute capability 7.5) emulates bf16, slower than float32: torch's
    ``is_bf16_supported()`` says yes there by default, ``including_emulation=False`` says no."""
    from course_lib.pretraining import uses_bf16

    asked = []

    def supported(including_emulation: bool = True) -> bool:
        asked.append(including_emulation)
        return including_emulation  # a T4: emulation only

    monkeypatch.setattr(torch.cuda, "is_bf16_supported", supported)
    assert not uses_bf16(TrainConfig(steps=1), "cuda")  # the T4
    assert asked == [False]
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda **_: True)  # an A100
    assert uses_bf16(TrainConfig(steps=1), "cuda")
    assert not uses_bf16(TrainConfig(steps=1, bf16=False), "cuda")
    assert not uses_bf16(TrainConfig(steps=1), "cpu")


@pytest.mark.parametrize("world", [2, 4])
def test_the_ranks_shares_deal_out_the_one_process_batch(world):
    """DDP sees the batches one process sees: rank r's rows of batch i are positions
    r, r + world, ... of the one-process batch i."""
    blocks = torch.arange(50)[:, None] * 10 + torch.arange(3)  # (n, T): row n holds n
    cfg = TrainConfig(steps=20, batch_size=8, seed=3)
    for step in (0, 5, 6, 13):  # 6 batches an epoch: a new shuffle at step 6 and 12
        whole = rank_batch(blocks, step, cfg, 0, 1)  # (B, T)
        shares = [rank_batch(blocks, step, cfg, r, world) for r in range(world)]
        assert all(s.shape == (8 // world, 3) for s in shares)
        dealt = torch.stack(shares, 1).flatten(0, 1)  # (B, T): r, r + world, ...
        assert torch.equal(dealt, whole)
    assert not torch.equal(
        rank_batch(blocks, 0, cfg, 0, 1), rank_batch(blocks, 6, cfg, 0, 1)
    )

"""Checkpoints made by the course's command: their recipe, their files, their staleness."""

from __future__ import annotations

import dataclasses
import importlib.util
import json

import pytest
import torch

from course_lib.checkpoints import (
    RECIPES,
    SPECIALS,
    WEIGHTS,
    MLMRecipe,
    cls_blocks,
    load_pretrained,
    load_record,
    restamp,
    save_pretrained,
    stale_modules,
    store,
    train_mlm_encoder,
    verify,
)
from course_lib.checkpoints import __main__ as cli
from course_lib.pretraining import eval_blocks

TINY = MLMRecipe(
    tok_lines=150,
    tok_sst=150,
    vocab=300,
    text_lines=120,
    text_sst=120,
    d_model=16,
    n_heads=2,
    d_ff=32,
    n_layers=1,
    max_len=24,
    steps=12,
    batch=8,
    warmup=3,
)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A tiny run of the recipe, saved: (the run, its folder)."""
    folder = tmp_path_factory.mktemp("ckpt")
    trained = train_mlm_encoder(TINY, log=None)
    save_pretrained("mlm_encoder", trained, TINY, directory=folder)
    return trained, folder


def test_loaded_weights_are_the_trained_ones_in_fp16(tiny):
    trained, folder = tiny
    loaded = load_pretrained("mlm_encoder", directory=folder)
    for (name, a), b in zip(
        trained.encoder.state_dict().items(), loaded.encoder.state_dict().values()
    ):
        assert torch.equal(a.half().float(), b), name  # exactly the fp16 rounding
        assert b.dtype == torch.float32
    assert loaded.tokenizer.vocab == trained.tokenizer.vocab
    assert loaded.tokenizer.vocab[: len(SPECIALS)] == SPECIALS
    assert not loaded.encoder.training
    tokens = torch.randint(4, 300, (3, 10), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        a, b = trained.encoder(tokens)[0], loaded.encoder(tokens)[0]
    assert (a - b).abs().max() < 0.05  # fp16 weights, the same function to rounding


def test_the_record_holds_the_log_the_cost_and_the_recipe(tiny):
    trained, folder = tiny
    record = json.loads((folder / "mlm_encoder.json").read_text())
    assert record["recipe"] == dataclasses.asdict(TINY)
    assert record["steps"] == len(trained.losses) == TINY.steps
    assert record["log"] == [round(sum(trained.losses) / TINY.steps, 4)]  # one window
    assert record["seconds"] == round(trained.seconds, 1) and record["seconds"] >= 0
    assert record["parameters"] == sum(p.numel() for p in trained.encoder.parameters())
    assert record["config"]["d_model"] == TINY.d_model
    assert verify("mlm_encoder", folder) == []
    assert load_record("mlm_encoder", folder) == record  # the record without weights


def test_a_run_is_fixed_by_its_recipe_not_by_the_chapter_seed(monkeypatch):
    first = train_mlm_encoder(TINY, log=None)
    monkeypatch.setenv("COURSE_SEED", "2")
    torch.manual_seed(123)  # the caller's draws do not matter either
    second = train_mlm_encoder(TINY, tokenizer=first.tokenizer, log=None)
    assert first.losses == second.losses


def test_a_damaged_file_is_refused(tiny, tmp_path):
    _, folder = tiny
    for f in folder.glob("mlm_encoder*"):
        (tmp_path / f.name).write_bytes(f.read_bytes())
    weights = tmp_path / "mlm_encoder.pt"
    data = bytearray(weights.read_bytes())
    data[-10] ^= 0xFF
    weights.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="sha256"):
        load_pretrained("mlm_encoder", directory=tmp_path)
    assert any("mlm_encoder.pt: sha256" in p for p in verify("mlm_encoder", tmp_path))


def test_a_missing_file_or_name_says_what_to_do(tiny, tmp_path):
    _, folder = tiny
    (tmp_path / "mlm_encoder.json").write_bytes(
        (folder / "mlm_encoder.json").read_bytes()
    )
    with pytest.raises(FileNotFoundError, match="mlm_encoder.pt.*missing"):
        load_pretrained("mlm_encoder", directory=tmp_path)
    with pytest.raises(KeyError, match="no checkpoint recipe named 'bert'"):
        load_pretrained("bert", directory=tmp_path)


def test_changed_code_makes_a_checkpoint_stale(tiny, tmp_path):
    _, folder = tiny
    for f in folder.glob("mlm_encoder*"):
        (tmp_path / f.name).write_bytes(f.read_bytes())
    record = json.loads((tmp_path / "mlm_encoder.json").read_text())
    record["code"]["course_lib.pretraining.encoder"] = "0" * 64
    record["code"]["course_lib.gone"] = "1" * 64
    (tmp_path / "mlm_encoder.json").write_text(json.dumps(record))
    assert stale_modules(record) == [
        "course_lib.gone",
        "course_lib.pretraining.encoder",
    ]
    with pytest.warns(UserWarning, match="pretraining.encoder changed"):
        load_pretrained("mlm_encoder", directory=tmp_path)
    assert "stale: the code of course_lib.pretraining.encoder changed" in verify(
        "mlm_encoder", tmp_path
    )


def _module_from(tmp_path, name, source):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_fingerprint_ignores_docstrings_comments_and_layout(tmp_path):
    base = '"""A."""\n\ndef f(x):\n    """Twice."""\n    return 2 * x\n'
    same = "# note\ndef f(x):\n    return 2*x  # doubled\n"
    other = '"""A."""\n\ndef f(x):\n    """Twice."""\n    return 3 * x\n'
    hashes = [
        store._module_hash(_module_from(tmp_path, f"m{i}", src))
        for i, src in enumerate((base, same, other))
    ]
    assert hashes[0] == hashes[1] != hashes[2]


def test_the_fingerprint_follows_the_code_the_recipe_runs():
    modules = store.code_fingerprint()
    for name in (
        "course_lib.checkpoints.recipes",
        "course_lib.pretraining.encoder",
        "course_lib.pretraining.masked_lm",
        "course_lib.pretraining.distributed",
        "course_lib.transformer.layers",
        "course_lib.transformer.attention",
        "course_lib.subwords.tokenizer",
        "course_lib.data.wikitext",
        "course_lib.data.sst2",
    ):
        assert name in modules, name
    assert not store.PLUMBING & modules.keys()


def test_cls_blocks_are_the_streams_blocks_after_cls():
    stream = torch.arange(10, 60)
    blocks = cls_blocks(stream, 8, cls_id=2)
    assert torch.equal(blocks[:, 0], torch.full((blocks.size(0),), 2))
    assert torch.equal(blocks[:, 1:], eval_blocks(stream, 7))


def test_bad_recipes_are_refused():
    with pytest.raises(ValueError, match="steps must be an int >= 1"):
        MLMRecipe(steps=0)
    with pytest.raises(ValueError, match="text_lines must be None"):
        MLMRecipe(text_lines=-1)
    with pytest.raises(ValueError, match="lr must be > 0"):
        MLMRecipe(lr=0.0)


def test_the_command_trains_resumes_and_verifies(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(RECIPES, "mlm_encoder", TINY)
    out = str(tmp_path)
    assert cli.main(["train", "mlm_encoder", "--out", out, "--resume"]) == 2
    assert cli.main(["train", "mlm_encoder", "--out", out, "--threads", "1"]) == 0
    assert not list(tmp_path.glob("*.state.*"))  # the run's state goes when it ends
    assert cli.main(["verify", "mlm_encoder", "--dir", out]) == 0
    record = json.loads((tmp_path / "mlm_encoder.json").read_text())
    assert record["recipe"] == dataclasses.asdict(TINY) and record["threads"] == 1
    (tmp_path / "mlm_encoder.pt").write_bytes(b"not a checkpoint")
    assert cli.main(["verify", "mlm_encoder", "--dir", out]) == 1
    assert "mlm_encoder.pt: sha256" in capsys.readouterr().out


def test_a_stopped_run_resumes_to_the_same_losses(tmp_path):
    whole = train_mlm_encoder(TINY, log=None)
    state = str(tmp_path / "s.pt")
    # a save every step here (a twentieth of the run, at least one): stop at the second
    with pytest.raises(KeyboardInterrupt):
        train_mlm_encoder(
            TINY, tokenizer=whole.tokenizer, state=state, log=_stop_once()
        )
    resumed = train_mlm_encoder(
        TINY, tokenizer=whole.tokenizer, state=state, resume=True, log=None
    )
    assert resumed.losses == whole.losses


def _stop_once():
    calls = []

    def log(line):  # the first step logs and saves; the second stops the run
        calls.append(line)
        if len(calls) == 2:
            raise KeyboardInterrupt(line)

    return log


COMMITTED = sorted(p.stem for p in WEIGHTS.glob("*.pt"))


def test_every_recipe_has_its_checkpoint_committed():
    assert COMMITTED == sorted(RECIPES), (COMMITTED, sorted(RECIPES))


@pytest.mark.parametrize("name", COMMITTED)
def test_a_committed_checkpoint_is_sound_and_current(name):
    """The staleness check: fails when the code or the recipe that made it changes."""
    problems = verify(name)
    assert problems == [], (
        f"{problems}; retrain: python -m course_lib.checkpoints train {name}"
    )
    record = json.loads((WEIGHTS / f"{name}.json").read_text())
    assert record["recipe"] == dataclasses.asdict(RECIPES[name])
    assert record["steps"] == RECIPES[name].steps


def test_the_committed_checkpoints_are_small():
    total = sum(f.stat().st_size for f in WEIGHTS.iterdir())
    assert total <= 25 * 2**20  # all checkpoints together


def test_restamp_records_the_code_once_it_trains_the_same_run(monkeypatch, tmp_path):
    recipe = dataclasses.replace(TINY, steps=60)
    monkeypatch.setitem(RECIPES, "mlm_encoder", recipe)
    save_pretrained(
        "mlm_encoder", train_mlm_encoder(recipe, log=None), recipe, directory=tmp_path
    )
    path = tmp_path / "mlm_encoder.json"
    record = json.loads(path.read_text())
    record["code"]["course_lib.pretraining.encoder"] = (
        "0" * 64
    )  # as if the code changed
    path.write_text(json.dumps(record))
    assert verify("mlm_encoder", tmp_path) != []
    assert restamp("mlm_encoder", steps=50, directory=tmp_path) == []
    assert verify("mlm_encoder", tmp_path) == []
    # a run that logs other losses is not restamped
    record = json.loads(path.read_text())
    record["log"][0] += 0.001
    record["code"]["course_lib.pretraining.encoder"] = "0" * 64
    path.write_text(json.dumps(record))
    assert restamp("mlm_encoder", steps=50, directory=tmp_path) == [
        "the first 50 steps log other losses: train it again"
    ]
    with pytest.raises(ValueError, match="steps must be an int >= 50"):
        restamp("mlm_encoder", steps=10, directory=tmp_path)

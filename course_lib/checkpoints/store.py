"""Committed checkpoints: written in fp16 with their record, loaded with their sha256
checked, and caught when the code that made them changes. Chapter 9.

A checkpoint ``NAME`` is three files in :data:`WEIGHTS`:

- ``NAME.pt``: the model's state dict, floating tensors in fp16 (half the bytes);
- ``NAME.tokenizer.json``: its tokenizer (:meth:`~course_lib.subwords.Tokenizer.save`);
- ``NAME.json``: the record: the recipe, the model's sizes, the training log (the mean
  loss of every ``log_every`` steps), its cost (seconds, threads, device, torch), the two
  files' sha256, and a fingerprint of every course module the run's code is made of.

The fingerprint of a module is the sha256 of its syntax tree without docstrings, so a
comment, a docstring or the formatting may change without making the checkpoint stale; a
change to what the code does makes it so (:func:`stale_modules`, checked by a test).
"""

from __future__ import annotations

import ast
import dataclasses
import datetime as dt
import hashlib
import importlib
import inspect
import json
import os
import platform
import types
import warnings
from pathlib import Path
from typing import NamedTuple

import torch

from course_lib.checkpoints.recipes import (
    RECIPES,
    MLMRecipe,
    Trained,
    train_mlm_encoder,
)
from course_lib.pretraining.encoder import Encoder, EncoderConfig
from course_lib.subwords import Tokenizer

__all__ = [
    "WEIGHTS",
    "Loaded",
    "code_fingerprint",
    "load_pretrained",
    "load_record",
    "record_of",
    "restamp",
    "save_pretrained",
    "stale_modules",
    "verify",
]

WEIGHTS = Path(__file__).parent / "weights"
LOG_EVERY = 50  # the record keeps the mean loss of every 50 steps
ROOT_MODULE = "course_lib.checkpoints.recipes"
# What fetches, checks and counts, not what computes: the data these modules deliver is
# checked against the sha256 sums in course_lib.data.registry, which is fingerprinted.
PLUMBING = frozenset(
    f"course_lib.{m}"
    for m in (
        "checks",
        "data.cache_files",
        "data.errors",
        "data.fetch",
        "data.spec",
        "runtime",
        "step_plan",
        "training",
    )
)


class Loaded(NamedTuple):
    """A checkpoint as the chapter uses it: the encoder (float32), its tokenizer, its record."""

    encoder: Encoder
    tokenizer: Tokenizer
    record: dict


def _folder(directory: str | os.PathLike | None) -> Path:
    """Where checkpoints live: ``directory``, or the package's ``weights/`` folder."""
    return Path(directory) if directory is not None else WEIGHTS


def _paths(name: str, directory: Path) -> tuple[Path, Path, Path]:
    return (
        directory / f"{name}.pt",
        directory / f"{name}.tokenizer.json",
        directory / f"{name}.json",
    )


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _without_docstrings(tree: ast.AST) -> ast.AST:
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, kinds) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant) and isinstance(
                body[0].value.value, str
            ):
                node.body = body[1:] or [ast.Pass()]
    return tree


def _module_hash(module: types.ModuleType) -> str:
    tree = _without_docstrings(ast.parse(inspect.getsource(module)))
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()


def _course_imports(module: types.ModuleType) -> set[str]:
    """The course modules whose code ``module`` imports: for a name taken from a package,
    the module that defines it (not the package's ``__init__``)."""
    found = set()
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        if not isinstance(node, ast.ImportFrom) or not node.module:
            continue
        if node.module.split(".")[0] != "course_lib":
            continue
        source = importlib.import_module(node.module)
        for alias in node.names:
            obj = getattr(source, alias.name)
            name = (
                obj.__name__
                if inspect.ismodule(obj)
                else getattr(obj, "__module__", None)
            )
            if name is None:  # a constant: it lives in the module it was taken from
                name = node.module
            if name.startswith("course_lib") and name not in PLUMBING:
                found.add(name)
    return found


def code_fingerprint(root: str = ROOT_MODULE) -> dict[str, str]:
    """{module: hash} for ``root`` and every course module its code reaches, but for
    :data:`PLUMBING`."""
    seen: dict[str, str] = {}
    todo = [root]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        module = importlib.import_module(name)
        seen[name] = _module_hash(module)
        todo.extend(_course_imports(module) - seen.keys())
    return dict(sorted(seen.items()))


def stale_modules(record: dict) -> list[str]:
    """The modules whose code changed since the checkpoint was made (or appeared, or went)."""
    now, then = code_fingerprint(), record["code"]
    return sorted(k for k in now.keys() | then.keys() if now.get(k) != then.get(k))


def _write_atomic(path: Path, write) -> None:
    tmp = path.with_name(path.name + ".tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _log_of(losses: list[float]) -> list[float]:
    """The mean loss of every :data:`LOG_EVERY` steps, to 4 decimals."""
    windows = (losses[i : i + LOG_EVERY] for i in range(0, len(losses), LOG_EVERY))
    return [round(sum(w) / len(w), 4) for w in windows]


def record_of(
    name: str,
    trained: Trained,
    recipe: MLMRecipe,
    *,
    seconds: float | None = None,
    device: str = "cpu",
    code: dict[str, str] | None = None,
) -> dict:
    """What a run's record says, but for its files' sha256: the recipe, the sizes, the
    log (the mean loss of every :data:`LOG_EVERY` steps), the cost and the code's
    fingerprint. ``seconds``: the run's cost when it differs from ``trained.seconds`` (a
    resumed run); ``code``: the fingerprint taken when the run started (default: now)."""
    losses = trained.losses
    return {
        "name": name,
        "command": f"python -m course_lib.checkpoints train {name}",
        "recipe": dataclasses.asdict(recipe),
        "config": dataclasses.asdict(trained.encoder.config),
        "parameters": sum(p.numel() for p in trained.encoder.parameters()),
        "steps": len(losses),
        "log_every": LOG_EVERY,
        "log": _log_of(losses),
        "seconds": round(trained.seconds if seconds is None else seconds, 1),
        "threads": torch.get_num_threads(),
        "device": device,
        "machine": platform.processor() or platform.machine(),
        "torch": torch.__version__.split("+")[0],
        "made": dt.date.today().isoformat(),
        "code": code if code is not None else code_fingerprint(),
    }


def save_pretrained(
    name: str,
    trained: Trained,
    recipe: MLMRecipe,
    *,
    directory: str | os.PathLike | None = None,
    **how,
) -> Path:
    """Write ``name``'s three files (the record last, so a record always describes the
    files beside it); returns the record's path. ``how``: :func:`record_of`'s keywords."""
    folder = _folder(directory)
    folder.mkdir(parents=True, exist_ok=True)
    weights, tok_path, record_path = _paths(name, folder)
    state = {
        k: v.half() if v.is_floating_point() else v
        for k, v in trained.encoder.state_dict().items()
    }
    _write_atomic(weights, lambda p: torch.save(state, p))
    _write_atomic(tok_path, lambda p: trained.tokenizer.save(p))
    record = record_of(name, trained, recipe, **how)
    record["sha256"] = {"weights": _sha256(weights), "tokenizer": _sha256(tok_path)}
    text = json.dumps(record, indent=1) + "\n"
    _write_atomic(record_path, lambda p: p.write_text(text))
    return record_path


def _record(name: str, folder: Path) -> dict:
    if name not in RECIPES:
        raise KeyError(
            f"no checkpoint recipe named {name!r}; the course has {sorted(RECIPES)}"
        )
    weights, tok_path, record_path = _paths(name, folder)
    missing = [p.name for p in (weights, tok_path, record_path) if not p.is_file()]
    if missing:
        raise FileNotFoundError(
            f"checkpoint {name!r} is incomplete in {folder}: {', '.join(missing)} missing.\n"
            f"Fix: python -m course_lib.checkpoints train {name}"
        )
    return json.loads(record_path.read_text())


def load_record(name: str, directory: str | os.PathLike | None = None) -> dict:
    """Checkpoint ``name``'s record without its weights: recipe, configuration, training
    log, cost, sha256 sums and code fingerprint (what :func:`record_of` wrote)."""
    return _record(name, _folder(directory))


def verify(name: str, directory: str | os.PathLike | None = None) -> list[str]:
    """What is wrong with checkpoint ``name``: a file whose sha256 is not the recorded
    one, modules changed since it was made. An empty list: it is sound and current."""
    folder = _folder(directory)
    record = _record(name, folder)
    weights, tok_path, _ = _paths(name, folder)
    problems = [
        f"{path.name}: sha256 {_sha256(path)[:12]}…, recorded {record['sha256'][key][:12]}…"
        for key, path in (("weights", weights), ("tokenizer", tok_path))
        if _sha256(path) != record["sha256"][key]
    ]
    problems += [f"stale: the code of {m} changed" for m in stale_modules(record)]
    return problems


def load_pretrained(
    name: str,
    *,
    directory: str | os.PathLike | None = None,
    device: torch.device | str | None = None,
) -> Loaded:
    """Checkpoint ``name`` with both files' sha256 checked (a mismatch raises); the
    encoder in float32 on ``device``, in eval mode. A checkpoint whose code has changed
    since loads with a warning (the test suite fails on it)."""
    folder = _folder(directory)
    record = _record(name, folder)
    weights, tok_path, _ = _paths(name, folder)
    for key, path in (("weights", weights), ("tokenizer", tok_path)):
        if _sha256(path) != record["sha256"][key]:
            raise ValueError(
                f"{path} does not match its record's sha256: the file is damaged or "
                f"was replaced.\nFix: python -m course_lib.checkpoints train {name}"
            )
    stale = stale_modules(record)
    if stale:
        warnings.warn(
            f"checkpoint {name!r} was made by other code: {', '.join(stale)} changed "
            f"since; retrain it with python -m course_lib.checkpoints train {name}",
            stacklevel=2,
        )
    encoder = Encoder(EncoderConfig(**record["config"]), device=device)
    state = torch.load(weights, map_location="cpu", weights_only=True)
    encoder.load_state_dict(
        {k: v.float() if v.is_floating_point() else v for k, v in state.items()}
    )
    return Loaded(encoder.eval(), Tokenizer.load(tok_path), record)


def restamp(
    name: str, *, steps: int = 200, directory: str | os.PathLike | None = None
) -> list[str]:
    """Record the current code's fingerprint in checkpoint ``name``'s record, once the
    current code has trained the recorded run's first ``steps`` steps to the same logged
    losses: for a change that leaves what the run computes as it was (a new option, a
    renamed helper). Returns what stops it (an empty list: restamped). A change that only
    acts later in the run is not caught: train the checkpoint again after one."""
    if not isinstance(steps, int) or steps < LOG_EVERY:
        raise ValueError(
            f"steps must be an int >= {LOG_EVERY} (one logged mean); got {steps!r}"
        )
    folder = _folder(directory)
    record = _record(name, folder)
    problems = [p for p in verify(name, folder) if not p.startswith("stale")]
    if dataclasses.asdict(RECIPES[name]) != record["recipe"]:
        problems.append("the recipe changed: train the checkpoint again")
    if problems:
        return problems
    tok = Tokenizer.load(_paths(name, folder)[1])
    run = train_mlm_encoder(RECIPES[name], tokenizer=tok, until=steps, log=None)
    n = steps // LOG_EVERY
    if _log_of(run.losses)[:n] != record["log"][:n]:
        return [f"the first {n * LOG_EVERY} steps log other losses: train it again"]
    record["code"] = code_fingerprint()
    text = json.dumps(record, indent=1) + "\n"
    _write_atomic(_paths(name, folder)[2], lambda p: p.write_text(text))
    return []

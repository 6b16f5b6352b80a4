"""Run-time switches shared by every chapter: device, seeds and the run profile.

The profile (``COURSE_PROFILE`` = ``smoke`` | ``cpu`` | ``gpu``) sizes every notebook's data and
training. ``smoke`` is what the tests use (seconds a chapter on 2 CPU cores), ``cpu`` gives
meaningful results in minutes on a laptop, ``gpu`` gives the full results.
A notebook states its sizes once::

    cfg = pick(smoke=dict(epochs=1), cpu=dict(epochs=5), gpu=dict(epochs=20))
"""

from __future__ import annotations

import contextlib
import operator
import os
import random
from collections.abc import Iterator, Mapping
from typing import Any, TypeVar

import numpy as np
import torch

PROFILES = ("smoke", "cpu", "gpu")
T = TypeVar("T")


class SettingError(ValueError):
    """A ``COURSE_*`` environment variable holds a value this run cannot use.

    The message names the variable, the value, what was expected and the fix.
    """


DEVICE_ENV = "COURSE_DEVICE"


_DEVICE_FIX = (
    f"set {DEVICE_ENV}=cpu, or unset it: the course then picks CUDA, then MPS, then "
    "the CPU, whichever this machine has."
)


def _unusable(chosen: torch.device) -> str:
    """Why ``chosen`` cannot hold tensors in this process ("" when it can)."""
    kind = chosen.type
    if kind == "cpu":
        return ""
    if kind == "cuda":
        if not torch.cuda.is_available():
            build = torch.version.cuda
            why = "no GPU is visible" if build else "this torch is built without CUDA"
            return f"{why} (torch {torch.__version__})"
        count = torch.cuda.device_count()
        if chosen.index is not None and chosen.index >= count:
            names = ", ".join(f"cuda:{i}" for i in range(count))
            return f"only {count} CUDA device(s) are visible ({names})"
        return ""
    if kind == "mps":
        mps = getattr(torch.backends, "mps", None)
        if mps is None or not mps.is_available():
            return "Apple MPS is not available here (it needs macOS on Apple silicon)"
        return ""
    backend = getattr(torch, kind, None)
    available = getattr(backend, "is_available", None)
    if callable(available) and available():
        return ""
    return f"the course runs on cpu, cuda or mps, and {kind!r} is not available"


def device() -> torch.device:
    """The device every chapter uses: CUDA, then Apple MPS, then the CPU.

    ``COURSE_DEVICE`` (for example ``cpu`` or ``cuda:1``) overrides the choice; a device
    this torch cannot use (``cuda`` without CUDA, ``cuda:7`` with fewer GPUs, ``mps``
    off a Mac) raises :class:`SettingError` here, not later inside a model.
    """
    forced = os.environ.get(DEVICE_ENV, "").strip()
    if forced:
        try:
            chosen = torch.device(forced)
        except RuntimeError as err:
            raise SettingError(
                f"{DEVICE_ENV}={forced!r} is not a torch device; use e.g. 'cpu' or "
                f"'cuda:0'.\nFix: {_DEVICE_FIX}"
            ) from err
        problem = _unusable(chosen)
        if problem:
            raise SettingError(
                f"{DEVICE_ENV}={forced!r} names a device this run cannot use: "
                f"{problem}.\nFix: {_DEVICE_FIX}"
            )
        return chosen
    if torch.cuda.is_available():
        return torch.device("cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


SEED_ENV = "COURSE_SEED"


def run_offset() -> int:
    """The run's random stream: ``COURSE_SEED`` (default 0), a non-negative integer.

    ``make seeds`` runs a chapter again with ``COURSE_SEED=1`` and ``2`` to see which of its
    findings survive another random draw.
    """
    value = os.environ.get(SEED_ENV, "").strip()
    if not value:
        return 0
    try:
        offset = int(value)
    except ValueError:
        offset = -1
    if offset < 0:
        raise SettingError(
            f"{SEED_ENV}={value!r} is not a non-negative integer.\nFix: unset it for the "
            f"book's own draw (0), or set another stream, e.g. {SEED_ENV}=1"
        )
    return offset


def run_seed(seed: int) -> int:
    """``seed`` as this run uses it: unchanged when ``COURSE_SEED`` is 0 (the book's draw),
    otherwise mixed with it, so that every seed a chapter or ``course_lib`` sets moves to another
    random stream together and no two of them meet.

    Every generator the course seeds from a constant goes through here:
    ``torch.Generator().manual_seed(run_seed(0))``.
    """
    if isinstance(seed, bool):
        raise TypeError(f"seed must be an int, got {seed!r}")
    seed = operator.index(seed)  # an int, or a NumPy integer; a float is a TypeError
    offset = run_offset()
    if offset == 0:
        return seed
    state = np.random.SeedSequence((offset, seed % 2**63)).generate_state(1, np.uint64)
    return int(state[0]) >> 1  # below 2**63, as torch.manual_seed takes


def seed_everything(seed: int = 0) -> int:
    """Seed Python, NumPy and torch (all devices) with ``run_seed(seed)``: a notebook run
    twice prints the same numbers, and ``COURSE_SEED`` moves it to another random stream.

    Returns the seed actually used (``seed`` itself when ``COURSE_SEED`` is 0).
    """
    try:  # an int, or a NumPy integer
        given = -1 if isinstance(seed, bool) else operator.index(seed)
    except TypeError:
        given = -1
    if given < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    used = run_seed(given)
    random.seed(used)
    np.random.seed(used % 2**32)
    torch.manual_seed(used)
    # for the processes it starts (torchrun's workers): Python takes 0 ... 2**32 - 1 there
    os.environ["PYTHONHASHSEED"] = str(used % 2**32)
    return used


def profile() -> str:
    """The run profile: ``COURSE_PROFILE`` if set, else ``gpu`` with CUDA and ``cpu`` without."""
    value = os.environ.get("COURSE_PROFILE", "").strip().lower()
    if not value:
        return "gpu" if torch.cuda.is_available() else "cpu"
    if value not in PROFILES:
        raise SettingError(
            f"COURSE_PROFILE must be one of {PROFILES}, got {value!r}.\nFix: set "
            "COURSE_PROFILE to one of them, or unset it (gpu with CUDA, cpu without)."
        )
    return value


GPU_CHECK_ENV = "COURSE_GPU_CHECK"


def in_gpu_check() -> bool:
    """True in a gpu check (``COURSE_GPU_CHECK=1``, ``make gpu-check``): the ``gpu`` profile's
    sizes and code paths, each training loop run for a handful of steps."""
    return os.environ.get(GPU_CHECK_ENV, "").strip() not in ("", "0")


def _merged(base: Any, changes: Any) -> Any:
    """``base`` with ``changes`` laid over it, dict by dict (other values are replaced)."""
    if isinstance(base, dict) and isinstance(changes, dict):
        merged = {
            k: _merged(v, changes[k]) if k in changes else v for k, v in base.items()
        }
        return merged | {k: v for k, v in changes.items() if k not in base}
    return changes


_UNSET: Any = object()


def _columns(table: Mapping[str, Any]) -> tuple[dict, dict, dict, dict]:
    """A sizes table's smoke, cpu and gpu choices, and the gpu check's changes; a row that is
    itself a mapping is a table of its own (a model's sizes), giving a dict in each column."""
    columns: tuple[dict, dict, dict, dict] = ({}, {}, {}, {})
    for key, row in table.items():
        if isinstance(row, Mapping):
            row = tuple(c for c in _columns(row) if c) if row else ()
        if not isinstance(row, tuple) or len(row) not in (3, 4):
            raise ValueError(
                f"pick: the row {key!r} must be a tuple (smoke, cpu, gpu) or (smoke, cpu, "
                f"gpu, gpu check), or a table of such rows; got {row!r}"
            )
        for column, value in zip(columns, row):
            column[key] = value
    return columns


def pick(
    table: Mapping[str, tuple] | None = None,
    /,
    *,
    smoke: T = _UNSET,
    cpu: T = _UNSET,
    gpu: T = _UNSET,
    gpu_check: Any = None,
    profile_name: str | None = None,
) -> T:
    """Choose the value for the current profile: ``pick(smoke=1, cpu=5, gpu=20)``.

    A chapter's sizes are one table, a row a key: ``pick({"epochs": (1, 5, 20, 1), "d":
    (16, 64, 64)})`` returns ``{"epochs": 5, "d": 64}`` in the cpu profile; a row's fourth
    value, when it has one, is the gpu check's. A row may be a table itself: ``{"lstm": {"d":
    (16, 64, 256), "steps": (20, 300, 4000, 10)}}`` gives ``{"lstm": {"d": 64, "steps": 300}}``.

    ``gpu_check``: what a gpu check changes in the ``gpu`` choice, laid over it key by key;
    everything else, the model sizes and the code paths, stays the gpu profile's. Used only
    in a gpu check (:func:`in_gpu_check`), where every training loop takes a few steps of its
    run by itself (:mod:`course_lib.step_plan`): the changes cut the work outside the loops
    that a CPU cannot afford (evaluation sets, decoding, a tokenizer's data). A change to a
    loop's epochs, steps or training data makes the loop plan the check's run, not the gpu
    profile's.
    """
    if table is not None:
        if not (smoke is cpu is gpu is _UNSET and gpu_check is None):
            raise ValueError("pick: give a sizes table or smoke=, cpu=, gpu=, not both")
        smoke, cpu, gpu, check = _columns(table)
        return pick(
            smoke=smoke,
            cpu=cpu,
            gpu=gpu,
            gpu_check=check or None,
            profile_name=profile_name,
        )
    if _UNSET in (smoke, cpu, gpu):
        raise ValueError("pick: give smoke=, cpu= and gpu= (or a sizes table)")
    name = profile_name if profile_name is not None else profile()
    if name not in PROFILES:
        raise ValueError(f"profile must be one of {PROFILES}, got {name!r}")
    if name == "gpu" and gpu_check is not None and in_gpu_check():
        return _merged(gpu, gpu_check)
    choices: dict[str, Any] = {"smoke": smoke, "cpu": cpu, "gpu": gpu}
    return choices[name]


def progress_bar(iterable: Any = None, **kwargs: Any) -> Any:
    """A ``tqdm`` progress bar (a widget in Jupyter, text elsewhere), off while the book is built.

    The book (``COURSE_WIDGET_MODE=html``) has no kernel, so a bar there would only add a
    frozen widget; ``COURSE_PROGRESS=0`` turns bars off everywhere.
    """
    from tqdm.auto import tqdm

    quiet = (
        os.environ.get("COURSE_WIDGET_MODE", "live") == "html"
        or os.environ.get("COURSE_PROGRESS", "1") == "0"
    )
    if quiet:
        kwargs["disable"] = True
    return tqdm(iterable, **kwargs)


@contextlib.contextmanager
def one_thread(device: torch.device | str | None = None) -> Iterator[None]:
    """torch on one CPU thread inside the block (``device`` None or a CPU), then as before.

    Small matrix products (recurrent steps, (B, D) @ (D, D) with D = 64) gain nothing from
    more threads, and on a busy 2-core machine the threads' hand-offs can make each product
    many times slower.
    """
    before = torch.get_num_threads()
    if device is None or torch.device(device).type == "cpu":
        torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)

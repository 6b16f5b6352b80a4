"""COURSE_SEED: every seed the course sets moves to another random stream together."""

import os
import random
import subprocess
import sys

import numpy as np
import pytest
import torch

from course_lib import runtime
from course_lib.data.synthetic import date_pairs  # a library function that seeds itself


def test_seed_zero_is_the_books_own_draw(monkeypatch):
    monkeypatch.delenv("COURSE_SEED", raising=False)
    assert [runtime.run_seed(s) for s in (0, 1, 7, 2**40)] == [0, 1, 7, 2**40]
    monkeypatch.setenv("COURSE_SEED", "0")
    assert runtime.run_seed(3) == 3
    assert runtime.run_seed(np.int64(5)) == 5  # NumPy integers are seeds too


def test_another_seed_moves_every_stream_and_keeps_them_apart(monkeypatch):
    monkeypatch.setenv("COURSE_SEED", "1")
    moved = [runtime.run_seed(s) for s in range(200)]
    assert len(set(moved)) == 200  # no two of a chapter's seeds meet
    assert all(0 <= m < 2**63 for m in moved)
    assert set(moved).isdisjoint(range(200))
    again = [runtime.run_seed(s) for s in range(200)]
    assert moved == again  # deterministic
    monkeypatch.setenv("COURSE_SEED", "2")
    assert set(moved).isdisjoint(runtime.run_seed(s) for s in range(200))


def test_seed_everything_follows_the_run(monkeypatch):
    def draw(seed):
        runtime.seed_everything(seed)
        return random.random(), float(np.random.rand()), torch.rand(2).tolist()

    monkeypatch.delenv("COURSE_SEED", raising=False)
    book = draw(0)
    monkeypatch.setenv("COURSE_SEED", "1")
    other = draw(0)
    assert other != book
    assert runtime.seed_everything(0) == runtime.run_seed(0)
    assert draw(0) == other


def test_library_seeds_follow_the_run(monkeypatch):
    monkeypatch.delenv("COURSE_SEED", raising=False)
    book = date_pairs(20, seed=0)
    monkeypatch.setenv("COURSE_SEED", "2")
    assert date_pairs(20, seed=0) != book
    monkeypatch.setenv("COURSE_SEED", "0")
    assert date_pairs(20, seed=0) == book


@pytest.mark.parametrize("bad", ["-1", "one", "1.5"])
def test_a_bad_course_seed_names_the_variable(monkeypatch, bad):
    monkeypatch.setenv("COURSE_SEED", bad)
    with pytest.raises(ValueError, match="COURSE_SEED"):
        runtime.run_seed(0)
    with pytest.raises(runtime.SettingError, match="Fix: "):  # like COURSE_DEVICE's
        runtime.run_offset()


def test_a_seed_that_is_not_an_integer_is_refused():
    with pytest.raises(TypeError):
        runtime.run_seed(1.5)
    with pytest.raises(TypeError):
        runtime.run_seed(True)


def test_seed_everything_takes_a_numpy_integer(monkeypatch):
    monkeypatch.delenv("COURSE_SEED", raising=False)
    assert runtime.seed_everything(np.int64(3)) == 3
    for bad in (-1, 1.5, "3", True):
        with pytest.raises(ValueError, match="non-negative int"):
            runtime.seed_everything(bad)


def test_another_seed_leaves_a_hash_seed_a_new_python_accepts(monkeypatch):
    """torchrun's workers inherit PYTHONHASHSEED, and Python refuses one above 2**32 - 1."""
    monkeypatch.setenv("COURSE_SEED", "1")
    monkeypatch.setenv("PYTHONHASHSEED", "0")
    used = runtime.seed_everything(0)
    assert used >= 2**32 and int(os.environ["PYTHONHASHSEED"]) == used % 2**32
    done = subprocess.run(
        [sys.executable, "-c", "print(hash('a'))"], capture_output=True
    )
    assert done.returncode == 0, done.stderr

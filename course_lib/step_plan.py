"""How many steps a training loop's whole run takes, said before it takes them.

Every training loop of the course knows from its arguments how many updates its run makes:
epochs × batches an epoch, capped by ``max_steps`` (:func:`planned_steps`), or its ``steps``.
The loops are ``training.fit`` (and everything trained through it), ``pretrain``,
``train_word2vec``, ``train_tbptt``, ``descent_curves`` and ``train_long_range``, and the three
that update without a torch optimizer: ``train_sgns``, ``train_glove`` and
``train_with_engine``.

A gpu check (``make gpu-check``, :func:`~course_lib.runtime.in_gpu_check`) runs a chapter at the
gpu profile's sizes on a CPU. There each call of a loop is a :class:`Run` in :data:`RUNS`: the
loop gives its planned steps at the sizes it was given, then takes only the first
:data:`CHECK_STEPS` of them (:func:`step` says when to stop) and ends early; a run of at most
:data:`WHOLE_RUN` steps runs whole (a chapter's short demonstrations keep their meaning: with
``CHECK_STEPS`` at 10 too, every run of at most 10 steps does anyway).
``tools/gpu_check.py`` multiplies the counted cost of one of those steps by the planned steps:
the gpu profile's training on a T4, estimated without running it. The plan is the gpu profile's
wherever the chapter's ``gpu_check`` changes leave the loop's epochs, steps and data alone (a loop
cuts its own run short); where they cut them, it is the check's, a lower bound. (Scaling a cut
run by the gpu profile's amounts over the check's cannot be honest: a change such as
``sentences=20_000`` against the gpu's None, all of them, slices the data before a loop sees it,
and no loop knows which of the chapter's amounts fed it.)

A loop whose epochs differ in length (a shuffled, length-grouped or subsampled corpus, a
generator) plans every epoch still to come as long as the one under way, counting the batches
of that epoch it does not train on.

Outside a gpu check nothing here is observable: :func:`begin` returns None, :func:`step` of None
is False and :func:`allowed` gives the loop all its steps.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from course_lib.runtime import in_gpu_check

# the steps a loop takes in a gpu check: nine intervals between steps, whose mean is a step's
# work; batches grouped by length differ several-fold (two intervals once put Chapter 10's
# first digit model at nearly three times the mean step of its epochs, from the longest batch it
# drew)
CHECK_STEPS = 10
WHOLE_RUN = 10  # a run planned at most this many steps takes them all


@dataclass
class Run:
    """One call of a training loop in a gpu check: its planned and its taken steps."""

    loop: str
    planned: int | None = None  # None until the loop knows (a generator is counted)
    taken: int = 0


RUNS: list[Run] = []  # this process's runs, in the order they began
# called after every step of every run: tools/gpu_counting.py times the steps
LISTENERS: list[Callable[[Run], None]] = []


def planned_steps(epochs: int, per_epoch: int, max_steps: int | None = None) -> int:
    """Updates of ``epochs`` passes of ``per_epoch`` batches, stopped at ``max_steps``."""
    total = epochs * per_epoch
    return total if max_steps is None else min(total, max_steps)


def begin(loop: str, planned: int | None = None) -> Run | None:
    """A run of ``loop`` in a gpu check (None elsewhere), planning ``planned`` steps."""
    if not in_gpu_check():
        return None
    run = Run(loop, planned)
    RUNS.append(run)
    return run


def begin_steps(
    loop: str, start: int, steps: int, until: int | None = None
) -> tuple[Run | None, int]:
    """A loop over steps ``start`` ... up to ``steps`` (or ``until``, if sooner): its run in a
    gpu check (None elsewhere), and the step it stops before (a check's few, or them all)."""
    stop = steps if until is None else min(until, steps)
    run = begin(loop, stop - start)
    return run, start + allowed(run, stop - start)


def step(run: Run | None) -> bool:
    """The loop took a step: True when it must stop there (a gpu check's steps are taken)."""
    if run is None:
        return False
    run.taken += 1
    for listener in LISTENERS:
        listener(run)
    return stopped(run)


def stopped(run: Run | None) -> bool:
    """Whether a gpu check has stopped this run (a run not yet planned may be long)."""
    whole = run is not None and run.planned is not None and run.planned <= WHOLE_RUN
    return run is not None and run.taken >= CHECK_STEPS and not whole


def allowed(run: Run | None, steps: int) -> int:
    """The steps the loop takes of its ``steps``: all of them, or a gpu check's few."""
    return steps if run is None or steps <= WHOLE_RUN else min(steps, CHECK_STEPS)


def plan_epochs(
    run: Run | None,
    epochs_left: int,
    per_epoch: int,
    max_steps: int | None = None,
    done: int | None = None,
) -> None:
    """Plan ``run``: ``done`` steps so far (default: those it took), then ``epochs_left``
    epochs (the one under way included) of ``per_epoch`` batches, at most ``max_steps``."""
    if run is not None:
        done = run.taken if done is None else done
        left = None if max_steps is None else max_steps - done
        run.planned = done + planned_steps(epochs_left, per_epoch, left)


def count_rest(seen: int, rest: Iterator) -> int:
    """An epoch's batches: the ``seen`` ones and the rest of its iterator, counted, not
    trained on (a gpu check stopped the loop inside the epoch)."""
    return seen + sum(1 for _ in rest)

"""Generated data: human-readable dates and their ISO form (*Sequence Models* week 3). Chapter 7.

The date-normalisation exercise: "tuesday, march 3, 1998", "3 mar 1998", "03.03.98" ... all
map to "1998-03-03". Dates are drawn uniformly from 1950-01-01 to 2049-12-31, so a two-digit
year is unambiguous (50-99: 19xx, 00-49: 20xx). ``date_splits`` keeps the held-out *days*
apart from the training days, so a test date was never seen in any format. Deterministic
given the seed; no file is read.
"""

from __future__ import annotations

import datetime as dt
import random

from course_lib.runtime import run_seed

__all__ = ["DATE_FORMATS", "date_pairs", "date_splits", "format_date"]

_FIRST, _LAST = dt.date(1950, 1, 1), dt.date(2049, 12, 31)
_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

DATE_FORMATS = (
    "{d} {mon} {yyyy}",  # 3 mar 1998
    "{d} {month} {yyyy}",  # 3 march 1998
    "{dd} {mon} {yyyy}",  # 03 mar 1998
    "{d} {mon}, {yyyy}",  # 3 mar, 1998
    "{d} {month}, {yyyy}",  # 3 march, 1998
    "{dd}, {mon} {yyyy}",  # 03, mar 1998
    "{month} {d} {yyyy}",  # march 3 1998
    "{month} {d}, {yyyy}",  # march 3, 1998
    "{mon} {d}, {yyyy}",  # mar 3, 1998
    "{weekday}, {month} {d}, {yyyy}",  # tuesday, march 3, 1998
    "{weekday} {d} {month} {yyyy}",  # tuesday 3 march 1998
    "{dd}.{mm}.{yy}",  # 03.03.98
    "{d}/{m}/{yy}",  # 3/3/98
    "{dd}/{mm}/{yyyy}",  # 03/03/1998
    "{yyyy}/{mm}/{dd}",  # 1998/03/03
    "{d} {m} {yy}",  # 3 3 98
)


def format_date(date: dt.date, fmt: str) -> str:
    """``date`` written in one of :data:`DATE_FORMATS` (lower case, English names)."""
    return fmt.format(
        d=date.day,
        dd=f"{date.day:02d}",
        m=date.month,
        mm=f"{date.month:02d}",
        yy=f"{date.year % 100:02d}",
        yyyy=date.year,
        mon=_MONTHS[date.month - 1][:3],
        month=_MONTHS[date.month - 1],
        weekday=_DAYS[date.weekday()],
    )


def date_pairs(
    n: int, *, seed: int = 0, days: list[dt.date] | None = None
) -> list[tuple[str, str]]:
    """``n`` pairs (human-readable date, ISO date ``YYYY-MM-DD``), formats and days at random.

    days: the dates to draw from (default: every day from 1950 to 2049).
    """
    if not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be a non-negative int; got {n!r}")
    if days is not None and not days:
        raise ValueError("days is empty: nothing to draw dates from")
    rng = random.Random(run_seed(seed))
    span = (_LAST - _FIRST).days + 1
    pairs = []
    for _ in range(n):
        date = rng.choice(days) if days else _FIRST + dt.timedelta(rng.randrange(span))
        pairs.append((format_date(date, rng.choice(DATE_FORMATS)), date.isoformat()))
    return pairs


def date_splits(
    n_train: int, n_test: int, *, test_fraction: float = 0.2, seed: int = 0
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Training and held-out pairs whose *days* are disjoint (``test_fraction`` of the days
    are held out), so exact match on the test pairs measures generalisation."""
    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction must be in (0, 1); got {test_fraction}")
    span = (_LAST - _FIRST).days + 1
    all_days = [_FIRST + dt.timedelta(i) for i in range(span)]
    random.Random(run_seed(seed)).shuffle(all_days)
    cut = int(round(span * test_fraction))
    test_days, train_days = sorted(all_days[:cut]), sorted(all_days[cut:])
    return (
        date_pairs(n_train, seed=seed + 1, days=train_days),
        date_pairs(n_test, seed=seed + 2, days=test_days),
    )

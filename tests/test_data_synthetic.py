"""Generated dates: deterministic, every format parses back, held-out days are disjoint."""

from __future__ import annotations

import datetime as dt

import pytest

from course_lib.data.synthetic import DATE_FORMATS, date_pairs, date_splits, format_date


def test_formats_of_one_date():
    d = dt.date(1998, 3, 3)
    shown = {format_date(d, f) for f in DATE_FORMATS}
    assert {"3 mar 1998", "tuesday, march 3, 1998", "03.03.98", "1998/03/03"} <= shown
    assert len(shown) == len(DATE_FORMATS)


def test_pairs_are_deterministic_and_iso():
    a, b = date_pairs(200, seed=3), date_pairs(200, seed=3)
    assert a == b and a != date_pairs(200, seed=4)
    for human, iso in a:
        d = dt.date.fromisoformat(iso)
        assert dt.date(1950, 1, 1) <= d <= dt.date(2049, 12, 31)
        assert str(d.day) in human and human == human.lower()


def test_held_out_days_never_appear_in_training():
    train, test = date_splits(3000, 500, seed=0)
    assert len(train) == 3000 and len(test) == 500
    assert not {iso for _, iso in train} & {iso for _, iso in test}


def test_bad_input():
    with pytest.raises(ValueError, match="non-negative"):
        date_pairs(-1)
    with pytest.raises(ValueError, match="days is empty"):
        date_pairs(3, days=[])
    with pytest.raises(ValueError, match="test_fraction"):
        date_splits(10, 10, test_fraction=1.0)

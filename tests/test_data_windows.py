"""context_at, the one context-window function: the plain definition, position by position,
on streams, offsets and sentence boundaries drawn by Hypothesis; and the four users agree."""

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib.data.windows import context_at
from course_lib.lm.fixed_window import context_windows, make_windows


def plain(ids, offsets, pad, segments):
    out, mask = [], []
    for n in range(len(ids)):
        row = offsets[n] if isinstance(offsets[0], list) else offsets
        got = [
            (ids[n + o], True)
            if 0 <= n + o < len(ids)
            and (segments is None or segments[n + o] == segments[n])
            else (pad, False)
            for o in row
        ]
        out.append([g for g, _ in got])
        mask.append([m for _, m in got])
    return out, mask


@settings(max_examples=200)
@given(st.data())
def test_context_at_is_the_plain_definition(data):
    N = data.draw(st.integers(1, 12))
    ids = data.draw(st.lists(st.integers(0, 50), min_size=N, max_size=N))
    W = data.draw(st.integers(1, 5))
    per_position = data.draw(st.booleans())
    offset = st.integers(-6, 6)
    offsets = (
        [data.draw(st.lists(offset, min_size=W, max_size=W)) for _ in range(N)]
        if per_position
        else data.draw(st.lists(offset, min_size=W, max_size=W))
    )
    segments = data.draw(
        st.none() | st.lists(st.integers(0, 2), min_size=N, max_size=N)
    )
    segments = sorted(segments) if segments else segments  # sentences are runs
    x, mask = context_at(
        torch.tensor(ids),
        torch.tensor(offsets),
        -1,
        None if segments is None else torch.tensor(segments),
    )
    want, want_mask = plain(ids, offsets, -1, segments)
    assert x.tolist() == want and mask.tolist() == want_mask


def test_the_language_models_windows_are_left_contexts():
    ids = torch.arange(10, 16)
    x, y = make_windows(ids, 3, pad_id=0)
    assert x.tolist()[:2] == [[0, 0, 0], [0, 0, 10]] and x.tolist()[-1] == [12, 13, 14]
    both, _ = context_windows(ids, "both", 1, pad_id=0)
    assert both.tolist()[0] == [0, 11] and both.tolist()[-1] == [14, 0]

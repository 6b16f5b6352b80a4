"""One decoding module for every generating model: greedy, beam search, sampling.

``greedy_decode``, ``beam_search`` and ``sample`` decode any model that implements the
two-method protocol of :mod:`course_lib.decoding.protocol`, ``step(tokens, state)`` and
``reorder(state, rows)``: the language models of Chapter 5, the encoder-decoder of Chapter 7,
the Transformer of Chapter 8 and the GPT of Chapter 9.
"""

from course_lib.decoding.protocol import Decodable, select_rows
from course_lib.decoding.sampling import filter_scores, sample, sample_next
from course_lib.decoding.search import (
    ALPHA,
    Hypothesis,
    beam_search,
    feed_prompt,
    generate,
    greedy_decode,
    normalised_score,
)

__all__ = [
    "ALPHA",
    "Decodable",
    "Hypothesis",
    "beam_search",
    "feed_prompt",
    "filter_scores",
    "generate",
    "greedy_decode",
    "normalised_score",
    "sample",
    "sample_next",
    "select_rows",
]

"""The one check every model that embeds token ids makes at its public boundary.

``nn.Embedding`` looks ids up without asking whether they exist: an id at or above the
vocabulary size fails deep inside ``F.embedding`` ("index out of range in self") on the CPU
and as a device-side assert on a GPU. The Transformer (Chapter 8), GPT and the encoder
(Chapter 9) call :func:`check_token_ids` first, so bad input gets an error that says what was
wrong. The check itself lives in :mod:`course_lib.checks`, shared by every model.
"""

from __future__ import annotations

from course_lib.checks import check_token_ids

__all__ = ["check_token_ids"]

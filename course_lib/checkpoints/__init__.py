"""Checkpoints made by the course's own command (Chapter 9).

Where a lesson needs more training than a chapter's budget, the chapter loads weights
that ``python -m course_lib.checkpoints train NAME`` made with the chapter's own model,
data and code (:mod:`~course_lib.checkpoints.recipes`), committed in fp16 with a record of
how they were made (:mod:`~course_lib.checkpoints.store`): the training log, the cost, the
sha256 of every file, and a fingerprint of the code, so that a test fails when the code
changes and the checkpoint no longer is what it would make.
"""

from course_lib.checkpoints.recipes import (
    RECIPES,
    SPECIALS,
    MLMRecipe,
    Trained,
    chapter_tokenizer,
    cls_blocks,
    pretraining_text,
    text_blocks,
    train_mlm_encoder,
)
from course_lib.checkpoints.store import (
    WEIGHTS,
    Loaded,
    code_fingerprint,
    load_pretrained,
    load_record,
    record_of,
    restamp,
    save_pretrained,
    stale_modules,
    verify,
)

__all__ = [
    "RECIPES",
    "SPECIALS",
    "WEIGHTS",
    "Loaded",
    "MLMRecipe",
    "Trained",
    "chapter_tokenizer",
    "cls_blocks",
    "code_fingerprint",
    "load_pretrained",
    "load_record",
    "pretraining_text",
    "record_of",
    "restamp",
    "save_pretrained",
    "stale_modules",
    "text_blocks",
    "train_mlm_encoder",
    "verify",
]

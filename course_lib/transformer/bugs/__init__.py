"""Recurring bugs of from-scratch Transformers, each with its symptom and the check that catches it.

Chapter 8, "Debugging a Transformer". Each :class:`Bug` holds a small buggy function, the
fixed one with the same signature, the symptom to expect, and a ``check`` that raises
``AssertionError`` (or the bug's own error) on the buggy version and passes on the fixed
one. The notebook runs them; ``tests/test_transformer_bugs.py`` runs them too.
``BUGS`` are bugs of the computation: six that recur in from-scratch code
(:mod:`.computation`) and two mask shapes of lecture-note code (:mod:`.mask_shapes`).
``SETUP_BUGS`` (:mod:`.setup`) are the ones that stop lecture-note code before it computes
anything (names never defined or misspelt, a model built without its arguments, a
hard-coded ``.cuda()``): each raises, and the check shows which error.
"""

from course_lib.transformer.bugs.bug import Bug, run_check
from course_lib.transformer.bugs.computation import COMPUTATION_BUGS
from course_lib.transformer.bugs.mask_shapes import MASK_SHAPE_BUGS
from course_lib.transformer.bugs.setup import SETUP_BUGS

BUGS = [*COMPUTATION_BUGS, *MASK_SHAPE_BUGS]

__all__ = ["BUGS", "SETUP_BUGS", "Bug", "run_check"]

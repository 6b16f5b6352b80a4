"""Shared trait checks for widgets that step through the states of one of several records.

The parser-state explorer (Chapter 4: a sentence's transitions) and the subword explorer
(Chapter 9: a word's merges) both show record ``index`` at state ``step``, where each record
holds a list of ``"steps"``. :class:`SteppedRecords` checks both traits and sends ``step``
back to 0 when another record is chosen.
"""

from __future__ import annotations

import traitlets as t

from course_lib.widgets.base import CourseWidget, in_range

__all__ = ["SteppedRecords"]


class SteppedRecords(CourseWidget):
    """A :class:`CourseWidget` with ``index`` (the record) and ``step`` (its state).

    Subclasses name the trait that holds the records in ``records_trait``.
    """

    records_trait = "records"
    index = t.Int(0, help="the record on show").tag(sync=True)
    step = t.Int(0, help="the state on show (0 = initial)").tag(sync=True)

    def _records(self) -> list:
        return getattr(self, self.records_trait)

    @t.validate("index")
    def _check_index(self, proposal: dict) -> int:
        return in_range("index", proposal["value"], len(self._records()))

    @t.observe("index")
    def _reset_step(self, change: dict) -> None:
        self.step = 0

    @t.validate("step")
    def _check_step(self, proposal: dict) -> int:
        value, records = int(proposal["value"]), self._records()
        if records:
            last = len(records[self.index]["steps"]) - 1
            if not 0 <= value <= last:
                raise t.TraitError(f"step must be in 0..{last}; got {value}")
        return value

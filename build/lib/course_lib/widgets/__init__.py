"""Interactive figures of the course: one anywidget class and one JS module per family.

``base`` holds the pattern (precomputed traits, ``COURSE_WIDGET_MODE`` = live | html, a
static matplotlib figure beside each widget); each family adds one module here and one
``js/<name>.js``. Models never import this package.

The names below are imported from their modules on first use (PEP 562), so that a chapter
that uses one widget loads that widget's module only: ``from course_lib.widgets import
HeadView`` imports ``course_lib.widgets.head_view`` and nothing of the attention or speech
widgets (and tools/book_cache.py, which reads ``_EXPORTS``, rebuilds only that chapter when
another widget changes).
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "AttentionExplorer": "attention",
    "attention_candidate": "attention",
    "attention_example": "attention",
    "CourseWidget": "base",
    "show": "base",
    "to_jsonable": "base",
    "widget_mode": "base",
    "CTCAlignmentExplorer": "ctc_alignment",
    "EmbeddingExplorer": "embedding_explorer",
    "GradientFlowExplorer": "gradient_flow",
    "mlp_gradient_flow_explorer": "gradient_flow",
    "HeadView": "head_view",
    "HeatmapExplorer": "heatmap",
    "PositionalExplorer": "positional",
    "SubwordExplorer": "subwords",
    "TriggerStreamView": "trigger_stream",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))

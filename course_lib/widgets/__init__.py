"""Interactive figures of the course: one anywidget class and one JS module per family.

``base`` holds the pattern (precomputed traits, ``COURSE_WIDGET_MODE`` = live | html, a
static matplotlib figure beside each widget); each family adds one module here and one
``js/<name>.js``. Models never import this package.
"""

from course_lib.widgets.attention import (
    AttentionExplorer,
    attention_candidate,
    attention_example,
)
from course_lib.widgets.base import CourseWidget, show, to_jsonable, widget_mode
from course_lib.widgets.embedding_explorer import EmbeddingExplorer
from course_lib.widgets.gradient_flow import (
    GradientFlowExplorer,
    mlp_gradient_flow_explorer,
)
from course_lib.widgets.head_view import HeadView
from course_lib.widgets.heatmap import HeatmapExplorer
from course_lib.widgets.positional import PositionalExplorer
from course_lib.widgets.subwords import SubwordExplorer

__all__ = [
    "AttentionExplorer",
    "CourseWidget",
    "EmbeddingExplorer",
    "GradientFlowExplorer",
    "HeadView",
    "HeatmapExplorer",
    "PositionalExplorer",
    "SubwordExplorer",
    "attention_candidate",
    "attention_example",
    "mlp_gradient_flow_explorer",
    "show",
    "to_jsonable",
    "widget_mode",
]

"""course_lib: the models of *Neural NLP from scratch*, one module per lecture topic.

Only the names every notebook uses are re-exported here; everything else is imported from its
topic module (``from course_lib.embeddings import word2vec``). Importing the package needs neither
a GPU nor a network connection.
"""

from course_lib import figure_record as _figure_record
from course_lib.runtime import device, pick, profile, run_seed, seed_everything

# The book build: every figure a chapter displays also carries its record (figure_record.py).
_figure_record.install()

__all__ = ["device", "pick", "profile", "run_seed", "seed_everything"]
__version__ = "0.1.0"

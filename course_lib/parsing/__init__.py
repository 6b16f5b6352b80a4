"""Dependency parsing (Chapter 4, CS224N lecture 4): arc-standard transitions, the static oracle,
Chen & Manning's (2014) features and neural classifier, batched greedy parsing, UAS/LAS.

Modules, in the order of the lecture: ``transitions`` (configurations, SHIFT / LEFT-ARC /
RIGHT-ARC), ``projectivity`` (well-formed and projective trees), ``oracle`` (the gold
transitions), ``state`` (many configurations as arrays), ``features`` (the 48 features),
``model`` (the classifier), ``batch_parser`` (greedy parsing), ``evaluation`` (UAS, LAS),
``train`` (oracle examples and ``train_parser``); ``cues`` measures what informs an
attachment (distance, intervening material, bilexical affinities) on a treebank; ``draw``
draws a tree as arcs (the static figure).
"""

from course_lib.parsing.batch_parser import (
    Parse,
    ParseStep,
    as_words_and_tags,
    parse,
    parse_one,
)
from course_lib.parsing.cues import (
    Recurrence,
    arc_lengths,
    gold_arcs,
    interior_share,
    pair_counts,
    pair_recurrence,
    random_arcs,
    seen_pair_share,
)
from course_lib.parsing.evaluation import (
    ERROR_TYPES,
    LECTURE_EVAL_EXAMPLE,
    AttachmentScores,
    ErrorTypeRow,
    RelationRow,
    attachment_scores,
    error_types,
    head_hits,
    relation_errors,
)
from course_lib.parsing.features import (
    FEATURE_NAMES,
    ParserVocabs,
    batch_features,
    build_vocabs,
    config_features,
)
from course_lib.parsing.model import ChenManningParser, ParserConfig
from course_lib.parsing.oracle import (
    NonProjectiveError,
    oracle_next,
    oracle_trace,
    static_oracle,
)
from course_lib.parsing.projectivity import (
    check_tree,
    count_nonprojective,
    crossing_arcs,
    is_projective,
)
from course_lib.parsing.state import BatchConfigurations
from course_lib.parsing.train import (
    TrainedParser,
    load_word_vectors,
    oracle_examples,
    oracle_parse,
    train_parser,
)
from course_lib.parsing.transitions import (
    LECTURE_EXAMPLE,
    SHIFT,
    Arc,
    Configuration,
    IllegalTransitionError,
    Transition,
    TransitionSystem,
    replay,
    trace_table,
)

__all__ = [
    "ERROR_TYPES",
    "FEATURE_NAMES",
    "LECTURE_EVAL_EXAMPLE",
    "LECTURE_EXAMPLE",
    "SHIFT",
    "Arc",
    "AttachmentScores",
    "BatchConfigurations",
    "ChenManningParser",
    "Configuration",
    "ErrorTypeRow",
    "IllegalTransitionError",
    "NonProjectiveError",
    "Parse",
    "ParseStep",
    "ParserConfig",
    "ParserVocabs",
    "Recurrence",
    "RelationRow",
    "TrainedParser",
    "Transition",
    "TransitionSystem",
    "arc_lengths",
    "as_words_and_tags",
    "attachment_scores",
    "batch_features",
    "build_vocabs",
    "check_tree",
    "config_features",
    "count_nonprojective",
    "crossing_arcs",
    "error_types",
    "gold_arcs",
    "head_hits",
    "interior_share",
    "is_projective",
    "load_word_vectors",
    "oracle_examples",
    "oracle_next",
    "oracle_parse",
    "oracle_trace",
    "pair_counts",
    "pair_recurrence",
    "parse",
    "parse_one",
    "random_arcs",
    "relation_errors",
    "replay",
    "seen_pair_share",
    "static_oracle",
    "trace_table",
    "train_parser",
]

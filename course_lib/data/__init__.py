"""The course's data: pinned registry, verified fetching, readers and vocabularies.

``fetch(dataset, file)`` returns a verified local file (offline mirrors in
``COURSE_LIB_DATA`` first, then the cache ``COURSE_LIB_CACHE``, then the pinned URL);
the readers build on it (``ewt``, ``wikitext_tokens``, ``translation_pairs``, ...).
``python -m course_lib.data list | fetch NAME | fetch-all | verify`` prepares a machine.
Importing this package reads no file and opens no connection.

Note: ``course_lib.data.fetch`` is the function; the module of the same name is
``importlib.import_module("course_lib.data.fetch")`` (tests pass ``opener=`` instead).
"""

from course_lib.data.errors import (
    CacheWriteError,
    ChecksumError,
    ConlluError,
    CorruptFileError,
    DataError,
    DataUnavailableError,
    IntegrityError,
    TruncatedFileError,
    UnknownNameError,
)
from course_lib.data.eval_sets import analogy_questions, similarity_pairs
from course_lib.data.fetch import fetch, open_text
from course_lib.data.fsdd import Recording, fsdd, read_wav, speaker_split
from course_lib.data.pairs import translation_pairs
from course_lib.data.registry import DATASETS, Dataset, FileSpec, get_dataset
from course_lib.data.sst2 import read_sst2, sst2
from course_lib.data.treebank import Sentence, ewt, read_conllu
from course_lib.data.vocab import UnknownTokenError, Vocab
from course_lib.data.wikitext import wikitext_lines, wikitext_sentences, wikitext_tokens

__all__ = [
    "DATASETS",
    "CacheWriteError",
    "ChecksumError",
    "ConlluError",
    "CorruptFileError",
    "DataError",
    "DataUnavailableError",
    "Dataset",
    "FileSpec",
    "IntegrityError",
    "Recording",
    "Sentence",
    "TruncatedFileError",
    "UnknownNameError",
    "UnknownTokenError",
    "Vocab",
    "analogy_questions",
    "ewt",
    "fetch",
    "fsdd",
    "get_dataset",
    "open_text",
    "read_conllu",
    "read_sst2",
    "read_wav",
    "similarity_pairs",
    "speaker_split",
    "sst2",
    "translation_pairs",
    "wikitext_lines",
    "wikitext_sentences",
    "wikitext_tokens",
]

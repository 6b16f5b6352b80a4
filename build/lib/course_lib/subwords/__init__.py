"""Subword tokenization (CS224N lecture 9): BPE, byte-level BPE, WordPiece. Chapter 9.

pretokenize (text -> words; GPT-2's byte-to-unicode map), bpe (a BPE model: apply merges
in rank order), bpe_naive (training as a learner writes it first: recount every pair
after every merge), bpe_train (Sennrich et al., 2016, with an incremental pair index,
merges identical to HF ``tokenizers``), wordpiece (greedy longest-match-first with ``##``),
wordpiece_train (the likelihood score count(ab)/(count(a)·count(b))), tokenizer (one
``Tokenizer``: train, encode, decode, save, load), measure (the ``<unk>`` problem,
tokens per word, embedding parameters).
"""

from course_lib.subwords.bpe import BPE, UnknownSymbolError
from course_lib.subwords.bpe_naive import merge_pair, train_bpe_naive
from course_lib.subwords.bpe_train import train_bpe
from course_lib.subwords.measure import (
    embedding_parameters,
    tokens_per_word,
    unknown_share,
    word_vocabulary,
)
from course_lib.subwords.pretokenize import (
    PRE_TOKENIZERS,
    bytes_to_unicode,
    pre_tokenize,
    unicode_to_bytes,
    word_counts,
)
from course_lib.subwords.tokenizer import KINDS, Encoding, Tokenizer
from course_lib.subwords.wordpiece import WordPiece
from course_lib.subwords.wordpiece_train import pair_scores, train_wordpiece

__all__ = [
    "BPE",
    "KINDS",
    "PRE_TOKENIZERS",
    "Encoding",
    "Tokenizer",
    "UnknownSymbolError",
    "WordPiece",
    "bytes_to_unicode",
    "embedding_parameters",
    "merge_pair",
    "pair_scores",
    "pre_tokenize",
    "tokens_per_word",
    "train_bpe",
    "train_bpe_naive",
    "train_wordpiece",
    "unicode_to_bytes",
    "unknown_share",
    "word_counts",
    "word_vocabulary",
]

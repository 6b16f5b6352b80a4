"""Pretraining (CS224N lecture 9): objectives, models, fine-tuning, prefix tuning. Chapter 9.

gpt (decoder-only, KV cache, decoded by :mod:`course_lib.decoding`), causal_lm (blocks,
perplexity per token and per word), masked_lm (BERT's 15 % / 80-10-10), encoder (BERT-style
encoder, classification head), span_corruption (T5, its pretraining objective),
label_words (a label written as text by an encoder-decoder), prefix (prefix tuning,
head-only),
induction (does a model copy from its context: the repeated-random-tokens test),
text_to_text ("input -> output" tasks for a LM), word_pieces (one vector per word from its
pieces, a linear probe), distributed (the torchrun-ready loop,
checkpoints), launch (its command line). Built from :mod:`course_lib.transformer`'s layers.
"""

from course_lib.pretraining.causal_lm import (
    LMScore,
    eval_blocks,
    random_blocks,
    score_stream,
)
from course_lib.pretraining.distributed import (
    TrainConfig,
    causal_lm_objective,
    load_checkpoint,
    lr_at,
    pretrain,
    rank_batch,
    save_checkpoint,
    uses_bf16,
)
from course_lib.pretraining.encoder import Encoder, EncoderConfig, SequenceClassifier
from course_lib.pretraining.gpt import GPT, GPTBlock, GPTConfig, GPTOutput, GPTState
from course_lib.pretraining.induction import CopyLosses, copy_losses, repeated_tokens
from course_lib.pretraining.label_words import LabelWords
from course_lib.pretraining.masked_lm import (
    IGNORE,
    MaskedBatch,
    mask_tokens,
    mlm_objective,
)
from course_lib.pretraining.prefix import (
    HeadOnly,
    PrefixTuning,
    freeze,
    prefix_attention,
    trainable_count,
)
from course_lib.pretraining.span_corruption import (
    noise_counts,
    random_spans_noise_mask,
    rebuild,
    span_batch,
    span_corrupt,
    span_corruption_objective,
)
from course_lib.pretraining.tagging import (
    PieceTagger,
    fine_tune_tagger,
    first_pieces,
    tagging_batches,
)
from course_lib.pretraining.text_to_text import (
    PairBatch,
    TuneHistory,
    continuations,
    encode_pairs,
    exact_match,
    pair_loss,
    pair_nll,
    tune,
)
from course_lib.pretraining.word_pieces import (
    POOLINGS,
    linear_probe,
    pool_pieces,
    word_features,
    words_to_pieces,
)

__all__ = [
    "GPT",
    "IGNORE",
    "CopyLosses",
    "Encoder",
    "EncoderConfig",
    "GPTBlock",
    "GPTConfig",
    "GPTOutput",
    "GPTState",
    "HeadOnly",
    "LMScore",
    "LabelWords",
    "POOLINGS",
    "MaskedBatch",
    "PairBatch",
    "PrefixTuning",
    "PieceTagger",
    "SequenceClassifier",
    "TrainConfig",
    "TuneHistory",
    "causal_lm_objective",
    "continuations",
    "copy_losses",
    "encode_pairs",
    "eval_blocks",
    "exact_match",
    "freeze",
    "fine_tune_tagger",
    "first_pieces",
    "linear_probe",
    "load_checkpoint",
    "lr_at",
    "mask_tokens",
    "mlm_objective",
    "noise_counts",
    "pair_loss",
    "pair_nll",
    "prefix_attention",
    "pool_pieces",
    "pretrain",
    "random_blocks",
    "rank_batch",
    "random_spans_noise_mask",
    "rebuild",
    "repeated_tokens",
    "save_checkpoint",
    "uses_bf16",
    "score_stream",
    "span_batch",
    "span_corrupt",
    "span_corruption_objective",
    "trainable_count",
    "tune",
    "tagging_batches",
    "word_features",
    "words_to_pieces",
]

"""Sequence-to-sequence models and machine translation: Chapter 7 (CS224N lecture 7).

``bleu`` (BLEU, sacrebleu-equal), ``ibm_model1`` (alignment by EM), ``noisy_channel``
(argmax_e P(f|e) P(e) with Model 1 and a bigram LM, by beam search), ``pooling``
(Nadaraya-Watson attention pooling), ``attention`` (scoring functions, masked softmax),
``attention_cost`` (time and memory as T_x · T_y grows), ``model`` (BiLSTM encoder,
attentive LSTM decoder, fixed-context variant; decoded by :mod:`course_lib.decoding`),
``scoring`` (log P(y|x) and attention of given outputs),
``train`` (the loss, the loop), ``error_analysis`` (search or model error? quality by source
length), ``corpus`` (Tatoeba and Multi30k splits). Batching and translation are shared with
Chapter 8 in :mod:`course_lib.seq2seq.translation`.
"""

from course_lib.seq2seq.attention import (
    AdditiveScore,
    DotProductScore,
    LowRankMultiplicativeScore,
    MultiplicativeScore,
    attend,
    make_scorer,
    masked_softmax,
)
from course_lib.seq2seq.attention_cost import AttentionCost, attention_cost
from course_lib.seq2seq.bleu import (
    BleuStats,
    bleu_stats,
    compare_bleu,
    corpus_bleu,
    sacrebleu_corpus_bleu,
    sentence_bleu,
)
from course_lib.seq2seq.corpus import (
    TranslationSplits,
    multi30k_splits,
    reverse_references,
    tatoeba_splits,
)
from course_lib.seq2seq.error_analysis import (
    BeamError,
    beam_error_analysis,
    bleu_by_source_length,
    summarise_errors,
)
from course_lib.seq2seq.ibm_model1 import IBMModel1, train_ibm_model1
from course_lib.seq2seq.model import DecodeState, Encoded, Seq2Seq, Seq2SeqConfig
from course_lib.seq2seq.noisy_channel import (
    NoisyChannel,
    Scored,
    lm_log_prob,
    train_sentence_lm,
)
from course_lib.seq2seq.pooling import (
    ParametricKernelRegression,
    average_pooling,
    kernel_regression_data,
    nadaraya_watson,
    train_kernel_width,
)
from course_lib.seq2seq.scoring import (
    attention_entropy,
    sequence_log_prob,
    teacher_forced,
    token_log_probs,
)
from course_lib.seq2seq.train import seq2seq_loss, train_seq2seq

__all__ = [
    "AdditiveScore",
    "AttentionCost",
    "BeamError",
    "BleuStats",
    "DecodeState",
    "DotProductScore",
    "Encoded",
    "IBMModel1",
    "LowRankMultiplicativeScore",
    "MultiplicativeScore",
    "NoisyChannel",
    "ParametricKernelRegression",
    "Scored",
    "Seq2Seq",
    "Seq2SeqConfig",
    "TranslationSplits",
    "attend",
    "attention_cost",
    "attention_entropy",
    "average_pooling",
    "beam_error_analysis",
    "bleu_by_source_length",
    "bleu_stats",
    "compare_bleu",
    "corpus_bleu",
    "kernel_regression_data",
    "lm_log_prob",
    "make_scorer",
    "masked_softmax",
    "multi30k_splits",
    "nadaraya_watson",
    "reverse_references",
    "sacrebleu_corpus_bleu",
    "sentence_bleu",
    "seq2seq_loss",
    "sequence_log_prob",
    "summarise_errors",
    "teacher_forced",
    "token_log_probs",
    "tatoeba_splits",
    "train_ibm_model1",
    "train_kernel_width",
    "train_sentence_lm",
    "train_seq2seq",
]

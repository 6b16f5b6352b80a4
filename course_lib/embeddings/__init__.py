"""Word vectors (Chapter 1, CS224N lecture 1): one-hot, counts + SVD, word2vec, evaluation.

One module per concept: ``onehot`` (one-hot vectors, embedding lookup), ``cooccurrence``
(window counts, PPMI, truncated SVD), ``word2vec`` (skip-gram and CBOW with the full softmax),
``word2vec_train`` (their training loop) and ``evaluation`` (cosine neighbours, analogies,
similarity correlation).
"""

from course_lib.data.batching import batches  # Chapter 1 imports it here
from course_lib.embeddings.cooccurrence import (
    clip_counts,
    cooccurrence_matrix,
    explained_variance,
    log_counts,
    ppmi,
    truncated_svd,
)
from course_lib.embeddings.evaluation import (
    OutOfVocabularyError,
    analogy,
    cosine_similarity_matrix,
    evaluate_analogies,
    evaluate_similarity,
    nearest_neighbours,
)
from course_lib.embeddings.onehot import embedding_lookup, one_hot, one_hot_similarity
from course_lib.embeddings.word2vec import (
    CBOW,
    SkipGram,
    hand_sgd_step,
    naive_softmax_loss,
    naive_softmax_loss_and_gradient,
    skipgram_pairs,
    word_windows,
)
from course_lib.embeddings.word2vec_train import train_word2vec

__all__ = [
    "CBOW",
    "OutOfVocabularyError",
    "SkipGram",
    "analogy",
    "batches",
    "clip_counts",
    "cooccurrence_matrix",
    "cosine_similarity_matrix",
    "embedding_lookup",
    "evaluate_analogies",
    "evaluate_similarity",
    "explained_variance",
    "hand_sgd_step",
    "log_counts",
    "naive_softmax_loss",
    "naive_softmax_loss_and_gradient",
    "nearest_neighbours",
    "one_hot",
    "one_hot_similarity",
    "ppmi",
    "skipgram_pairs",
    "train_word2vec",
    "truncated_svd",
    "word_windows",
]

# Chapter 2 (CS224N lecture 2): negative sampling with subsampling and reduced windows, a fast
# batched SGNS trainer, how many negatives (sweep_negatives), hierarchical softmax, GloVe,
# debiasing.
from course_lib.embeddings.debias import (  # noqa: E402
    bias_direction,
    debias,
    definitional_pca,
    equalize,
    neutralize,
    projections,
)
from course_lib.embeddings.glove import (  # noqa: E402
    GloVe,
    GloVeRun,
    cooccurrence_ratios,
    glove_loss,
    glove_loss_and_gradient,
    glove_weight,
    train_glove,
)
from course_lib.embeddings.hierarchical_softmax import (  # noqa: E402
    HuffmanTree,
    SkipGramHS,
    all_word_probabilities,
    average_code_length,
    hs_log_probability,
    hs_loss,
    hs_loss_and_gradient,
    huffman_tree,
)
from course_lib.embeddings.negative_sampling import (  # noqa: E402
    CBOWNS,
    NoiseSampler,
    SkipGramNS,
    check_negatives,
    neg_sampling_loss,
    noise_distribution,
    sgns_loss_and_gradient,
    sgns_sgd_step,
)
from course_lib.embeddings.negatives_sweep import sweep_negatives  # noqa: E402
from course_lib.embeddings.sgns_train import (  # noqa: E402
    SGNSConfig,
    SGNSRun,
    encode_corpus,
    train_sgns,
    vocab_counts,
)
from course_lib.embeddings.subsampling import (  # noqa: E402
    Windows,
    dynamic_windows,
    keep_probabilities,
    reduced_windows,
    sgns_pairs,
    subsample,
)

__all__ += [
    "CBOWNS",
    "GloVe",
    "GloVeRun",
    "HuffmanTree",
    "NoiseSampler",
    "SGNSConfig",
    "SGNSRun",
    "SkipGramHS",
    "SkipGramNS",
    "Windows",
    "all_word_probabilities",
    "average_code_length",
    "bias_direction",
    "check_negatives",
    "cooccurrence_ratios",
    "debias",
    "definitional_pca",
    "dynamic_windows",
    "encode_corpus",
    "equalize",
    "glove_loss",
    "glove_loss_and_gradient",
    "glove_weight",
    "hs_log_probability",
    "hs_loss",
    "hs_loss_and_gradient",
    "huffman_tree",
    "keep_probabilities",
    "neg_sampling_loss",
    "neutralize",
    "noise_distribution",
    "projections",
    "reduced_windows",
    "sgns_loss_and_gradient",
    "sgns_pairs",
    "sgns_sgd_step",
    "subsample",
    "sweep_negatives",
    "train_glove",
    "train_sgns",
    "vocab_counts",
]

"""Word vectors (Chapter 1, CS224N lecture 1): one-hot, counts + SVD, word2vec, evaluation.

One module per concept: ``onehot`` (one-hot vectors, embedding lookup), ``cooccurrence``
(window counts, PPMI, truncated SVD), ``word2vec`` (skip-gram and CBOW with the full softmax) and
``evaluation`` (cosine neighbours, analogies, similarity correlation).
"""

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
    batches,
    cbow_examples,
    hand_sgd_step,
    naive_softmax_loss,
    naive_softmax_loss_and_gradient,
    skipgram_pairs,
    train_word2vec,
)

__all__ = [
    "CBOW",
    "OutOfVocabularyError",
    "SkipGram",
    "analogy",
    "batches",
    "cbow_examples",
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
]

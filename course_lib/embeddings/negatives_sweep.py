r"""How many negatives per positive pair: quality against cost, measured. Chapter 2.

Mikolov, Sutskever, Chen, Corrado and Dean (2013, §2.2) advise K = 5-20 negatives per
positive pair for small corpora and K = 2-5 for large ones. ``sweep_negatives`` trains the
same SGNS model (``train_sgns``) once per K, from the same seed, so every run sees the same
subsampled corpus, the same reduced windows and so the same positive (window word, centre)
pairs; only the K noise words drawn for each pair change. Each run is scored by the Spearman
correlation of its cosines with human similarity ratings (``evaluate_similarity``) and, if
given, by its 3CosAdd analogy accuracy (``evaluate_analogies``); its cost is the measured
training time per positive pair. The SGNS loss of one pair with K negatives is

    J = -log σ(u_oᵀ v_c) - Σ_{k=1..K} log σ(-u_kᵀ v_c),

K + 1 dot products and K + 1 row updates, so the work per pair grows linearly with K.

Shape letters: V vocabulary, D vector width, K negatives.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

from torch import Tensor

from course_lib.embeddings._common import Corpus, Device
from course_lib.embeddings.evaluation import evaluate_analogies, evaluate_similarity
from course_lib.embeddings.negative_sampling import check_negatives
from course_lib.embeddings.sgns_train import SGNSConfig, train_sgns, vocab_counts

__all__ = ["sweep_negatives"]

Rating = tuple[str, str, float]


def _check_ks(ks: Sequence[int], vocab_size: int) -> None:
    if len(ks) == 0:
        raise ValueError("ks is empty: give the numbers of negatives, e.g. (1, 5, 20)")
    for k in ks:
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(
                f"every k in ks must be an int >= 1 (negatives per positive pair), "
                f"got {k!r} in {tuple(ks)}"
            )
        check_negatives(vocab_size, k)  # k < V, else a ValueError that says so


def sweep_negatives(
    sentences: Corpus,
    counts: Tensor,
    vocab: Any,
    ratings: Sequence[Rating],
    questions: Any = None,
    *,
    ks: Sequence[int] = (1, 2, 5, 10, 20),
    config: SGNSConfig | None = None,
    device: Device = None,
) -> list[dict[str, float]]:
    r"""Train SGNS once per number of negatives K and score each run. Chapter 2.

    J = -log σ(u_oᵀv_c) - Σ_{k=1..K} log σ(-u_kᵀv_c) (Mikolov et al., 2013, eq. 4),
    trained by ``train_sgns`` with ``config`` (gensim's defaults) and ``negatives=K``:
    one seed, so the same positive pairs for every K. sentences, counts as for
    ``train_sgns``; ratings: [(word1, word2, rating)] for ``evaluate_similarity``;
    questions: for ``evaluate_analogies`` (None: accuracy nan). Returns one dict per K,
    in the order of ``ks``: k, spearman, analogy, pairs (positive pairs trained),
    seconds (training time) and seconds_per_pair.
    """
    base = config or SGNSConfig()
    _check_ks(ks, vocab_counts(counts).numel())
    results = []
    for k in ks:
        cfg = dataclasses.replace(base, negatives=k)  # only K changes
        run = train_sgns(sentences, counts, cfg, device=device, progress=False)
        pairs = sum(int(e["pairs"]) for e in run.epochs)  # the same for every K
        E = run.model.vectors().cpu()  # (V, D)
        spearman = evaluate_similarity(E, vocab, ratings)["spearman"]
        analogy = math.nan  # no questions: no accuracy
        if questions is not None:
            analogy = evaluate_analogies(E, vocab, questions)["accuracy"]
        row = dict(k=k, spearman=spearman, analogy=analogy, pairs=pairs)
        row.update(seconds=run.seconds, seconds_per_pair=run.seconds / max(pairs, 1))
        results.append(row)
    return results

r"""word2vec with negative sampling (SGNS): noise distribution, loss, gradients, models. Chapter 2.

CS224N lecture 2 ("Word vectors, word senses") and Mikolov, Sutskever, Chen, Corrado and Dean
(2013), "Distributed representations of words and phrases and their compositionality". Instead of
the full softmax over V words (Chapter 1), each (centre c, outside o) pair becomes one logistic
regression against K words drawn from a noise distribution P_n:

    J = -log σ(u_oᵀ v_c) - Σ_{k=1..K} log σ(-u_kᵀ v_c),    u_k ~ P_n(w) ∝ count(w)^{3/4}

(lecture 2; the paper's eq. 4). Raising counts to 3/4 flattens the unigram distribution: rare
words are drawn more often than their frequency, frequent ones less. The hand-derived gradients
(``sgns_loss_and_gradient``), with σ_o = σ(u_oᵀv_c) and σ_k = σ(u_kᵀv_c):

    ∂J/∂v_c = (σ_o - 1) u_o + Σ_k σ_k u_k,   ∂J/∂u_o = (σ_o - 1) v_c,   ∂J/∂u_k = σ_k v_c.

Shape letters: B batch, K negatives, D embedding width, V vocabulary, W window (2W slots).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

from course_lib.embeddings._common import Device, check_positive_int, describe
from course_lib.embeddings.word2vec import CBOW, SkipGram, _reduce
from course_lib.runtime import run_seed

__all__ = [
    "CBOWNS",
    "NoiseSampler",
    "SkipGramNS",
    "check_negatives",
    "neg_sampling_loss",
    "noise_distribution",
    "sgns_loss_and_gradient",
    "sgns_sgd_step",
]


def noise_distribution(counts: Tensor, power: float = 0.75) -> Tensor:
    r"""P_n(w) = count(w)^power / Σ_w' count(w')^power (Mikolov et al., 2013, §2.2). Chapter 2.

    counts: (V,) word counts. ``power=0.75`` is word2vec's; 1 gives the unigram distribution and
    0 the uniform one (words with count 0 keep probability 0 unless power is 0).
    Returns float64 probabilities (V,) that sum to 1.
    """
    counts = torch.as_tensor(counts)
    if counts.dim() != 1 or counts.numel() == 0:
        raise ValueError(
            f"counts must be a 1-D tensor of word counts (V,), got {describe(counts)}"
        )
    counts = counts.double()  # (V,)
    if float(counts.min()) < 0 or not bool(torch.isfinite(counts).all()):
        raise ValueError("counts must be finite and >= 0")
    if not 0 <= power <= 1:
        raise ValueError(f"power must be in [0, 1] (word2vec: 0.75), got {power}")
    weights = counts.pow(power) if power > 0 else torch.ones_like(counts)  # (V,)
    total = weights.sum()
    if total <= 0:
        raise ValueError("counts are all zero: the noise distribution is undefined")
    return weights / total  # (V,)


def check_negatives(vocab_size: int, negatives: int) -> None:
    """Raise ValueError unless 1 <= negatives < vocab_size (a word is never its own negative)."""
    check_positive_int(negatives, "negatives", " (noise words per pair)")
    check_positive_int(vocab_size, "vocab_size")
    if vocab_size <= negatives:
        raise ValueError(
            f"the vocabulary has {vocab_size} words, not more than the {negatives} "
            "negatives per pair: use fewer negatives or a larger vocabulary"
        )


class NoiseSampler:
    r"""Draws negative words from P_n(w) ∝ count(w)^power with Walker's alias method. Chapter 2.

    Vose's (1991) construction splits the V probabilities into V equal columns, each holding
    word i with probability ``accept[i]`` and one other word ``alias[i]`` otherwise. A draw is
    then O(1) whatever V: a uniform column i and a uniform u; the word is i if u < accept[i],
    else alias[i]. Exact up to float64 rounding (word2vec's C code uses a 10⁸-entry unigram
    table, gensim a binary search in the cumulative table). Draws are made in big batches with
    the sampler's own seeded generator, on ``device``.
    """

    def __init__(
        self,
        counts: Tensor,
        power: float = 0.75,
        *,
        device: Device = None,
        seed: int = 0,
    ) -> None:
        probs = noise_distribution(counts, power)  # (V,)
        V = probs.numel()
        scaled = (probs * V).tolist()  # column mass of each word, mean 1
        accept, alias = [1.0] * V, list(range(V))
        small = [i for i, q in enumerate(scaled) if q < 1]
        large = [i for i, q in enumerate(scaled) if q >= 1]
        while small and large:  # fill each light column with a heavy word (Vose, 1991)
            i, j = small.pop(), large[-1]
            accept[i], alias[i] = scaled[i], j
            scaled[j] -= 1 - scaled[i]
            if scaled[j] < 1:
                small.append(large.pop())
        dev = torch.device(device) if device is not None else probs.device
        dtype = torch.float32 if dev.type == "mps" else torch.float64  # MPS: no float64
        self.probs = probs.to(dev, dtype)  # (V,)
        self.accept = torch.tensor(accept, dtype=dtype, device=dev)  # (V,)
        self.alias = torch.tensor(alias, dtype=torch.long, device=dev)  # (V,)
        self.generator = torch.Generator(device=dev).manual_seed(run_seed(seed))

    @property
    def vocab_size(self) -> int:
        return self.probs.numel()

    def sample(self, *shape: int) -> Tensor:
        """Word ids drawn i.i.d. from P_n, a LongTensor of the given shape."""
        dev, gen = self.probs.device, self.generator
        column = torch.randint(0, self.vocab_size, shape, generator=gen, device=dev)
        u = torch.rand(shape, generator=gen, device=dev, dtype=self.accept.dtype)
        return torch.where(u < self.accept[column], column, self.alias[column])  # shape

    def negatives(self, positives: Tensor, k: int) -> Tensor:
        """K negatives for each positive id: (...,) -> (..., K), never equal to the positive.

        Draws equal to the positive are redrawn (word2vec skips them instead; gensim too).
        """
        check_negatives(self.vocab_size, k)
        if int((self.probs > 0).sum()) < 2:
            raise ValueError(
                "only one word has a count: no negative can differ from it"
            )
        out = self.sample(*positives.shape, k)  # (..., K)
        clash = out == positives.to(out.device)[..., None]  # (..., K)
        while bool(clash.any()):
            out[clash] = self.sample(int(clash.sum()))  # (n_clash,)
            clash = out == positives.to(out.device)[..., None]  # (..., K)
        return out  # (..., K)


def _check_sgns_inputs(v_c: Tensor, u_o: Tensor, u_neg: Tensor) -> None:
    if not isinstance(v_c, Tensor) or v_c.dim() != 2:
        raise ValueError(
            f"v_c must be 2-D (B, D) (one vector: v_c[None]), got {describe(v_c)}"
        )
    B, D = v_c.shape
    if not isinstance(u_o, Tensor) or u_o.shape != (B, D):
        raise ValueError(f"u_o must be (B, D) = {(B, D)} like v_c, got {describe(u_o)}")
    if not isinstance(u_neg, Tensor) or u_neg.dim() != 3 or u_neg.shape[::2] != (B, D):
        raise ValueError(
            f"u_neg must be (B, K, D) with B = {B}, D = {D} as in v_c, got {describe(u_neg)}"
        )


def neg_sampling_loss(
    v_c: Tensor, u_o: Tensor, u_neg: Tensor, *, reduction: str = "mean"
) -> Tensor:
    r"""J = -log σ(u_oᵀv_c) - Σ_k log σ(-u_kᵀv_c), with autograd (lecture 2). Chapter 2.

    v_c: (B, D) centre (or CBOW mean-context) vectors; u_o: (B, D) outside vectors; u_neg:
    (B, K, D) the K negatives' outside vectors. Uses log σ, stable for large scores.
    Returns a scalar, or (B,) for ``reduction="none"``.
    """
    _check_sgns_inputs(v_c, u_o, u_neg)
    pos = (u_o * v_c).sum(dim=1)  # (B,)  u_oᵀ v_c
    neg = torch.bmm(u_neg, v_c[:, :, None]).squeeze(2)  # (B, K)  u_kᵀ v_c
    losses = -F.logsigmoid(pos) - F.logsigmoid(-neg).sum(dim=1)  # (B,)
    return _reduce(losses, reduction)


def sgns_loss_and_gradient(
    v_c: Tensor, u_o: Tensor, u_neg: Tensor, *, reduction: str = "mean"
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    r"""The SGNS loss and its gradients derived by hand, no autograd (lecture 2). Ch. 2.

    ∂J/∂v_c = (σ_o - 1) u_o + Σ_k σ_k u_k, ∂J/∂u_o = (σ_o - 1) v_c, ∂J/∂u_k = σ_k v_c,
    with σ_o = σ(u_oᵀv_c) and σ_k = σ(u_kᵀv_c). Shapes as in ``neg_sampling_loss``.
    Returns the loss (scalar, (B,) for ``"none"``), grad_v_c (B, D), grad_u_o (B, D) and
    grad_u_neg (B, K, D), row b being example b's gradient, divided by B for ``"mean"``.
    """
    _check_sgns_inputs(v_c, u_o, u_neg)
    with torch.no_grad():
        pos = (u_o * v_c).sum(dim=1)  # (B,)
        neg = torch.bmm(u_neg, v_c[:, :, None]).squeeze(2)  # (B, K)
        losses = -F.logsigmoid(pos) - F.logsigmoid(-neg).sum(dim=1)  # (B,)
        g_pos = torch.sigmoid(pos) - 1  # (B,)  ∂J/∂(u_oᵀv_c) = σ_o - 1
        g_neg = torch.sigmoid(neg)  # (B, K)  ∂J/∂(u_kᵀv_c) = σ_k
        if reduction == "mean":
            g_pos, g_neg = g_pos / v_c.size(0), g_neg / v_c.size(0)  # (B,), (B, K)
        g_v_neg = torch.bmm(g_neg[:, None, :], u_neg).squeeze(1)  # (B, D)  Σ_k σ_k u_k
        grad_v_c = g_pos[:, None] * u_o + g_v_neg  # (B, D)
        grad_u_o = g_pos[:, None] * v_c  # (B, D)
        grad_u_neg = g_neg[:, :, None] * v_c[:, None, :]  # (B, K, D)
        return _reduce(losses, reduction), grad_v_c, grad_u_o, grad_u_neg


class SkipGramNS(SkipGram):
    r"""Skip-gram with negative sampling: centre c predicts o against K noise words. Chapter 2.

    The tables and initialisation of Chapter 1's ``SkipGram`` (V: centre vectors v_w, U: outside
    vectors u_w, both (vocab_size, dim)); ``logits`` still gives the full-softmax scores. The loss
    is ``neg_sampling_loss``; the model draws nothing itself (pass the negatives, e.g. from
    ``NoiseSampler.negatives``), so a batch fixes the loss.
    """

    def forward(self, centre: Tensor, outside: Tensor, negatives: Tensor) -> Tensor:
        """Mean SGNS loss: centre (B,), outside (B,), negatives (B, K) ids -> scalar."""
        self._check_ids(centre, "centre", 1)
        self._check_ids(outside, "outside", 1)
        self._check_ids(negatives, "negatives", 2)
        v_c = self.V[centre]  # (B, D)
        return neg_sampling_loss(v_c, self.U[outside], self.U[negatives])


class CBOWNS(CBOW):
    r"""CBOW with negative sampling: the mean context vector v̂ predicts the centre. Chapter 2.

    J = -log σ(u_cᵀv̂) - Σ_k log σ(-u_kᵀv̂), v̂ the masked mean of the context words' V rows
    (Chapter 1's ``CBOW.context_vector``; Mikolov et al., 2013).
    """

    def forward(  # type: ignore[override]
        self, context: Tensor, mask: Tensor | None, centre: Tensor, negatives: Tensor
    ) -> Tensor:
        """Mean loss: context (B, 2W), mask (B, 2W), centre (B,), negatives (B, K) -> scalar."""
        self._check_ids(centre, "centre", 1)
        self._check_ids(negatives, "negatives", 2)
        v_hat = self.context_vector(context, mask)  # (B, D)
        return neg_sampling_loss(v_hat, self.U[centre], self.U[negatives])


def sgns_sgd_step(
    model: SkipGramNS, centre: Tensor, outside: Tensor, negatives: Tensor, lr: float
) -> Tensor:
    r"""One SGD step on the mean SGNS loss with the hand-derived gradients. Chapter 2.

    Only the rows in the batch change: v_c -= lr ∂J/∂v_c and u_o, u_k -= lr ∂J/∂u via
    ``index_add_`` (repeated words accumulate), the same update as autograd +
    ``torch.optim.SGD``, without a dense (V, D) gradient. Returns the loss before the step.
    """
    if not isinstance(model, SkipGramNS):
        raise TypeError(f"sgns_sgd_step needs a SkipGramNS, got {type(model).__name__}")
    model._check_ids(centre, "centre", 1)
    model._check_ids(outside, "outside", 1)
    model._check_ids(negatives, "negatives", 2)
    with torch.no_grad():
        loss, g_v, g_o, g_neg = sgns_loss_and_gradient(
            model.V[centre], model.U[outside], model.U[negatives]
        )  # (), (B, D), (B, D), (B, K, D)
        model.V.index_add_(0, centre, g_v, alpha=-lr)  # (V, D)
        model.U.index_add_(0, outside, g_o, alpha=-lr)  # (V, D)
        model.U.index_add_(0, negatives.reshape(-1), g_neg.flatten(0, 1), alpha=-lr)
    return loss

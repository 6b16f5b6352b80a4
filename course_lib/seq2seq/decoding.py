r"""Decoding: greedy, and beam search with length normalisation, batched. Chapter 7.

CS224N lecture 7; *Sequence Models* week 3. The model gives P(y | x) = Π_t P(y_t | y_<t, x);
we want ŷ = argmax_y P(y | x). Exhaustive search would score all V^{T_y} sequences of length
T_y, O(V^{T_y}) (exponential in the length, not O(T_y)). Greedy decoding takes the argmax at
each step. Beam search keeps the K best partial hypotheses by log P(y_1..y_t | x) and, as the
lecture's length normalisation, compares finished hypotheses by

    score(y) = log P(y | x) / |y|^α       (|y| counts the <eos> token; α = 0: no normalising)

A hypothesis that emits <eos> is set aside; a sentence is done when K hypotheses are finished
(or at ``max_len``, when the live ones are returned unfinished); the n best are returned.
``beam_search`` runs every sentence and beam as one batch of B·K rows, and drops the rows of
finished sentences as it goes. Shape letters: B sentences, K beam, V vocabulary, S source.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from course_lib.seq2seq.model import Seq2Seq

__all__ = [
    "Hypothesis",
    "beam_search",
    "greedy_decode",
    "normalised_score",
    "sequence_log_prob",
]


@dataclass
class Hypothesis:
    """One output: token ids (no <bos>/<eos>), log P(y|x), its normalised score, and the
    attention weights (|y|, S) of each predicted token (the <eos> row included when finished).
    """

    tokens: list[int]
    log_prob: float
    score: float
    finished: bool
    attention: Tensor | None = None

    @property
    def length(self) -> int:
        """|y|: the predicted tokens, <eos> included when the hypothesis finished."""
        return len(self.tokens) + int(self.finished)


def normalised_score(log_prob: float | Tensor, length: int | Tensor, alpha: float):
    """log P(y|x) / length^α (α = 0: the plain log-probability)."""
    return log_prob / (length**alpha)


def _check(src: Tensor, src_lens: Tensor, max_len: int) -> None:
    if not isinstance(max_len, int) or max_len < 1:
        raise ValueError(
            f"max_len must be a positive int (output tokens); got {max_len!r}"
        )
    if src.dim() != 2 or src.size(0) == 0:
        raise ValueError(
            f"src must be a non-empty (B, S) batch; got {tuple(src.shape)}"
        )
    if src.size(1) == 0 or bool((src_lens < 1).any()):
        raise ValueError(
            "an empty source sentence cannot be translated: every sentence needs a token"
        )


@torch.no_grad()
def greedy_decode(
    model: Seq2Seq, src: Tensor, src_lens: Tensor, max_len: int, *, alpha: float = 0.0
) -> list[Hypothesis]:
    """ŷ_t = argmax P(y_t | ŷ_<t, x) for a batch, until <eos> or ``max_len`` tokens.

    src (B, S), src_lens (B,). Returns B hypotheses.
    """
    _check(src, src_lens, max_len)
    model.eval()
    cfg = model.config
    enc = model.encode(src, src_lens)
    n = src.size(0)
    y = torch.full((n,), cfg.bos_id, dtype=torch.long, device=src.device)  # (B,)
    state, done = enc.state, torch.zeros(n, dtype=torch.bool, device=src.device)
    toks, logps, atts = [], [], []
    for _ in range(max_len):
        logits, state, w = model.decode_step(y, state, enc)  # (B, V)
        logp = logits.log_softmax(-1)  # (B, V)
        y = logp.argmax(-1)  # (B,)
        toks.append(y)
        logps.append(logp.gather(1, y[:, None]).squeeze(1).masked_fill(done, 0.0))
        atts.append(w)
        done = done | (y == cfg.eos_id)
        if bool(done.all()):
            break
    toks_t = torch.stack(toks, 1).tolist()  # (B, T)
    lp = torch.stack(logps, 1).sum(1).tolist()  # (B,)
    att = None if atts[0] is None else torch.stack(atts, 1)  # (B, T, S)
    out = []
    for b in range(n):
        row = toks_t[b]
        finished = cfg.eos_id in row
        tokens = row[: row.index(cfg.eos_id)] if finished else row
        length = len(tokens) + int(finished)
        a = None if att is None else att[b, :length, : int(src_lens[b])].cpu()
        out.append(
            Hypothesis(
                tokens, lp[b], normalised_score(lp[b], length, alpha), finished, a
            )
        )
    return out


@torch.no_grad()
def beam_search(
    model: Seq2Seq,
    src: Tensor,
    src_lens: Tensor,
    beam_size: int = 5,
    max_len: int = 50,
    *,
    alpha: float = 0.7,
    n_best: int = 1,
) -> list[list[Hypothesis]]:
    """Batched beam search: every sentence's n best hypotheses, best first. Chapter 7.

    src (B, S), src_lens (B,). Scores are log P(y|x) / |y|^α. With ``beam_size=1`` it is
    greedy decoding. Returns B lists of ``n_best`` (≤ beam_size) hypotheses.
    """
    if not isinstance(beam_size, int) or beam_size < 1:
        raise ValueError(f"beam_size must be an int >= 1; got {beam_size!r}")
    if not isinstance(n_best, int) or not 1 <= n_best <= beam_size:
        raise ValueError(
            f"n_best must be an int in 1..beam_size={beam_size}; got {n_best!r}"
        )
    _check(src, src_lens, max_len)
    model.eval()
    cfg, k, dev = model.config, beam_size, src.device
    n = src.size(0)
    enc = model.encode(src, src_lens).select(
        torch.arange(n, device=dev).repeat_interleave(k)
    )  # rows b*K + j
    state = enc.state
    y = torch.full((n * k,), cfg.bos_id, dtype=torch.long, device=dev)  # (B*K,)
    scores = torch.full(
        (n, k), float("-inf"), dtype=torch.float64, device=dev
    )  # (B, K)
    scores[:, 0] = 0.0  # all beams start equal: expand only the first
    tokens = torch.empty(n * k, 0, dtype=torch.long, device=dev)  # (B*K, t)
    has_att = model.scorer is not None
    atts = torch.empty(n * k, 0, src.size(1), dtype=enc.memory.dtype, device=dev)
    # atts: (B*K, t, S)
    active = list(range(n))  # the sentence of each group of K rows
    finished: list[list[Hypothesis]] = [[] for _ in range(n)]
    lengths = src_lens.tolist()
    for t in range(max_len):
        logits, state, w = model.decode_step(y, state, enc)  # (nb*K, V)
        nb, v = len(active), logits.size(-1)
        logp = logits.log_softmax(-1).double()  # (nb*K, V)
        cand = scores[:, :, None] + logp.view(nb, k, v)  # (nb, K, V)
        top_s, top_i = cand.view(nb, k * v).topk(min(2 * k, k * v), dim=1)  # (nb, 2K)
        beam_i, tok_i = top_i // v, top_i % v  # (nb, 2K) each
        parent = torch.arange(nb, device=dev)[:, None] * k + beam_i  # (nb, 2K) rows
        is_eos = tok_i == cfg.eos_id  # (nb, 2K)
        rank_ok = torch.arange(top_s.size(1), device=dev)[None, :] < k  # (1, 2K)
        ended = (is_eos & rank_ok & torch.isfinite(top_s)).nonzero().tolist()
        for r, j in ended:
            row, b = int(parent[r, j]), active[r]
            a = (
                torch.cat([atts[row], w[row][None]])[:, : lengths[b]]
                if has_att
                else None
            )
            lp = float(top_s[r, j])
            finished[b].append(
                Hypothesis(tokens[row].tolist(), lp, normalised_score(lp, t + 1, alpha),
                           True, None if a is None else a.cpu())
            )  # fmt: skip
        alive_s = top_s.masked_fill(is_eos, float("-inf"))  # (nb, 2K)
        keep = alive_s.topk(k, dim=1).indices  # (nb, K)
        scores = alive_s.gather(1, keep)  # (nb, K)
        rows = parent.gather(1, keep).view(-1)  # (nb*K,)
        y = tok_i.gather(1, keep).view(-1)  # (nb*K,)
        tokens = torch.cat([tokens[rows], y[:, None]], dim=1)  # (nb*K, t+1)
        if has_att:
            atts = torch.cat([atts[rows], w[rows][:, None]], dim=1)  # (nb*K, t+1, S)
        state = (state[0][rows], state[1][rows])  # (nb*K, H) each
        enc = enc.select(rows)
        done = [len(finished[b]) >= k for b in active]
        if any(done):  # drop finished sentences' rows from the batch
            groups = [g for g, d in enumerate(done) if not d]
            if not groups:
                break
            sel = torch.tensor(groups, device=dev)  # (nb',)
            rows = (sel[:, None] * k + torch.arange(k, device=dev)).view(-1)  # (nb'*K,)
            scores, active = scores[sel], [active[g] for g in groups]
            y, tokens, state = y[rows], tokens[rows], (state[0][rows], state[1][rows])
            atts = atts[rows] if has_att else atts
            enc = enc.select(rows)
    else:  # max_len reached: the live hypotheses are returned unfinished
        for g, b in enumerate(active):
            for j in range(k):
                lp = float(scores[g, j])
                if lp == float("-inf"):
                    continue
                row = g * k + j
                a = atts[row][:, : lengths[b]].cpu() if has_att else None
                finished[b].append(
                    Hypothesis(tokens[row].tolist(), lp,
                               normalised_score(lp, max_len, alpha), False, a)
                )  # fmt: skip
    return [sorted(h, key=lambda x: -x.score)[:n_best] for h in finished]


@torch.no_grad()
def sequence_log_prob(
    model: Seq2Seq,
    src: Tensor,
    src_lens: Tensor,
    targets: list[list[int]],
    *,
    finished: list[bool] | None = None,
) -> Tensor:
    """log P(y | x) of given outputs by teacher forcing: (B,) float64.

    targets: B token-id lists (no <bos>/<eos>); ``finished[b]`` (default True) adds the
    <eos> token's log-probability, as a finished hypothesis has it.
    """
    if len(targets) != src.size(0):
        raise ValueError(f"need one target per source: {src.size(0)} vs {len(targets)}")
    cfg = model.config
    finished = [True] * len(targets) if finished is None else finished
    model.eval()
    outs = [
        list(t) + ([cfg.eos_id] if f else [])
        for t, f in zip(targets, finished, strict=True)
    ]
    if any(len(o) == 0 for o in outs):
        raise ValueError("an unfinished target needs at least one token")
    width = max(len(o) for o in outs)
    y_out = torch.full(
        (len(outs), width), cfg.pad_id, dtype=torch.long, device=src.device
    )
    for b, o in enumerate(outs):
        y_out[b, : len(o)] = torch.tensor(o, device=src.device)  # (B, T)
    bos = torch.full((len(outs), 1), cfg.bos_id, dtype=torch.long, device=src.device)
    y_in = torch.cat([bos, y_out[:, :-1]], dim=1)  # (B, T)
    logits, _ = model(src, src_lens, y_in)  # (B, T, V)
    logp = (
        logits.log_softmax(-1).double().gather(2, y_out[:, :, None]).squeeze(2)
    )  # (B, T)
    real = (
        torch.arange(width, device=src.device)[None, :]
        < torch.tensor([len(o) for o in outs], device=src.device)[:, None]
    )  # (B, T)
    return (logp * real).sum(1)  # (B,)

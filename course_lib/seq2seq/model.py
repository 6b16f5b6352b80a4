r"""The encoder-decoder: a bidirectional LSTM encoder and an attentive LSTM decoder. Chapter 7.

CS224N lecture 7; Sutskever et al. (2014), Cho et al. (2014), Bahdanau et al. (2015);
*Sequence Models* week 3. The encoder reads the source x_1..x_S into states
h_i = [→h_i; ←h_i]. The decoder starts from s_0 = W_s [→h_S; ←h_1] and at step t

    c_t = Σ_i α_{t,i} h_i,  α_t = softmax_i(score(s_{t-1}, h_i))    (attention)
    s_t = LSTM([E y_{t-1}; c_t], s_{t-1})                                (previous output + context)
    P(y_t | y_<t, x) = softmax(W_o tanh(W_c [s_t; c_t]))

Without attention (``attention=None``) c_t is the same fixed vector at every step, the final
encoder states [→h_S; ←h_1]: the whole sentence squeezed into one vector (the bottleneck).
The encoder's width per direction is ``d_encoder`` (default: the decoder's ``d_hidden``); the
dot score sᵀh_i needs h_i as wide as s, i.e. ``d_encoder = d_hidden / 2``.
Shape letters: B batch, S source length, T target length, E embedding, H decoder hidden,
H_e encoder hidden per direction, C = 2·H_e the width of h_i and c_t, V vocabulary.
The LSTMs are ``torch.nn``'s (Chapter 6 builds the same cells from scratch).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from course_lib.decoding.protocol import select_rows
from course_lib.seq2seq.attention import attend, make_scorer

__all__ = ["DecodeState", "Encoded", "Seq2Seq", "Seq2SeqConfig"]


@dataclass(frozen=True)
class Seq2SeqConfig:
    """The whole model's sizes. ``attention``: dot | multiplicative | low_rank | additive,
    or None for the fixed-context encoder-decoder. ``d_attn``: additive width or low rank.
    ``d_encoder``: the encoder LSTM's width per direction (None: ``d_hidden``), so the
    encoder states h_i have 2·d_encoder entries; the dot score needs 2·d_encoder = d_hidden."""

    src_vocab_size: int
    tgt_vocab_size: int
    d_emb: int = 64
    d_hidden: int = 128
    attention: str | None = "additive"
    d_attn: int = 64
    dropout: float = 0.1
    pad_id: int = 0
    bos_id: int = 2
    eos_id: int = 3
    d_encoder: int | None = None


class Encoded(NamedTuple):
    """What the encoder hands the decoder, one row per sentence (or per beam)."""

    memory: Tensor  # (B, S, C) the encoder states h_i
    projected: Tensor | None  # (B, S, *) the scorer's key projection of h_i
    mask: Tensor  # (B, S) True on real source positions
    summary: Tensor  # (B, C) [→h_S; ←h_1]
    state: tuple[Tensor, Tensor]  # (B, H) each: the decoder's initial (s_0, m_0)


class DecodeState(NamedTuple):
    """The decoder's state while decoding: (s, m) and the encoder's output, one row each."""

    hidden: tuple[Tensor, Tensor]  # (N, H) each: (s_t, m_t)
    enc: Encoded


class Seq2Seq(nn.Module):
    """BiLSTM encoder + LSTM decoder fed the previous output and the context. Chapter 7.

    ``encode`` once, then ``decode_step`` token by token, or ``forward`` with teacher forcing
    for training. ``forward`` returns the logits and the attention weights; nothing is
    cached on the module. ``start``, ``step`` and ``reorder`` are the decoding protocol
    of :mod:`course_lib.decoding` (greedy, beam search, sampling).
    """

    def __init__(
        self, config: Seq2SeqConfig, *, device: torch.device | str | None = None
    ) -> None:
        super().__init__()
        if not isinstance(config, Seq2SeqConfig):
            raise TypeError(
                f"config must be a Seq2SeqConfig; got {type(config).__name__}"
            )
        c = self.config = config
        h = c.d_hidden
        if c.d_encoder is not None and (
            not isinstance(c.d_encoder, int) or c.d_encoder < 1
        ):
            raise ValueError(f"d_encoder must be a positive int; got {c.d_encoder!r}")
        he = h if c.d_encoder is None else c.d_encoder  # encoder width per direction
        dev = dict(device=device)
        pad = dict(padding_idx=c.pad_id, **dev)
        self.src_embed = nn.Embedding(c.src_vocab_size, c.d_emb, **pad)
        self.tgt_embed = nn.Embedding(c.tgt_vocab_size, c.d_emb, **pad)
        self.encoder = nn.LSTM(c.d_emb, he, batch_first=True, bidirectional=True, **dev)
        self.init_h = nn.Linear(2 * he, h, **dev)
        self.init_c = nn.Linear(2 * he, h, **dev)
        self.scorer = (
            None
            if c.attention is None
            else make_scorer(c.attention, h, 2 * he, d_attn=c.d_attn, **dev)
        )
        self.decoder = nn.LSTMCell(c.d_emb + 2 * he, h, **dev)
        self.combine = nn.Linear(h + 2 * he, h, bias=False, **dev)
        self.out = nn.Linear(h, c.tgt_vocab_size, **dev)
        self.drop = nn.Dropout(c.dropout)

    def encode(self, src: Tensor, src_lens: Tensor) -> Encoded:
        """src (B, S) token ids padded with ``pad_id``; src_lens (B,) real lengths ≥ 1."""
        if src.dim() != 2 or src_lens.shape != src.shape[:1]:
            raise ValueError(
                f"src must be (B, S) and src_lens (B,); got {tuple(src.shape)}, "
                f"{tuple(src_lens.shape)}"
            )
        if src.size(1) == 0 or bool((src_lens < 1).any()):
            raise ValueError(
                "every source sentence needs at least one token; got lengths "
                f"{src_lens.tolist()[:10]}"
            )
        if int(src_lens.max()) > src.size(1):
            raise ValueError(f"src_lens exceed the padded length {src.size(1)}")
        return self.encode_vectors(self.drop(self.src_embed(src)), src_lens)

    def encode_vectors(self, emb: Tensor, src_lens: Tensor) -> Encoded:
        """The BiLSTM over input vectors emb (B, S, E): word embeddings here, a speech
        front end's outputs in Chapter 10's attention recogniser."""
        S = emb.size(1)
        packed = pack_padded_sequence(
            emb, src_lens.cpu(), batch_first=True, enforce_sorted=False
        )
        out, (h_n, c_n) = self.encoder(packed)  # h_n, c_n: (2, B, H_e)
        memory, _ = pad_packed_sequence(out, batch_first=True, total_length=S)
        # memory: (B, S, C)
        mask = torch.arange(S, device=emb.device) < src_lens.to(emb.device)[:, None]
        # mask: (B, S)
        summary = torch.cat([h_n[0], h_n[1]], dim=-1)  # (B, C) [→h_S; ←h_1]
        cells = torch.cat([c_n[0], c_n[1]], dim=-1)  # (B, C)
        state = (self.init_h(summary), self.init_c(cells))  # (B, H) each
        projected = None if self.scorer is None else self.scorer.project_keys(memory)
        return Encoded(memory, projected, mask, summary, state)

    def decode_step(
        self, y_prev: Tensor, state: tuple[Tensor, Tensor], enc: Encoded
    ) -> tuple[Tensor, tuple[Tensor, Tensor], Tensor | None]:
        """One decoder step: y_prev (B,) ids, state (s, m) (B, H) each.

        Returns the logits (B, V), the new state, and the attention weights (B, S)
        (None without attention).
        """
        s_prev, _ = state
        if self.scorer is None:
            context, weights = enc.summary, None  # (B, C): the same every step
        else:
            context, weights = attend(
                self.scorer, s_prev, enc.memory, enc.mask, enc.projected
            )  # (B, C), (B, S)
        x = torch.cat([self.drop(self.tgt_embed(y_prev)), context], dim=-1)  # (B, E+C)
        s, m = self.decoder(x, state)  # (B, H) each
        o = torch.tanh(self.combine(torch.cat([s, context], dim=-1)))  # (B, H)
        return self.out(self.drop(o)), (s, m), weights  # (B, V)

    def start(self, src: Tensor, src_lens: Tensor) -> DecodeState:
        """Encode src (B, S) once: the state before <bos> for :mod:`course_lib.decoding`."""
        enc = self.encode(src, src_lens)
        return DecodeState(enc.state, enc)

    def step(self, tokens: Tensor, state: DecodeState) -> tuple[Tensor, DecodeState]:
        """Decoding protocol: tokens (N,) -> log P(y_t | y_<t, x) (N, V) and the new state."""
        logits, hidden, _ = self.decode_step(tokens, state.hidden, state.enc)  # (N, V)
        return logits.log_softmax(-1), DecodeState(hidden, state.enc)

    def reorder(self, state: DecodeState, rows: Tensor) -> DecodeState:
        """Decoding protocol: keep, repeat or drop rows (N',) of the state."""
        return select_rows(state, rows)

    def forward(
        self, src: Tensor, src_lens: Tensor, tgt_in: Tensor
    ) -> tuple[Tensor, Tensor | None]:
        """Teacher forcing: tgt_in (B, T) = <bos> y_1 .. y_{T-1}.

        Returns the logits (B, T, V) and the attention weights (B, T, S) (None without).
        """
        enc = self.encode(src, src_lens)
        state, logits, weights = enc.state, [], []
        for t in range(tgt_in.size(1)):
            step_logits, state, w = self.decode_step(tgt_in[:, t], state, enc)
            logits.append(step_logits)  # (B, V)
            weights.append(w)
        all_logits = torch.stack(logits, dim=1)  # (B, T, V)
        all_weights = None if self.scorer is None else torch.stack(weights, dim=1)
        return all_logits, all_weights  # (B, T, V), (B, T, S)

    def n_parameters(self) -> int:
        """The number of trainable parameters."""
        return sum(p.numel() for p in self.parameters() if p.requires_grad)

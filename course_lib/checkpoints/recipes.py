"""What a checkpoint is trained from: the chapter's own model, data and code. Chapter 9.

A *recipe* names everything a run needs (the tokenizer's text and size, the text it
pretrains on, the model's sizes, the schedule) and :func:`train_mlm_encoder` runs it with
the chapter's functions: :meth:`~course_lib.subwords.Tokenizer.train` (byte-level BPE),
:func:`~course_lib.pretraining.eval_blocks`, the :class:`~course_lib.pretraining.Encoder`,
:func:`~course_lib.pretraining.mlm_objective` (BERT's 15 % / 80-10-10) and
:func:`~course_lib.pretraining.pretrain` (AdamW, warm-up, cosine). The chapter calls the
same function in the profiles that train (smoke, gpu) and loads the committed result in
the one that cannot (cpu); ``python -m course_lib.checkpoints train NAME`` makes it.

The draws do not depend on ``COURSE_SEED``: a checkpoint is one fixed run (its ``seed``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import torch
from torch import Tensor

from course_lib.data import sst2, wikitext_lines
from course_lib.pretraining.causal_lm import eval_blocks
from course_lib.pretraining.distributed import TrainConfig, pretrain
from course_lib.pretraining.encoder import Encoder, EncoderConfig
from course_lib.pretraining.masked_lm import mlm_objective
from course_lib.subwords import Tokenizer

__all__ = [
    "RECIPES",
    "SPECIALS",
    "MLMRecipe",
    "Trained",
    "chapter_tokenizer",
    "cls_blocks",
    "pretraining_text",
    "text_blocks",
    "train_mlm_encoder",
]

SPECIALS = ("<pad>", "<eos>", "[CLS]", "[MASK]")  # ids 0-3 in every tokenizer here


@dataclass(frozen=True)
class MLMRecipe:
    """A masked-LM encoder: its tokenizer, its text, its sizes and its schedule.

    ``None`` for a count of lines means all of them. The tokenizer reads the first
    ``tok_lines`` non-empty WikiText-2 train lines and the first ``tok_sst`` SST-2 train
    sentences (their text only); pretraining reads ``text_lines`` and ``text_sst`` of them.
    """

    tok_lines: int | None = 4000
    tok_sst: int | None = 15000
    vocab: int = 4000
    text_lines: int | None = None
    text_sst: int | None = None
    d_model: int = 128
    n_heads: int = 4
    d_ff: int = 512
    n_layers: int = 2
    max_len: int = 64
    dropout: float = 0.1
    steps: int = 8000
    batch: int = 64
    lr: float = 1e-3
    warmup: int = 500
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("vocab", "steps", "batch", "warmup", "max_len"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an int >= 1; got {value!r}")
        for name in ("tok_lines", "tok_sst", "text_lines", "text_sst"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 0):
                raise ValueError(
                    f"{name} must be None (all) or an int >= 0; got {value!r}"
                )
        if not self.lr > 0:
            raise ValueError(f"lr must be > 0; got {self.lr!r}")

    def encoder_config(self, vocab_size: int) -> EncoderConfig:
        """The encoder's sizes for a tokenizer of ``vocab_size`` pieces."""
        sizes = ("d_model", "n_heads", "d_ff", "n_layers", "max_len", "dropout")
        return EncoderConfig(
            vocab_size=vocab_size, pad_id=0, **{k: getattr(self, k) for k in sizes}
        )

    def train_config(self, *, save_state: bool = False) -> TrainConfig:
        """AdamW at ``lr`` with a linear warm-up, then the cosine (``pretrain``'s); a log
        line every twentieth of the run, and there a saved state with ``save_state``."""
        every = max(1, self.steps // 20)
        return TrainConfig(
            self.steps,
            self.batch,
            self.lr,
            self.warmup,
            seed=self.seed,
            log_every=every,
            checkpoint_every=every if save_state else 0,
        )


# The checkpoints the course makes, by name: the encoder of Chapter 9's fine-tuning, and the
# same run for twice the steps (its schedule stretched to them)
RECIPES: dict[str, MLMRecipe] = {
    "mlm_encoder": MLMRecipe(),
    "mlm_encoder_long": MLMRecipe(steps=16_000),
}


class Trained(NamedTuple):
    """A finished run: the encoder, its tokenizer, every step's loss, the seconds spent."""

    encoder: Encoder
    tokenizer: Tokenizer
    losses: list[float]
    seconds: float


def pretraining_text(lines: int | None, sst: int | None) -> list[str]:
    """The first ``lines`` non-empty WikiText-2 train lines, then the first ``sst`` SST-2
    train sentences, each with a leading space as the byte-level tokenizer expects."""
    wiki = [line for line in wikitext_lines("train") if line.strip()][:lines]
    return wiki + [" " + text for _, text in sst2("train")][:sst]


def chapter_tokenizer(recipe: MLMRecipe) -> Tokenizer:
    """Byte-level BPE of ``recipe.vocab`` pieces with the :data:`SPECIALS` first."""
    return Tokenizer.train(
        pretraining_text(recipe.tok_lines, recipe.tok_sst),
        kind="byte_bpe",
        vocab_size=recipe.vocab,
        special_tokens=list(SPECIALS),
    )


def cls_blocks(stream: Tensor, max_len: int, cls_id: int) -> Tensor:
    """Blocks (n, T = ``max_len``) of a token stream, each [CLS] then T - 1 tokens."""
    raw = eval_blocks(stream, max_len - 1)  # (n, T - 1)
    cls_column = torch.full((raw.size(0), 1), cls_id, dtype=raw.dtype)  # (n, 1)
    return torch.cat([cls_column, raw], 1)  # (n, T)


def text_blocks(recipe: MLMRecipe, tok: Tokenizer) -> Tensor:
    """The recipe's pretraining text as blocks (n, T = ``max_len``): every line's pieces
    then <eos>, one stream, cut into [CLS] and T - 1 pieces (:func:`cls_blocks`)."""
    _check_specials(tok.vocab[: len(SPECIALS)])
    eos, cls = tok.special_id("<eos>"), tok.special_id("[CLS]")
    text = pretraining_text(recipe.text_lines, recipe.text_sst)
    stream = torch.tensor([i for line in text for i in tok.encode(line).ids + [eos]])
    return cls_blocks(stream, recipe.max_len, cls)  # (n, T)


def train_mlm_encoder(
    recipe: MLMRecipe,
    *,
    tokenizer: Tokenizer | None = None,
    device: torch.device | str | None = None,
    state: str | None = None,
    resume: bool = False,
    until: int | None = None,
    log: Callable[[str], None] | None = print,
) -> Trained:
    """Run ``recipe``: train (or take) its tokenizer, cut its text into [CLS] blocks,
    pretrain an encoder with the masked-LM objective. ``state``: a file the loop saves
    its full state to every twentieth of the run, so that ``resume`` continues it;
    ``until``: stop after that many of the recipe's steps (its schedule unchanged)."""
    tok = tokenizer if tokenizer is not None else chapter_tokenizer(recipe)
    blocks = text_blocks(recipe, tok)  # (n, T)
    torch.manual_seed(recipe.seed)
    encoder = Encoder(recipe.encoder_config(tok.vocab_size), device=device)
    objective = mlm_objective(
        vocab_size=tok.vocab_size,
        mask_id=tok.special_id("[MASK]"),
        special_ids=range(len(SPECIALS)),
    )
    cfg = recipe.train_config(save_state=state is not None)
    start = time.perf_counter()
    run = dict(checkpoint=state, resume=resume, until=until, device=device, log=log)
    losses = pretrain(encoder, blocks, cfg, objective=objective, **run)
    return Trained(encoder.cpu().eval(), tok, losses, time.perf_counter() - start)


def _check_specials(first: Sequence[str]) -> None:
    if tuple(first) != SPECIALS:
        raise ValueError(
            f"the tokenizer's first pieces must be {SPECIALS}; got {tuple(first)}"
        )

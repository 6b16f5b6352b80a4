"""Chapter 9's gpu profile: a GPT, an MLM encoder and a T5-like model pretrained by
``pretrain``; SST-2 classifiers, NSP and fine-tuning by ``train_classifier``; POS probes
(``linear_probe``); date and review tuning (``tune``); the launcher's and checkpoint demos."""

from __future__ import annotations

from functools import cache

import torch

from course_lib import data
from course_lib.data.batching import shuffled_batches
from course_lib.pretraining import POOLINGS, words_to_pieces
from course_lib.pretraining.next_sentence import nsp_examples
from course_lib.subwords import Tokenizer
from gpu_plans.sizes import (
    ewt_words,
    kept,
    labelled_batch_count,
    sst2_items,
    sst2_words,
    wikitext_line_count,
    wikitext_line_words,
)

SPECIALS = ["<pad>", "<eos>", "[CLS]", "[MASK]"]  # d216d8f8's special pieces
DDP_STEPS = 6  # ch09-57: launch(["--steps", "6", ...]) in the kernel, torchrun apart
RUN_STEPS, UNTIL = 10, 5  # 8668dcdf: run_cfg's steps, and the interrupted run's until
NSP, PROBE = "b118ea5561624da68c537baed56e602f", "8763a12b2bbd4a93a75aff182afb95dc"


@cache
def _tokenizer(tok_lines: int | None, sst_text: int | None, vocab: int) -> Tokenizer:
    """d216d8f8's byte-level BPE: the first non-blank WikiText-2 lines, SST-2's reviews."""
    wiki = [l for l in data.wikitext_lines("train") if l.strip()][:tok_lines]
    sst = [" " + t for _, t in data.sst2("train")][:sst_text]
    return Tokenizer.train(
        wiki + sst, kind="byte_bpe", vocab_size=vocab, special_tokens=SPECIALS
    )


def _tok(cfg: dict) -> Tokenizer:
    return _tokenizer(cfg["tok_lines"], cfg["sst_text"], cfg["vocab"])


def _classifier(n: int, size: int, epochs: int, max_steps: int | None) -> int:
    """``train_classifier``'s steps: ``epochs`` passes, stopped at ``max_steps``."""
    total = epochs * labelled_batch_count(n, size)
    return total if max_steps is None else min(total, max_steps)


def _sst(cfg: dict) -> int:
    """ch09-42's ``sst_train``: the first ``sst_train`` SST-2 training pairs."""
    return kept(sst2_items("train"), cfg["sst_train"])


def _fine_tune(cfg: dict, frac: float) -> int:
    """19ee67b5's ``fine_tune`` (and the T5 loop): the subset, 32 a batch, ``ft_*``."""
    n = kept(_sst(cfg), max(64, round(frac * _sst(cfg))))
    return _classifier(n, 32, cfg["ft_epochs"], cfg["ft_steps"])


def _nsp_pairs(cfg: dict) -> int:
    """b118ea55's ``nsp_train``: the last ``nsp.lines`` non-blank lines' pairs."""
    lines = [l for l in data.wikitext_lines("train") if l.strip()]
    lines = lines[-(cfg["nsp"]["lines"] or 0) :]
    ids = [_tok(cfg).encode(line).ids for line in lines]
    return len(nsp_examples(ids, half=(cfg["enc"]["max_len"] - 3) // 2, seed=0))


def _probes(cfg: dict) -> int:
    """``linear_probe``'s steps for two encoders x the poolings: ``pieces`` epochs of 512
    words a batch, the EWT training words ``words_to_pieces`` keeps (``tagged_features``)."""
    tok, sentences = _tok(cfg), data.ewt("train")[: cfg["pieces"]["train"]]
    _, _, kept = words_to_pieces(
        tok, [s.words for s in sentences], cls_id=tok.special_id("[CLS]"),
        max_len=cfg["enc"]["max_len"],
    )  # fmt: skip
    n = sum(len(sentences[i].upos) for i in kept)
    per_epoch = shuffled_batches(
        torch.zeros(n, 0), torch.zeros(n), 512, torch.Generator()
    )
    return 2 * len(POOLINGS) * cfg["pieces"]["epochs"] * len(per_epoch)


def steps(cfg: dict) -> dict[str, int]:
    nsp, lstm, n_sst = cfg["nsp"], cfg["lstm"], _sst(cfg)
    return {
        "fd9de881": cfg["gpt_steps"],  # pretrain: the GPT, gpt_steps
        "ch09-35": cfg["mlm_steps"],  # pretrain: the MLM encoder, mlm_steps
        # train_classifier: the NSP head, 32 pairs a batch, nsp epochs up to nsp steps
        NSP: _classifier(_nsp_pairs(cfg), 32, nsp["epochs"], nsp["steps"]),
        # train_classifier: averaged vectors (avg epochs), then the BiLSTM (lstm's);
        # here and below, a list: a loop each, in the order they run, their costs apart
        "4875f7c4": [
            cfg["avg"]["epochs"] * labelled_batch_count(n_sst, 64),
            _classifier(n_sst, 64, lstm["epochs"], lstm["steps"]),
        ],
        # fine_tune: each fraction's subset, from the pretrained encoder and from scratch
        "ch09-48": sum(2 * _fine_tune(cfg, f) for f in cfg["fractions"]),
        # pretrain: the WikiText-only encoder (mlm_steps), fine_tune on two fractions
        "ch09-wiki-run": [cfg["mlm_steps"]]
        + [_fine_tune(cfg, f) for f in cfg["fractions"][:2]],
        # pretrain: span corruption (mlm_steps); LabelWords on 10 %, scratch and pretrained
        "ch09-t5-run": [cfg["mlm_steps"]] + [_fine_tune(cfg, 0.1)] * 2,
        PROBE: _probes(cfg),  # linear_probe: two encoders x the poolings
        "1a3c42f8": [cfg["tune_steps"]] * 3,  # tune: full, prefix and head-only
        "ch09-plm-run": [cfg["prefix_lm"]["steps"]] * 2,  # tune: prefix and full
        "ch09-57": DDP_STEPS,  # launch's pretrain in the kernel
        # pretrain: uninterrupted, stopped at UNTIL, resumed from UNTIL to the end
        "8668dcdf": RUN_STEPS + UNTIL + (RUN_STEPS - UNTIL),
    }


def _wiki_words(lines: int | None) -> int:
    """Words of the first ``lines`` non-blank WikiText-2 training lines."""
    return wikitext_line_words("train", lines, nonempty=True)


def work(cfg: dict) -> dict[str, float]:
    tok_words = _wiki_words(cfg["tok_lines"]) + sst2_words("train", cfg["sst_text"])
    mlm_words = _wiki_words(cfg["mlm_lines"]) + sst2_words("train", cfg["sst_text"])
    n_test = kept(wikitext_line_count("test"), cfg["test_lines"])
    all_train = wikitext_line_words("train", None) + wikitext_line_count("train")
    kn_train = kept(all_train, cfg["kn_tokens"])
    n_nb = wikitext_line_count("train", nonempty=True)
    nsp_first = n_nb - kept(n_nb, cfg["nsp"]["lines"])  # NSP reads the last lines
    nsp_words = (
        _wiki_words(None)
        - _wiki_words(nsp_first)
        + wikitext_line_words("valid", cfg["nsp"]["dev"], nonempty=True)
    )
    sentences = (cfg["pieces"][k] for k in ("train", "dev"))
    return {
        # Tokenizer.train: byte-level BPE over tok_text's words
        "d216d8f8": tok_words,
        # Tokenizer.train: byte-level BPE and WordPiece at each size, over tok_text
        "d5f8cb40": 2 * len(cfg["sizes"]) * tok_words,
        # encode_lines: the GPT's training lines, before its steps
        "fd9de881": wikitext_line_words("train", cfg["gpt_lines"]),
        # score_stream on the test lines; Kneser-Ney counts kn_tokens, scores the test
        "ch09-23": kn_train + wikitext_line_words("test", cfg["test_lines"]) + n_test,
        # encode_lines: the mixed corpus, before the MLM steps
        "ch09-35": mlm_words,
        # encoding the NSP lines (train and dev), before the steps
        NSP: nsp_words,
        # Vocab.build over the SST-2 training slice
        "ch09-42": _sst(cfg),
        # encoding WikiText-2 lines until the mixed corpus's blocks are matched
        "ch09-wiki-run": min(mlm_words, _wiki_words(None)),
        # tagged_features: both encoders over the EWT train and dev sentences' words
        PROBE: 2 * sum(ewt_words(s, n) for s, n in zip(("train", "dev"), sentences)),
        # prefix_attention: one prompt at a time, each test date, fresh and trained
        "ch09-54": 2 * cfg["dates_test"],
    }

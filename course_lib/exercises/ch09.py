"""Chapter 9 exercises (Pretraining): BPE merges, WordPiece splitting, T5's noise
counts, BERT's 80/10/10 corruption, attention with a prefix; the chapter's questions.

References: ``course_lib.subwords`` (``BPE.encode_word``, ``WordPiece.split``),
``course_lib.pretraining.span_corruption.noise_counts``, the rule of
``course_lib.pretraining.masked_lm.mask_tokens`` on given draws (``bert_corrupt``,
tested equal to it in ``tests/test_pretraining_masked_lm.py``) and
``course_lib.transformer.attention.scaled_dot_product_attention`` over the prefix's and
the tokens' keys (the mask of ``GPT.features``).
"""

from __future__ import annotations

import torch

from course_lib.exercises.core import Case, Exercise, Mistake, register
from course_lib.exercises.quiz import Question, register_questions
from course_lib.pretraining.masked_lm import IGNORE
from course_lib.pretraining.span_corruption import noise_counts
from course_lib.subwords.bpe import BPE
from course_lib.subwords.wordpiece import WordPiece
from course_lib.transformer.attention import scaled_dot_product_attention

_MERGES = [
    tuple(m.split())
    for m in "e r, l o, lo w, n e, w er, ne w, s t, e st, low est, o w".split(", ")
]


def _bpe_pieces(word, merges):
    alphabet = sorted(set(word) | {c for a, b in merges for c in a + b})
    vocab = tuple(dict.fromkeys([*alphabet, *(a + b for a, b in merges)]))
    model = BPE(vocab, tuple(map(tuple, merges)))
    return [vocab[i] for i in model.encode_word(word)]


def _bpe_cases(gen):
    words = ["lower", "newest", "lowest", "newer", "slower", "owner", "wow"]
    cases = [Case((w, _MERGES), label=f"word {w!r}") for w in words]
    letters = "elnorstw"
    for i in range(3):
        n = 3 + int(torch.randint(5, (1,), generator=gen))
        picks = torch.randint(len(letters), (n,), generator=gen).tolist()
        word = "".join(letters[j] for j in picks)
        cases.append(Case((word, _MERGES), label=f"random {i}"))
    return cases


def _bpe_ignoring_rank(word, merges):
    pieces, known = list(word), {tuple(m) for m in merges}
    while True:
        i = next(
            (i for i in range(len(pieces) - 1) if (pieces[i], pieces[i + 1]) in known),
            None,
        )
        if i is None:
            return pieces
        pieces[i : i + 2] = [pieces[i] + pieces[i + 1]]


def _bpe_reversed(word, merges):
    return _bpe_pieces(word, list(merges)[::-1])


_WP_VOCAB = (
    "un u ##a ##aff ##able ##ab ##le ##n ##b a aff play ##ing ##s p ##l ##ay ##i ##g ##f ##e"
).split()


def _wordpiece(word, vocab):
    return WordPiece((*vocab, "[UNK]")).split(word)


def _wordpiece_cases(gen):
    words = ["unaffable", "playing", "plays", "affable", "unable", "unzip", "ua"]
    return [Case((w, _WP_VOCAB), label=f"word {w!r}") for w in words]


def _wordpiece_with(word, vocab, *, prefix, longest, keep_partial):
    pieces, start, known = [], 0, set(vocab)
    while start < len(word):
        ends = (
            range(len(word), start, -1) if longest else range(start + 1, len(word) + 1)
        )
        for end in ends:
            piece = word[start:end] if start == 0 else prefix + word[start:end]
            if piece in known:
                break
        else:
            return [*pieces, "[UNK]"] if keep_partial else ["[UNK]"]
        pieces.append(piece)
        start = end
    return pieces


def _truncated(length, density, mean_span):
    noise = min(max(int(length * density), 1), length - 1)
    return noise, max(int(noise / mean_span), 1)


def _no_minimum(length, density, mean_span):
    noise = min(round(length * density), length - 1)
    return noise, max(round(noise / mean_span), 1)


register(
    Exercise(
        "ch09.bpe_encode",
        "bpe_encode(word: str, merges: list[(str, str)]) -> list[str]",
        _bpe_pieces,
        _bpe_cases,
        "Start from the characters; repeatedly merge the adjacent pair whose merge has the "
        "LOWEST rank (earliest in the list), leftmost on ties, until no learnt merge applies.",
        (
            Mistake(
                "the leftmost mergeable pair is merged, whatever its rank",
                _bpe_ignoring_rank,
            ),
            Mistake("the merges are applied latest first", _bpe_reversed),
        ),
    ),
    Exercise(
        "ch09.wordpiece_split",
        "wordpiece_split(word: str, vocab: list[str]) -> list[str]",
        _wordpiece,
        _wordpiece_cases,
        "Left to right, take the LONGEST vocabulary piece starting here (with '##' unless it "
        "starts the word); if none matches, the whole word is ['[UNK]'].",
        (
            Mistake(
                "the shortest piece is taken first",
                lambda w, v: _wordpiece_with(
                    w, v, prefix="##", longest=False, keep_partial=False
                ),
            ),
            Mistake(
                "continuation pieces are looked up without '##'",
                lambda w, v: _wordpiece_with(
                    w, v, prefix="", longest=True, keep_partial=False
                ),
            ),
            Mistake(
                "the pieces found before the failure are kept ([UNK] only for the rest)",
                lambda w, v: _wordpiece_with(
                    w, v, prefix="##", longest=True, keep_partial=True
                ),
            ),
        ),
    ),
    Exercise(
        "ch09.noise_counts",
        "noise_counts(length: int, noise_density: float, mean_span: float) -> (int, int)",
        noise_counts,
        lambda gen: [
            Case(
                args, label=f"length {args[0]}, density {args[1]}, mean span {args[2]}"
            )
            for args in [
                (512, 0.15, 3.0),
                (10, 0.15, 3.0),
                (3, 0.15, 3.0),
                (100, 0.5, 2.0),
                (37, 0.15, 3.0),
                (2, 0.9, 1.0),
            ]
        ],
        "num_noise = round(length × density), clamped to [1, length − 1]; "
        "num_spans = max(round(num_noise / mean_span), 1).",
        (
            Mistake("int() truncates instead of rounding", _truncated),
            Mistake("no minimum of one noise token", _no_minimum),
        ),
    ),
)


def bert_corrupt(
    tokens, u, r, replacement, mask_id, *, unchanged=True, label="selected"
):
    """BERT's corruption on given draws (Devlin et al., 2019, §3.1): a position is selected
    where u < 0.15; a selected one becomes ``mask_id`` where r < 0.8, ``replacement`` where
    0.8 <= r < 0.9, and stays otherwise; labels are the original ids where selected, IGNORE
    elsewhere. tokens, u, r, replacement: (B, T). The keywords give the mistakes."""
    selected = u < 0.15  # (B, T)
    masked = selected & (r < 0.8)  # (B, T)
    randomised = selected & (r >= 0.8) & ((r < 0.9) if unchanged else True)  # (B, T)
    inputs = torch.where(masked, torch.full_like(tokens, mask_id), tokens)  # (B, T)
    inputs = torch.where(randomised, replacement, inputs)  # (B, T)
    keep = {"selected": selected, "masked": masked, "all": torch.ones_like(selected)}
    labels = torch.where(keep[label], tokens, torch.full_like(tokens, IGNORE))  # (B, T)
    return inputs, labels


def _corrupt_cases(gen):
    def draws(shape):
        tokens = torch.randint(5, 60, shape, generator=gen)
        replacement = torch.randint(5, 60, shape, generator=gen)
        return tokens, replacement

    tokens, replacement = draws((1, 8))
    r = torch.tensor([[0.05, 0.5, 0.79, 0.8, 0.85, 0.9, 0.95, 0.3]])
    cases = [
        Case(
            (tokens, torch.zeros(1, 8), r, replacement, 4), label="edge: all selected"
        ),
        Case((tokens, torch.full((1, 8), 0.5), r, replacement, 4), label="edge: none"),
    ]
    for i in range(3):
        tokens, replacement = draws((4, 25))
        u, r = torch.rand(4, 25, generator=gen), torch.rand(4, 25, generator=gen)
        cases.append(Case((tokens, u, r, replacement, 4), label=f"random {i}"))
    return cases


def prefix_attention_output(q, k, v, prefix_k, prefix_v, *, shift=True, causal=True):
    """One head with a prefix: softmax(q [K_p; K]ᵀ / √d_k) [V_p; V], every prefix key
    visible and the T real keys causal. q, k, v: (T, d); prefix_k, prefix_v: (P, d).
    The keywords give the mistakes (a mask not shifted by P, no mask)."""
    T, P = q.size(0), prefix_k.size(0)
    keys, values = torch.cat([prefix_k, k]), torch.cat([prefix_v, v])  # (P + T, d)
    mask = torch.ones(T, P + T, dtype=torch.bool).tril(P if shift else 0)  # (T, P + T)
    return scaled_dot_product_attention(q, keys, values, mask if causal else None)[0]


def _prefix_two_softmaxes(q, k, v, prefix_k, prefix_v):
    causal = torch.ones(q.size(0), k.size(0), dtype=torch.bool).tril()
    own = scaled_dot_product_attention(q, k, v, causal)[0]
    return own + scaled_dot_product_attention(q, prefix_k, prefix_v)[0]


def _prefix_cases(gen):
    cases = []
    for T, P, label in [
        (1, 3, "edge: one token"),
        (5, 3, "random 0"),
        (6, 1, "random 1"),
    ]:
        q, k, v = (torch.randn(T, 4, generator=gen, dtype=torch.float64) for _ in "qkv")
        pk, pv = (torch.randn(P, 4, generator=gen, dtype=torch.float64) for _ in "kv")
        cases.append(Case((q, k, v, pk, pv), label=f"{label}: T={T}, P={P}"))
    return cases


register(
    Exercise(
        "ch09.bert_corrupt",
        "bert_corrupt(tokens, u, r, replacement, mask_id) -> (inputs, labels), all (B, T)",
        bert_corrupt,
        _corrupt_cases,
        "Select where u < 0.15; of the selected, r < 0.8 -> mask_id, 0.8 <= r < 0.9 -> "
        "replacement, else unchanged. Labels: the original token at every selected "
        "position (also the random and unchanged ones), -100 elsewhere.",
        (
            Mistake(
                "only the [MASK] positions get a label (the random and unchanged ones "
                "are predicted too)",
                lambda *a: bert_corrupt(*a, label="masked"),
            ),
            Mistake(
                "every position gets a label, not only the selected 15 %",
                lambda *a: bert_corrupt(*a, label="all"),
            ),
            Mistake(
                "no unchanged share: every selected token not masked becomes random",
                lambda *a: bert_corrupt(*a, unchanged=False),
            ),
        ),
    ),
    Exercise(
        "ch09.prefix_attention",
        "prefix_attention(q, k, v, prefix_k, prefix_v) -> (T, d); q, k, v (T, d), "
        "prefix (P, d)",
        prefix_attention_output,
        _prefix_cases,
        "Put the P prefix keys and values before the T real ones; token i sees every "
        "prefix key and the real keys 0..i (mask of shape (T, P + T), tril(diagonal=P)); "
        "one softmax over all of them, divided by sqrt(d).",
        (
            Mistake(
                "the causal mask is not shifted by P: early tokens miss prefix keys",
                lambda *a: prefix_attention_output(*a, shift=False),
            ),
            Mistake(
                "no causal mask: the real tokens see the future",
                lambda *a: prefix_attention_output(*a, causal=False),
            ),
            Mistake(
                "two softmaxes, over the prefix and over the tokens, and the outputs "
                "added",
                _prefix_two_softmaxes,
            ),
        ),
    ),
)

register_questions(
    Question(
        "ch09.teacher_forcing",
        "A GPT is pretrained on blocks of text: at every position it reads the true "
        "tokens so far and is scored on the next one. Which statement is right?",
        answer="b",
        explanation="Next-token prediction is the objective; teacher forcing is how it "
        "is trained: the input at every position is the gold prefix, so one pass "
        "scores all T positions at once.",
        choices={
            "a": "next-token prediction and teacher forcing are two pretraining "
            "objectives of decoder-only models",
            "b": "next-token prediction is the objective, and teacher forcing (feeding "
            "the gold prefix) is the way it is trained",
            "c": "teacher forcing lets the model see the next token while it predicts it",
        },
        wrong={
            "a": "There is one loss, −log P(x_{t+1} | x_{≤t}); teacher forcing only says "
            "which x_{≤t} is fed (the true one, not the model's samples).",
            "c": "The causal mask still hides every later token; what is fed is the true "
            "past, not the future.",
        },
    ),
    Question(
        "ch09.labelled_share",
        "BERT selects 15 % of the positions and splits them 80/10/10 into [MASK], a "
        "random token and the token itself. What share of all positions carries a label "
        "in the masked-LM loss?",
        answer=0.15,
        explanation="Every selected position is predicted, whatever it shows the model: "
        "0.12 + 0.015 + 0.015 = 0.15.",
        wrong={
            0.12: "That counts only the [MASK] positions; the random and unchanged "
            "ones are predicted too.",
            0.45: "There is one 15 % selection, split 80/10/10, not three 15 % draws.",
            0.135: "That is the share of the input that differs from the text; the "
            "unchanged positions are predicted as well.",
        },
        rel_tol=1e-3,
    ),
    Question(
        "ch09.prefix_size",
        "Prefix tuning, with a prefix of P = 10, on a GPT with L = 12 layers of width "
        "D = 768, trained in batches of 32: how many numbers does the merged prefix hold?",
        answer=10 * 12 * 2 * 768,
        explanation="P keys and P values of width D in every layer: 10 · 12 · 2 · 768 = "
        "184,320, one table shared by every example of every batch.",
        wrong={
            10 * 12 * 768: "That counts the keys only; each layer also gets P values.",
            32 * 10 * 12 * 2 * 768: "The prefix belongs to the task, not to an "
            "example: the batch reads one table, broadcast over its rows.",
            10 * 2 * 768: "That is one layer's; every layer has its own keys and "
            "values.",
        },
    ),
    Question(
        "ch09.bart",
        "Which describes BART's pretraining?",
        answer="c",
        explanation="BART is an encoder-decoder denoising autoencoder: the encoder reads "
        "text corrupted by text infilling (spans, each replaced by one [MASK]) and "
        "sentence permutation; the decoder writes the whole original text.",
        choices={
            "a": "an encoder alone, predicting masked tokens from both sides",
            "b": "an encoder-decoder whose decoder writes only the hidden spans, each "
            "after its sentinel",
            "c": "an encoder-decoder that reads a corrupted text (spans replaced by one "
            "[MASK] each, sentences shuffled) and writes the original back",
        },
        wrong={
            "a": "That is BERT's masked LM; BART has a decoder and generates.",
            "b": "That is T5's span corruption; BART's decoder rebuilds the whole text, "
            "not only what was hidden.",
        },
    ),
    Question(
        "ch09.prefix_depth",
        "Training the prefix of a frozen two-layer GPT changes the prefix's keys and "
        "values. Which layer's attention among the real tokens (the weights renormalised over "
        "the real tokens) can that change?",
        answer="b",
        explanation="In the first layer the real tokens' queries and keys come from their "
        "embeddings alone, whatever the prefix holds, so their scores among themselves "
        "do not move; the prefix changes that layer's output, hence the second layer's "
        "queries and keys.",
        choices={
            "a": "neither layer's: a prefix never changes how real tokens attend to "
            "each other",
            "b": "the second layer's, not the first's",
            "c": "both, because every softmax now includes the prefix's keys",
        },
        wrong={
            "a": "That holds within a layer, given its input; the first layer's output "
            "moves, and it is the second layer's input.",
            "c": "The prefix takes a share of the first layer's softmax, but scales the "
            "real tokens' weights by a common factor: renormalised, they do not change.",
        },
    ),
)

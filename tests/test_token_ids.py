"""Token ids at the models' boundary (course_lib/transformer/token_ids.py): GPT, the encoder and
the Transformer accept exactly the ids ``nn.Embedding`` accepts, and reject the others with an
error that names the id and the vocabulary, never ``F.embedding``'s "index out of range"."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from course_lib.pretraining import GPT, Encoder, EncoderConfig, GPTConfig
from course_lib.transformer import Transformer, TransformerConfig
from course_lib.transformer.token_ids import check_token_ids

V = 11


def embedding_accepts(tokens: torch.Tensor) -> bool:
    """Whether torch's own lookup takes these ids."""
    try:
        nn.Embedding(V, 2)(tokens)
    except (IndexError, RuntimeError):
        return False
    return True


def models():
    torch.manual_seed(0)
    sizes = dict(d_model=8, n_heads=2, d_ff=16, dropout=0.0)
    gpt = GPT(GPTConfig(vocab_size=V, n_layers=1, max_len=8, **sizes)).eval()
    enc = Encoder(EncoderConfig(vocab_size=V, n_layers=1, max_len=8, **sizes)).eval()
    tr = Transformer(
        TransformerConfig(V, V, n_encoder_layers=1, n_decoder_layers=1, **sizes)
    ).eval()
    return {
        "GPT": lambda t: gpt(t),
        "Encoder": lambda t: enc(t),
        "Transformer.encode": lambda t: tr.encode(t),
        "Transformer.decode": lambda t: tr.decode(t, tr.encode(t.clamp(0, V - 1))),
    }


@pytest.mark.parametrize("name", list(models()))
def test_models_accept_what_the_embedding_accepts_and_reject_the_rest(name):
    run = models()[name]
    gen = torch.Generator().manual_seed(0)
    seen = {True: 0, False: 0}
    for trial in range(60):
        B, T = 1 + trial % 3, 1 + trial % 7
        tokens = torch.randint(-2, V + 2, (B, T), generator=gen)
        if trial % 4 == 0:  # half of the rest stay inside the vocabulary
            tokens = tokens.clamp(0, V - 1)
        accepted = embedding_accepts(tokens)
        seen[accepted] += 1
        if accepted:
            run(tokens)
        else:
            with pytest.raises(ValueError, match=f"outside the vocabulary of {V}"):
                run(tokens)
    assert seen[True] >= 15 and seen[False] >= 15  # both kinds were tried


def test_the_error_names_the_bad_id_and_the_range():
    with pytest.raises(ValueError, match=r"the id 11, outside .* \(ids 0 … 10\)"):
        check_token_ids(torch.tensor([[3, 11]]), V)
    with pytest.raises(ValueError, match="the id -1"):
        check_token_ids(torch.tensor([[-1, 11]]), V, "src")
    with pytest.raises(TypeError, match="integer ids"):
        check_token_ids(torch.ones(1, 2), V)
    with pytest.raises(ValueError, match="empty"):
        check_token_ids(torch.zeros(1, 0, dtype=torch.long), V)
    check_token_ids(torch.tensor([[0, V - 1]]), V)  # both ends of the vocabulary

"""BERT's 80/10/10 masking over every shape, vocabulary, special set and probability (Hypothesis).

What must hold for every input (Devlin et al., 2019, §3.1): special ids are never selected;
labels are the original id exactly where selected and IGNORE elsewhere; [MASK] and random
replacements happen only at selected positions and a random replacement is never special;
every other position keeps its token; probabilities 0 and 1 are exact. An id outside the
vocabulary is a ValueError naming it (it would reach the cross-entropy as a bad label).
"""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib.pretraining.masked_lm import IGNORE, mask_tokens

PROB = st.one_of(st.sampled_from([0.0, 1.0, 0.15, 0.5]), st.floats(0.0, 1.0))


@st.composite
def batches(draw):
    V = draw(st.integers(3, 40))
    B, T = draw(st.integers(1, 4)), draw(st.integers(1, 12))
    specials = draw(
        st.lists(st.integers(0, V - 1), min_size=1, max_size=V - 1, unique=True)
    )
    mask_id = draw(st.sampled_from(specials))
    seed = draw(st.integers(0, 2**16))
    tokens = torch.randint(0, V, (B, T), generator=torch.Generator().manual_seed(seed))
    mask_prob = draw(PROB)
    random_prob = draw(st.floats(0.0, 1.0 - mask_prob))
    return dict(
        tokens=tokens,
        vocab_size=V,
        mask_id=mask_id,
        special_ids=specials,
        select_prob=draw(PROB),
        mask_prob=mask_prob,
        random_prob=random_prob,
        generator=torch.Generator().manual_seed(seed),
    )


@settings(max_examples=300)
@given(batches())
def test_masking_invariants(x):
    out = mask_tokens(**x)
    tokens, special = x["tokens"], torch.tensor(x["special_ids"])
    is_special = torch.isin(tokens, special)
    assert not (out.selected & is_special).any()
    assert torch.equal(out.labels, torch.where(out.selected, tokens, IGNORE))
    assert not ((out.masked | out.randomised) & ~out.selected).any()
    assert not (out.masked & out.randomised).any()
    assert (out.inputs[out.masked] == x["mask_id"]).all()
    assert not torch.isin(out.inputs[out.randomised], special).any()
    kept = ~(out.masked | out.randomised)
    assert torch.equal(out.inputs[kept], tokens[kept])
    if x["select_prob"] == 1.0:
        assert torch.equal(out.selected, ~is_special)
    if x["select_prob"] == 0.0:
        assert not out.selected.any()
    if x["mask_prob"] == 1.0:
        assert torch.equal(out.masked, out.selected)
    assert torch.equal(x["tokens"], tokens)  # the input is not modified


@settings(max_examples=50)
@given(batches(), st.sampled_from([-1, 0]))
def test_an_id_outside_the_vocabulary_is_named(x, where):
    tokens = x["tokens"].clone()
    tokens[0, 0] = -1 if where == -1 else x["vocab_size"]
    with pytest.raises(ValueError, match=f"holds the id {int(tokens[0, 0])}"):
        mask_tokens(**(x | {"tokens": tokens}))

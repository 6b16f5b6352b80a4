"""CTC against ``F.ctc_loss`` over the whole input domain ``nn.CTCLoss`` accepts (Hypothesis).

Drawn: batch, frames, classes (the blank alone included), the blank's index, labels of any
length from empty to what the frames allow and beyond (an impossible label is +inf in both),
input lengths from 0, both target layouts (padded with any padding value; 1-D concatenated),
every reduction, with and without ``zero_infinity``. Loss and gradient must agree in float64.

Where the domains differ, deliberately: torch's CPU kernel accepts a label index outside the
classes, or the blank inside a label, and returns whatever the memory it reads gives; ours
refuses both with a ValueError that names them. Gradients are compared with respect to the
logits behind the log-softmax: torch's CTC backward returns y − γ as the gradient with
respect to its log-probability input (the gradient through a log-softmax, eq. 16), ours −γ
(Graves's eq. 15, the gradient with respect to ln y); through the log-softmax both give y − γ.
"""

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib.speech.ctc import ctc_loss

SETTINGS = settings(max_examples=80)


@st.composite
def ctc_inputs(draw):
    B = draw(st.integers(1, 3))
    T = draw(st.integers(1, 7))
    C = draw(st.integers(1, 5))
    blank = draw(st.integers(0, C - 1))
    labels_of = [c for c in range(C) if c != blank]
    labels = [
        draw(st.lists(st.sampled_from(labels_of), max_size=5)) if labels_of else []
        for _ in range(B)
    ]
    input_lengths = [draw(st.integers(0, T)) for _ in range(B)]
    seed = draw(st.integers(0, 2**16))
    gen = torch.Generator().manual_seed(seed)
    logits = torch.randn(B, T, C, generator=gen, dtype=torch.float64).mul(2)
    if draw(st.booleans()):  # 1-D: the labels concatenated
        targets = torch.tensor([c for label in labels for c in label], dtype=torch.long)
    else:  # padded, with any padding value
        S = max(map(len, labels)) + draw(st.integers(0, 2))
        pad = draw(st.integers(-10, 100))
        targets = torch.full((B, S), pad, dtype=torch.long)
        for b, label in enumerate(labels):
            targets[b, : len(label)] = torch.tensor(label, dtype=torch.long)
    return dict(
        logits=logits,
        targets=targets,
        input_lengths=torch.tensor(input_lengths),
        target_lengths=torch.tensor([len(label) for label in labels]),
        blank=blank,
        reduction=draw(st.sampled_from(["none", "sum", "mean"])),
        zero_infinity=draw(st.booleans()),
    )


def _loss_and_grad(fn, x, batch_first):
    logits = x["logits"].clone().requires_grad_(True)
    log_probs = logits.log_softmax(-1)  # (B, T, C)
    args = {k: v for k, v in x.items() if k != "logits"}
    loss = fn(log_probs if batch_first else log_probs.transpose(0, 1), **args)
    finite = torch.isfinite(loss).all()
    if finite:
        loss.sum().backward()
    return loss.detach(), logits.grad if finite else None


@SETTINGS
@given(ctc_inputs())
def test_ctc_loss_and_gradient_match_torch(x):
    ours, our_grad = _loss_and_grad(ctc_loss, x, batch_first=True)
    theirs, their_grad = _loss_and_grad(F.ctc_loss, x, batch_first=False)
    torch.testing.assert_close(ours, theirs, rtol=1e-9, atol=1e-9)
    if our_grad is not None and their_grad is not None:
        torch.testing.assert_close(
            our_grad.nan_to_num(), their_grad.nan_to_num(), rtol=1e-7, atol=1e-9
        )


@SETTINGS
@given(ctc_inputs(), st.data())
def test_a_label_outside_the_classes_or_the_blank_is_refused(x, data):
    lengths = x["target_lengths"]
    if int(lengths.sum()) == 0:
        return
    C, blank = x["logits"].size(2), x["blank"]
    bad = data.draw(st.sampled_from([blank, C, C + 7, -1]))
    targets = x["targets"].clone()
    if targets.dim() == 1:
        targets[data.draw(st.integers(0, targets.numel() - 1))] = bad
    else:
        b = data.draw(
            st.sampled_from([b for b in range(len(lengths)) if lengths[b] > 0])
        )
        targets[b, data.draw(st.integers(0, int(lengths[b]) - 1))] = bad
    with pytest.raises(ValueError, match="class indices"):
        args = {k: v for k, v in x.items() if k != "logits"} | {"targets": targets}
        ctc_loss(x["logits"].log_softmax(-1), **args)


def test_one_dimensional_targets_must_hold_every_label():
    x = torch.randn(2, 4, 3, dtype=torch.float64).log_softmax(-1)
    with pytest.raises(ValueError, match="sum\\(target_lengths\\) = 3"):
        ctc_loss(x, torch.tensor([1, 2]), [4, 4], [1, 2])

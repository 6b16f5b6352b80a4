"""The chapter's speech models and training helpers: shapes, lengths, a short fit."""

import numpy as np
import pytest
import torch

from course_lib.speech.ctc import ctc_loss
from course_lib.speech.models import (
    CTCRecognizer,
    DigitClassifier,
    TriggerDetector,
    conv_output_lengths,
)
from course_lib.speech.train import (
    featurize,
    length_batches,
    normalise,
    pad_batch,
    spec_augment,
    train_ctc,
    trigger_probabilities,
    windowed_probabilities,
)


def test_conv_output_lengths_match_the_layer():
    conv = torch.nn.Conv1d(4, 4, 5, 2, 2)
    for T in (1, 2, 9, 10, 997):
        assert conv(torch.zeros(1, 4, T)).size(-1) == conv_output_lengths(
            torch.tensor(T), 5, 2
        )


def test_shapes_and_padding_independence():
    torch.manual_seed(0)
    x = torch.randn(3, 50, 40)
    lengths = torch.tensor([50, 31, 8])
    clf = DigitClassifier(40, 16, pool="mean")
    logits = clf(x, lengths)
    assert logits.shape == (3, 10)
    alone = clf(x[1:2, :31], lengths[1:2])  # padding does not change a result
    torch.testing.assert_close(logits[1:2], alone, atol=1e-5, rtol=1e-5)
    rec = CTCRecognizer(40, 8, 8)
    lp, n = rec(x, lengths)
    assert lp.shape[:2] == (3, int(n.max())) and lp.shape[2] == 11
    torch.testing.assert_close(lp.exp().sum(-1), torch.ones(lp.shape[:2]))
    alone, _ = rec(x[2:, :8], lengths[2:])
    torch.testing.assert_close(lp[2, : n[2]], alone[0], atol=1e-5, rtol=1e-5)
    assert TriggerDetector(40, 8, 8)(torch.randn(2, 997, 40)).shape == (2, 499)


def test_bad_inputs():
    with pytest.raises(ValueError, match="M=40"):
        DigitClassifier(40, 8)(torch.randn(2, 5, 3), torch.tensor([5, 5]))
    with pytest.raises(ValueError, match="lengths"):
        CTCRecognizer(40, 8, 8)(torch.randn(2, 5, 40), torch.tensor([5, 9]))
    with pytest.raises(ValueError, match="pool"):
        DigitClassifier(pool="max")


def test_batching_helpers():
    frames = featurize(
        [np.random.default_rng(0).standard_normal(n) for n in (900, 300, 100)]
    )
    assert [f.shape[1] for f in frames] == [40, 40, 40] and len(frames[2]) == 1
    x, lengths = pad_batch(frames)
    assert x.shape == (3, len(frames[0]), 40) and lengths.tolist()[0] == len(frames[0])
    assert sorted(sum(length_batches([5, 1, 3, 2], 2, seed=0), [])) == [0, 1, 2, 3]
    assert length_batches([5, 1, 3, 2], 2) == [[1, 3], [2, 0]]
    masked = spec_augment(torch.ones(4, 20, 40), torch.Generator().manual_seed(0))
    assert masked.shape == (4, 20, 40) and (masked == 0).any()


def test_ctc_training_lowers_the_loss():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    frames = [torch.randn(40, 40, generator=g) for _ in range(16)]
    labels = [[1 + i % 3, 2] for i in range(16)]
    model = CTCRecognizer(40, 16, 16)
    hist = train_ctc(
        model, frames, labels, epochs=6, lr=1e-2, batch_size=8, progress=False
    )
    assert hist.train_loss[-1] < hist.train_loss[0]
    lp, n = model(torch.stack(frames[:2]), torch.tensor([40, 40]))
    assert torch.isfinite(ctc_loss(lp, torch.tensor(labels[:2]), n, [2, 2]))


def test_windowed_probabilities_cover_the_stream_once():
    torch.manual_seed(0)
    model = TriggerDetector(40, 8, 8)
    frames = torch.randn(300, 40) * 3 + 1  # raw log-mel frames
    one_pass = trigger_probabilities(model, [normalise(frames)])[0]
    windowed = windowed_probabilities(model, frames, window=100, hop=40)
    assert windowed.shape == one_pass.shape and (windowed > 0).all()
    # the first window's steps are a one-pass run over its own normalised frames
    first = trigger_probabilities(model, [normalise(frames[:100])])[0]
    np.testing.assert_allclose(windowed[:30], first[:30], atol=1e-6)
    # a window as long as the stream is the one-pass run
    whole = windowed_probabilities(model, frames, window=300, hop=300)
    np.testing.assert_allclose(whole, one_pass, atol=1e-6)
    with pytest.raises(ValueError, match="multiples of the stride"):
        windowed_probabilities(model, frames, window=101, hop=40)

"""window_gradients (course_lib.backprop.window_backward): the lecture's δs against autograd."""

import pytest
import torch

from course_lib.backprop.window_backward import window_gradients
from course_lib.backprop.window_classifier import (
    TorchWindowClassifier,
    WindowConfig,
    init_params,
)


@pytest.mark.parametrize("activation", ["tanh", "relu"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hand_gradients_equal_autograd(activation, seed):
    cfg = WindowConfig(7, 4, window=1, d_embed=3, d_hidden=5, activation=activation)
    params = init_params(cfg, seed=seed, dtype=torch.float64)
    params["b"] = torch.randn(5, dtype=torch.float64)  # non-zero biases too
    params["c"] = torch.randn(4, dtype=torch.float64)
    gen = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, 7, (6, 3), generator=gen)  # repeats: rows of E add up
    tags = torch.randint(0, 4, (6,), generator=gen)
    model = TorchWindowClassifier(cfg, params)
    model.loss(ids, tags).backward()
    ours = window_gradients(params, ids, tags, activation)
    for name, grad in ours.items():
        torch.testing.assert_close(
            grad, getattr(model, name).grad, rtol=1e-10, atol=1e-12
        )


def test_bad_shapes_are_reported():
    cfg = WindowConfig(vocab_size=7, n_tags=4, window=1, d_embed=3, d_hidden=5)
    params = init_params(cfg, dtype=torch.float64)
    with pytest.raises(ValueError, match=r"ids must be \(B, K\) with K·D = 9"):
        window_gradients(params, torch.zeros(2, 4, dtype=torch.long), torch.zeros(2))
    with pytest.raises(ValueError, match="activation must be one of"):
        window_gradients(
            params, torch.zeros(2, 3, dtype=torch.long), torch.zeros(2), "cube"
        )
    with pytest.raises(ValueError, match=r"tags must be \(2,\)"):
        window_gradients(params, torch.zeros(2, 3, dtype=torch.long), torch.zeros(3))

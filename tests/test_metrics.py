import math

import pytest
import scipy.stats
import torch

from course_lib.metrics import pearson_correlation, spearman_correlation


def test_spearman_against_scipy_with_ties():
    g = torch.Generator().manual_seed(1)
    x = torch.randint(0, 6, (40,), generator=g).double()  # many ties
    y = x + torch.randn(40, generator=g, dtype=torch.float64) * 2
    y[::5] = 1.0
    assert spearman_correlation(x, y) == pytest.approx(
        scipy.stats.spearmanr(x, y)[0], abs=1e-12
    )
    assert pearson_correlation(x, y) == pytest.approx(
        scipy.stats.pearsonr(x, y)[0], abs=1e-12
    )
    assert spearman_correlation([1, 2, 3], [10, 20, 30]) == pytest.approx(1.0)
    assert math.isnan(pearson_correlation([1, 1, 1], [1, 2, 3]))
    with pytest.raises(ValueError, match="same length"):
        spearman_correlation([1, 2], [1, 2, 3])

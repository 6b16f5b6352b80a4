"""What every test module shares: the widget-mode fixtures and the Hypothesis profile.

``live`` and ``html`` set ``COURSE_WIDGET_MODE`` for one test; ``browser`` is one offline
Chromium page for a whole test module (the book's page tests). The browser harness is
``widget_browser.py`` (an offline Chromium page, and ``unsuppressed_controls``, the check
that JupyterLab leaves every control's keys alone); the JupyterLab one is ``live_lab.py``.

Hypothesis (the property-based differential tests, ``tests/test_properties_*.py``): one
profile for the whole suite — derandomised, so a run is the same on every machine and in CI;
no example database on disk; no deadline (a slow shared machine is not a failure). Each test
sets its own ``max_examples``, so ``make test`` stays within its time.
"""

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "course",
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("course")


@pytest.fixture
def live(monkeypatch):
    """Widgets in live mode (anywidget, a kernel behind them), as in Jupyter."""
    monkeypatch.delenv("COURSE_WIDGET_MODE", raising=False)


@pytest.fixture
def html(monkeypatch):
    """Widgets in html mode (kernel-free bundles), as the book builds them."""
    monkeypatch.setenv("COURSE_WIDGET_MODE", "html")


@pytest.fixture(scope="module")
def browser():
    """An offline headless Chromium page (``widget_browser.offline_page``) for one module."""
    from widget_browser import offline_page

    with offline_page() as opened:
        yield opened

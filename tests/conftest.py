"""What every test module shares.

Hypothesis (the property-based differential tests, ``tests/test_properties_*.py``): one
profile for the whole suite — derandomised, so a run is the same on every machine and in CI;
no example database on disk; no deadline (a slow shared machine is not a failure). Each test
sets its own ``max_examples``, so ``make test`` stays within its time.
"""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "course",
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("course")

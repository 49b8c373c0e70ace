"""Hypothesis profiles: `ci` (the default) keeps the suite quick and repeatable: each test
draws the same examples on every run (seeded by the test), so a run on a fresh machine
gives what it gave here; `explore` draws new examples every run, and `long` far more of
them (`HYPOTHESIS_PROFILE=long pytest tests/core/test_properties.py`)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# No deadlines and no "too slow" health check: CI machines are shared and their speed varies.
QUICK = {"max_examples": 100, "deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("ci", derandomize=True, **QUICK)
settings.register_profile("explore", **QUICK)
settings.register_profile("long", max_examples=5000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

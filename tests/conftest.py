"""Hypothesis profiles: `ci` (the default) keeps the suite quick; `long` searches far more
examples (`HYPOTHESIS_PROFILE=long pytest tests/core/test_properties.py`)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# No deadlines and no "too slow" health check: CI machines are shared and their speed varies.
settings.register_profile(
    "ci", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("long", max_examples=5000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

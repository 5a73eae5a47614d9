"""The catalog keeper's tests turn it on (tests/conftest.py keeps it off for other domains)
and give each test the simulated clock back as they found it."""

from __future__ import annotations

import pytest

from tests.factories.world import sim_time_restored


@pytest.fixture
def keeper_on(settings, monkeypatch):
    monkeypatch.setattr(settings.keeper, "enabled", True)
    return settings


__all__ = ["keeper_on", "sim_time_restored"]

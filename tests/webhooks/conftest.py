from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.factories.world import sim_time_restored
from tests.webhooks.receiver import Receiver, running_receiver

__all__ = ["sim_time_restored"]


@pytest.fixture
def loopback_allowed(settings, monkeypatch) -> None:
    """The operator settings tests use: plain http and loopback receivers allowed."""
    monkeypatch.setattr(settings.webhooks, "allow_http", True)
    monkeypatch.setattr(settings.webhooks, "allow_loopback", True)


@pytest.fixture
def receiver(loopback_allowed) -> Iterator[Receiver]:
    with running_receiver() as r:
        yield r

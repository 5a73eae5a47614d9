"""Media links live on the service clock (the simulated one in the demo), like every other
time the API shows."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sors.enrichment.storage import LocalMediaStore
from sors.kit import clock as clock_mod
from sors.kit.security import Signer, TokenError


def test_a_media_link_expires_when_the_service_clock_passes_it(tmp_path: Path) -> None:
    sim_now = datetime(2026, 9, 22, 10, tzinfo=UTC)  # far from the wall clock, as in the demo
    frozen = clock_mod.FrozenClock(sim_now)
    previous = clock_mod.get_clock()
    clock_mod.set_clock(frozen)
    try:
        store = LocalMediaStore(tmp_path, base_url="http://x", signer=Signer("k" * 32), max_ttl=86400)
        expires = sim_now + timedelta(hours=24)
        token = store.token("pst_1/video.mp4", "video/mp4", expires)
        assert store.read_token(token).expires_at == expires  # valid at simulated "now"
        frozen.set(expires - timedelta(seconds=1))
        assert store.read_token(token).key == "pst_1/video.mp4"
        frozen.set(expires)
        with pytest.raises(TokenError) as gone:
            store.read_token(token)
        assert gone.value.reason == "expired"
    finally:
        clock_mod.set_clock(previous)

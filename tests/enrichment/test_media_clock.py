"""Media links live on the service clock (the simulated one in the demo), like every other
time the API shows."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sors.enrichment.storage import LocalMediaStore
from sors.kit.security import Signer, TokenError


def test_a_media_link_expires_when_the_service_clock_passes_it(tmp_path: Path) -> None:
    sim_now = datetime(2026, 9, 22, 10, tzinfo=UTC)  # far from the wall clock, as in the demo
    store = LocalMediaStore(tmp_path, base_url="http://x", signer=Signer("k" * 32), max_ttl=86400)
    expires = sim_now + timedelta(hours=24)
    token = store.token("pst_1/video.mp4", "video/mp4", expires)
    assert store.read_token(token, sim_now).expires_at == expires  # valid at simulated "now"
    assert store.read_token(token, expires - timedelta(seconds=1)).key == "pst_1/video.mp4"
    with pytest.raises(TokenError) as gone:
        store.read_token(token, expires)
    assert gone.value.reason == "expired"

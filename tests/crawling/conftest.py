from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.factories.apify import FakeApify, load_items
from tests.factories.world import sim_time_restored

__all__ = ["fake_apify", "sim_time_restored"]


@pytest.fixture
def fake_apify() -> Iterator[FakeApify]:
    """The loopback Apify API with every recorded actor export."""
    fake = FakeApify(items={
        "clockworks~tiktok-scraper": load_items(
            "apify/tiktok/profile_kossof.salon.spa_2026-08-12.json"),
        "apify~instagram-scraper": load_items(
            "apify/instagram/profile_details_nuancedaiman_2026-08-28.json"),
    }).start()
    yield fake
    fake.stop()

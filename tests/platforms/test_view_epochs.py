"""View-definition epochs (sors.platforms.views): what a view was on the day a post came
out, by format and by the kind of count a source gave; the SQL function the scores use
(migration 0035) states the same table."""

from __future__ import annotations

import importlib.util
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sors.platforms import views
from tests.factories.world import rows

MIGRATION = (Path(__file__).parents[2] / "sors" / "migrations" / "versions"
             / "0035_honest_baselines.py")


def _at(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(tzinfo=UTC)


CASES = [
    # YouTube Shorts: a view counts at the start of every play from 2025-03-31.
    ("youtube", "short", "2025-03-30T23:59:59", None, "engaged"),
    ("youtube", "short", "2025-03-31T00:00:00", None, "first_frame"),
    # Long-form videos and streams: from 2026-08-24, not with the Shorts.
    ("youtube", "video", "2025-06-01T12:00:00", None, "engaged"),
    ("youtube", "live", "2026-08-23T23:00:00", None, "engaged"),
    ("youtube", "video", "2026-08-24T00:00:00", None, "first_frame"),
    # A source's older kind of count is of that kind whatever its date.
    ("youtube", "short", "2026-10-01T00:00:00", "engaged_views", "engaged"),
    ("instagram", "reel", "2026-10-01T00:00:00", "video_views", "video_views"),
    # No change recorded.
    ("instagram", "reel", "2024-01-01T00:00:00", None, "plays"),
    ("tiktok", "video", "2024-01-01T00:00:00", None, "plays"),
    ("tiktok", "video", "2026-10-01T00:00:00", "rounded", "plays"),
]


@pytest.mark.parametrize(("platform", "ctype", "published", "kind", "definition"), CASES)
def test_each_post_knows_its_view_definition(
    platform: str, ctype: str, published: str, kind: str | None, definition: str
) -> None:
    epoch = views.epoch_of(platform, ctype, _at(published), kind)
    assert epoch.definition == definition
    assert epoch.key == (views.CURRENT if definition in ("plays", "first_frame") else views.OLDER)


def test_the_migration_states_the_same_table() -> None:
    spec = importlib.util.spec_from_file_location("m0035", MIGRATION)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    flat = " ".join(module.EPOCH_SQL.split())
    assert " ".join(views.epoch_sql().split()) in flat


async def test_the_sql_function_agrees_with_the_table(db) -> None:
    for platform, ctype, published, kind, _ in CASES:
        [row] = await rows(db, "SELECT sors_view_epoch(:p, :c, :t, :k) AS e",
                           p=platform, c=ctype, t=_at(published), k=kind)
        assert row["e"] == views.epoch_of(platform, ctype, _at(published), kind).key, (
            platform, ctype, published, kind)

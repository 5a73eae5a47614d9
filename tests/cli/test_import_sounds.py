"""`sors import` keeps the sounds of real exports: TikTok's `musicMeta` (Apify) and
Instagram's `musicInfo` (Apify), recorded files."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_import import SOURCES, imported
from tests.factories.world import rows, sim_time_restored

pytestmark = pytest.mark.usefixtures("clean", "sim_time_restored")

__all__ = ["sim_time_restored"]

TIKTOK = SOURCES / "apify/tiktok/profile_meenitech_2025-07-08.json"
INSTAGRAM = SOURCES / "apify/instagram/profile_posts_goeduitje_2025-09-04.json"


async def _sounds(db, platform: str) -> list[dict]:
    return await rows(db, """
        SELECT s.sound_key, s.title, s.author, s.is_original, count(p.id) AS posts
          FROM sounds s JOIN posts p ON p.sound_id = s.id
         WHERE s.platform = :platform
         GROUP BY s.id ORDER BY count(p.id) DESC, s.sound_key""", platform=platform)


async def test_a_tiktok_export_keeps_its_sounds_shared_track_and_originals(
    db, pg_url: str, tmp_path: Path
) -> None:
    imported(pg_url, tmp_path, str(TIKTOK), "--observed-at", "2025-07-08T10:55:00Z")
    found = await _sounds(db, "tiktok")
    # 4 posts on "Vibes", 1 on "Expectations", 5 on their own audio: 7 sounds for 10 posts.
    assert len(found) == 7 and sum(s["posts"] for s in found) == 10
    vibes = found[0]
    assert (vibes["sound_key"], vibes["title"], vibes["author"], vibes["is_original"],
            vibes["posts"]) == ("7013588396048943105", "Vibes", "ZHRMusic", False, 4)
    assert {s["sound_key"]: s["title"] for s in found if s["title"] == "Expectations"} == {
        "6777282406496864257": "Expectations"}
    originals = [s for s in found if s["is_original"]]
    assert len(originals) == 5 and all(s["posts"] == 1 for s in originals)
    assert all(s["title"].startswith("original sound") for s in originals)
    # Importing again changes nothing.
    imported(pg_url, tmp_path, str(TIKTOK), "--observed-at", "2025-07-08T10:55:00Z")
    assert await _sounds(db, "tiktok") == found


async def test_an_instagram_export_keeps_its_reels_audio(
    db, pg_url: str, tmp_path: Path
) -> None:
    imported(pg_url, tmp_path, str(INSTAGRAM), "--observed-at", "2025-09-04T13:39:02Z")
    found = await _sounds(db, "instagram")
    originals = [s for s in found if s["is_original"]]
    tracks = {(s["title"], s["author"]) for s in found if not s["is_original"]}
    assert tracks == {("Smile", "AudioCoffee Band"), ("Joyful Signs", "Disil"),
                      ("Tropicaneva", "Moavii"), ("Happy Cooking", "Sakura Girl"),
                      ("Beloved", "Sakura Girl"), ("An Isolated World", "Mustafa Hussam")}
    # No audio id repeats in this export: one post per sound.
    assert all(s["posts"] == 1 for s in found)
    assert len(originals) >= 70
    [r] = await rows(db, "SELECT count(*) AS n FROM posts WHERE sound_id IS NULL "
                         "AND content_type = 'reel'")
    assert r["n"] <= 1

"""`sors import` of real exports: Apify datasets (TikTok, Instagram, YouTube), yt-dlp
.info.json, YouTube Data API answers. Counts equal the file's; a second import changes
nothing; a truncated or unrecognised file changes nothing and says where it broke."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.factories import auth, create_account
from tests.factories.world import rows, set_time, sim_time_restored

pytestmark = pytest.mark.usefixtures("clean", "sim_time_restored")

__all__ = ["sim_time_restored"]

SOURCES = Path(__file__).parents[1] / "fixtures" / "sources"
TIKTOK = SOURCES / "apify/tiktok/profile_kossof.salon.spa_2026-08-12.json"
INSTAGRAM = SOURCES / "apify/instagram/profile_details_nuancedaiman_2026-08-28.json"
YOUTUBE = SOURCES / "apify/youtube/search_fieldselected_2025-12-08_09-13-24-453.json"
YTDLP_VIDEO = SOURCES / "ytdlp/youtube_video_JjQDik3yNhA.info.json"
YTDLP_TAB = SOURCES / "ytdlp/youtube_channel_tab_UCcRSMoQqXc_JrBZRHDFGbqA.info.json"
API_VIDEOS = SOURCES / "youtube_api/videos_list_D-lhorsDlUQ_2019.json"
API_CHANNELS = SOURCES / "youtube_api/channels_list_googledevelopers_2019.json"


def sors(pg_url: str, tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SORS_")}
    env |= {"SORS_DATABASE_URL": pg_url.replace("postgresql+psycopg://", "postgresql://", 1),
            "SORS_DATA_DIR": str(tmp / ".sors"), "SORS_PLATFORM_SOURCE": "sim"}
    return subprocess.run([sys.executable, "-m", "sors.cli.main", *args], env=env, cwd=tmp,
                          capture_output=True, text=True, timeout=180)


def imported(pg_url: str, tmp: Path, *args: str) -> dict[str, Any]:
    out = sors(pg_url, tmp, "import", "--json", *args)
    assert out.returncode == 0, out.stderr + out.stdout
    return json.loads(out.stdout)


async def counts(db) -> tuple[int, int, int]:
    [r] = await rows(db, "SELECT (SELECT count(*) FROM profiles) AS p, "
                         "(SELECT count(*) FROM posts) AS q, "
                         "(SELECT count(*) FROM post_stats) AS s")
    return r["p"], r["q"], r["s"]


async def test_an_apify_tiktok_export_imports_once_and_is_searchable_with_scores(
    db, client: httpx.AsyncClient, pg_url: str, tmp_path: Path
) -> None:
    from datetime import UTC, datetime

    # The export carries no capture time: the importer will not invent one.
    out = sors(pg_url, tmp_path, "import", str(TIKTOK))
    assert out.returncode == 1 and "--observed-at" in out.stderr
    assert await counts(db) == (0, 0, 0)

    when = "2026-08-12T02:44:20Z"
    report = imported(pg_url, tmp_path, str(TIKTOK), "--observed-at", when)
    [f] = report["files"]
    assert f["format"] == "apify-tiktok" and f["records"] == 23
    assert f["observedAt"] == when and f["observedFrom"] == "--observed-at"
    assert f["profiles"] == {"new": 1, "updated": 0, "skipped": 0}
    assert f["posts"] == {"new": 23, "updated": 0, "skipped": 0}
    assert await counts(db) == (1, 23, 23)
    [profile] = await rows(db, "SELECT handle, follower_count, data_source, last_crawled_at "
                               "FROM profiles")
    assert (profile["handle"], profile["follower_count"], profile["data_source"]) == (
        "kossof.salon.spa", 17, "import")

    # The same file again: nothing changes, and the summary says why.
    again = imported(pg_url, tmp_path, str(TIKTOK), "--observed-at", when)["files"][0]
    assert again["posts"] == {"new": 0, "updated": 0, "skipped": 23}
    assert again["profiles"]["skipped"] == 1 and any(
        "already imported" in reason for reason in again["skipped"])
    assert await counts(db) == (1, 23, 23)

    # Searchable, scored against the creator's own baseline.
    await set_time(db, datetime(2026, 8, 12, 3, 0, tzinfo=UTC))
    _, key = await create_account(db, credits=10)
    r = await client.post("/api/v1/search/content", headers=auth(key),
                          json={"query": "menselfcare", "timeFrame": "all_time"})
    hits = {p["platform_post_id"]: p for p in r.json()["results"]}
    assert hits["7666525827932228894"]["views"] == 115
    assert hits["7666525827932228894"]["outlier_scores"]["all_time"] is not None


async def test_a_truncated_file_changes_nothing_and_says_where_it_broke(
    db, pg_url: str, tmp_path: Path
) -> None:
    whole = TIKTOK.read_text()
    cut = tmp_path / "cut.json"
    cut.write_text(whole[: len(whole) // 2])
    out = sors(pg_url, tmp_path, "import", str(cut), str(INSTAGRAM),
               "--observed-at", "2026-08-28T04:04:00Z")
    assert out.returncode == 1
    message = " ".join(out.stderr.split())
    assert "cut.json" in message and "not valid JSON" in message and "line" in message
    # The good file beside it is imported; the broken one left nothing behind.
    assert await counts(db) == (1, 12, 12)
    assert not await rows(db, "SELECT 1 FROM profiles WHERE handle = 'kossof.salon.spa'")


async def test_a_record_without_what_a_post_needs_is_refused_naming_record_and_field(
    db, pg_url: str, tmp_path: Path
) -> None:
    items = json.loads(TIKTOK.read_text())
    del items[4]["createTimeISO"], items[4]["createTime"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(items))
    out = sors(pg_url, tmp_path, "import", str(bad), "--observed-at", "2026-08-12T02:44:20Z")
    assert out.returncode == 1
    message = " ".join(out.stderr.split())
    assert "bad.json, record 5, field 'createTimeISO|createTime'" in message, message
    assert await counts(db) == (0, 0, 0)
    unknown = tmp_path / "notes.json"
    unknown.write_text(json.dumps([{"hello": "world"}]))
    out = sors(pg_url, tmp_path, "import", str(unknown), "--observed-at", "2026-08-12T00:00:00Z")
    assert out.returncode == 1 and "not a format sors can import" in " ".join(out.stderr.split())


async def test_instagram_youtube_ytdlp_and_data_api_files_import_with_their_counts(
    db, pg_url: str, tmp_path: Path
) -> None:
    report = imported(pg_url, tmp_path, str(INSTAGRAM), str(YOUTUBE), str(YTDLP_VIDEO),
                      str(API_VIDEOS), str(API_CHANNELS), "--observed-at", "2025-12-08T09:13:24Z")
    by_format = {f["format"]: f for f in report["files"]}
    assert by_format["apify-instagram"]["posts"]["new"] == 12
    # yt-dlp says when it ran (`epoch`): that time wins over --observed-at.
    assert by_format["ytdlp"]["observedFrom"] == "file"
    assert by_format["ytdlp"]["observedAt"] == "2023-06-29T13:24:27Z"
    assert by_format["youtube-api-channels"]["profiles"]["new"] == 1
    assert by_format["youtube-api-videos"]["posts"]["new"] == 1
    [ig] = await rows(db, "SELECT follower_count FROM profiles WHERE handle = 'nuancedaiman'")
    assert ig["follower_count"] == 122_271
    [video] = await rows(db, "SELECT views, likes, comments, approximations FROM posts "
                             "WHERE platform_post_id = 'JjQDik3yNhA'")
    assert (video["views"], video["likes"], video["comments"]) == (263_388, 20_487, 1_700)
    assert video["approximations"]["published_at"] == "day"  # upload_date only
    [api] = await rows(db, "SELECT p.views, p.likes, p.comments, pr.handle, pr.follower_count "
                           "FROM posts p JOIN profiles pr ON pr.id = p.profile_id "
                           "WHERE p.platform_post_id = 'D-lhorsDlUQ'")
    assert api == {"views": 7920, "likes": 190, "comments": 32, "handle": "googledevelopers",
                   "follower_count": 1_927_873}
    youtube = by_format["apify-youtube"]
    assert youtube["records"] == 228
    # Channels whose handle is not one sors can store (non-Latin) are skipped and counted.
    assert youtube["posts"]["new"] + youtube["recordsSkipped"] >= 1
    [yt] = await rows(db, "SELECT count(*) AS n FROM posts WHERE platform = 'youtube'")
    assert yt["n"] == youtube["posts"]["new"] + 2


async def test_a_channel_tab_without_a_handle_is_refused_with_the_field(
    db, pg_url: str, tmp_path: Path
) -> None:
    out = sors(pg_url, tmp_path, "import", str(YTDLP_TAB))
    assert out.returncode == 1
    assert "field 'uploader_id'" in " ".join(out.stderr.split())
    assert await counts(db) == (0, 0, 0)


async def test_an_instagram_post_export_skips_the_actors_error_item_and_counts_a_repeat_once(
    db, pg_url: str, tmp_path: Path
) -> None:
    posts = SOURCES / "apify/instagram/posts_mixed_2026-08-15.json"
    [f] = imported(pg_url, tmp_path, str(posts), "--observed-at", "2026-08-15T05:02:15Z")["files"]
    # 63 records: 62 posts (one of them twice) and the actor's error item for a private
    # profile, which is skipped with the actor's own words.
    assert f["records"] == 63 and f["recordsSkipped"] == 1
    assert f["posts"] == {"new": 61, "updated": 0, "skipped": 0}
    assert f["profiles"]["new"] == 4
    assert any("Empty or private data" in reason for reason in f["skipped"])
    [brentley] = await rows(db, "SELECT display_name, follower_count FROM profiles "
                                "WHERE handle = 'beauty.by.brentley'")
    # The export names the owner but not their followers: unknown, not zero.
    assert brentley == {"display_name": "Brentley Wright", "follower_count": None}
    [image] = await rows(db, "SELECT views, approximations FROM posts p "
                             "WHERE platform_post_id = 'CZxTxL6uY8a'")
    assert image["views"] is None and image["approximations"]["views"] == "hidden"


async def test_jsonl_exports_import_like_json_arrays(db, pg_url: str, tmp_path: Path) -> None:
    lines = tmp_path / "tiktok.jsonl"
    lines.write_text("\n".join(json.dumps(i) for i in json.loads(TIKTOK.read_text())) + "\n")
    [f] = imported(pg_url, tmp_path, str(lines), "--observed-at", "2026-08-12T02:44:20Z")["files"]
    assert f["format"] == "apify-tiktok" and f["posts"]["new"] == 23
    broken = tmp_path / "broken.jsonl"
    broken.write_text(lines.read_text()[:-40])  # the last line cut short
    out = sors(pg_url, tmp_path, "import", str(broken), "--observed-at", "2026-08-12T02:44:20Z")
    assert out.returncode == 1 and "line 23 is not JSON" in " ".join(out.stderr.split())

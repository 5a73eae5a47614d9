"""One valid call of every skill, in an order where later calls use what earlier ones
returned (a jobRef, an alertId). The same walk runs over MCP and over plain HTTP, so the two
ledgers it leaves can be compared entry for entry.

A skill added to the price list without an entry here makes the walking tests fail with a
message saying so: every skill must be callable as a tool.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
from sqlalchemy import text

from sors.catalog.ingest.service import ingest_crawls
from sors.kit.db import Database
from sors.platforms.sim.world import SimWorld

AT = datetime(2026, 11, 1, tzinfo=UTC)
Call = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class Targets:
    """What one walk works on. Two walks use two disjoint target sets, so neither sees
    the other's transcripts, media or crawls."""

    post_id: str
    post_url: str
    profile_ids: list[str]
    new_handle: str
    email: str
    sound_id: str  # the TikTok post's sound


async def make_targets(db: Database, tag: str) -> Targets:
    world = SimWorld(0)
    snaps = [world.crawl("tiktok", f"walk.{tag}", AT), world.crawl("youtube", f"walk{tag}", AT)]
    async with db.transaction() as s:
        pids = await ingest_crawls(s, snaps)
    post = snaps[0].posts[0]
    async with db.session() as s:
        post_id, sound_id = (await s.execute(
            text("SELECT id, sound_id FROM posts WHERE platform_post_id = :p"),
            {"p": post.platform_post_id})).one()
    return Targets(post_id, post.url, list(pids), f"fresh.{tag}", f"walk-{tag}@example.com",
                   sound_id)


async def walk(call: Call, t: Targets) -> list[str]:
    """Call every skill once with valid input; returns the skill keys in call order."""
    done: list[str] = []

    async def go(skill: str, args: dict[str, Any]) -> dict[str, Any]:
        done.append(skill)
        return await call(skill, args)

    await go("get_pricing", {})
    await go("get_credit_balance", {})
    await go("list_categories", {})
    await go("get_trending_outliers", {})
    await go("search_outliers", {"pageSize": 5, "sortBy": "views"})
    await go("search_profiles", {"query": "walk"})
    await go("get_post", {"postId": t.post_id})
    await go("get_post_history", {"postId": t.post_id})
    await go("get_profile", {"profileId": t.profile_ids[0]})
    await go("resolve_post_url", {"url": t.post_url})
    await go("compare_profiles", {"profileIds": t.profile_ids})
    await go("niche_trends", {"query": "fitness"})
    await go("find_breakouts", {"timeFrame": "all_time"})
    await go("find_rising_posts", {"maxAgeHours": 168})
    await go("find_trending_sounds", {"timeFrame": "one_month"})
    await go("get_sound", {"soundId": t.sound_id})
    await go("find_trending_hashtags", {"timeFrame": "one_month"})
    crawl = await go("crawl_profile", {"platform": "instagram", "handle": t.new_handle})
    await go("get_job_status", {"jobRef": crawl["jobRef"]})
    await go("request_transcript", {"postId": t.post_id})
    await go("download_post_media", {"postId": t.post_id})
    remix = await go("remix_post", {"postId": t.post_id, "targetNiche": "home baking"})
    await go("get_remix_result", {"jobRef": remix["jobRef"]})
    analysis = await go("analyze_post", {"postId": t.post_id})
    await go("get_analysis_result", {"jobRef": analysis["jobRef"]})
    await go("search_hooks", {"hookTypes": ["question"]})
    fetched = await go("fetch_comments", {"postId": t.post_id, "limit": 100})
    assert fetched["status"] == "pending"
    await go("search_demand", {"timeFrame": "all_time", "sortBy": "unanswered"})
    await go("track_profile", {"profileId": t.profile_ids[1]})
    await go("list_tracked_profiles", {})
    await go("get_tracked_updates", {"limit": 5})
    await go("untrack_profile", {"profileId": t.profile_ids[1]})
    alert = await go("create_viral_alert", {"profileId": t.profile_ids[0], "email": t.email})
    await go("list_viral_alerts", {})
    await go("delete_viral_alert", {"alertId": alert["alert"]["alertId"]})
    await go("get_webhook_settings", {})
    await go("update_webhook_settings", {"creditsLowThreshold": 100})
    hook = await go(
        "create_webhook", {"url": "http://127.0.0.1:9/hook", "events": ["job.completed"]})
    await go("list_webhooks", {})
    await go("get_webhook", {"webhookId": hook["id"]})
    await go("update_webhook", {"webhookId": hook["id"], "description": "walk"})
    await go("rotate_webhook_secret", {"webhookId": hook["id"]})
    sent = await go("test_webhook", {"webhookId": hook["id"]})
    await go("list_webhook_deliveries", {"webhookId": hook["id"], "limit": 5})
    await go("retry_webhook_delivery", {"webhookId": hook["id"], "deliveryId": sent["deliveryId"]})
    await go("delete_webhook", {"webhookId": hook["id"]})
    board = await go("create_board", {"name": "walk"})
    await go("list_boards", {})
    saved = await go("add_board_item", {"boardId": board["id"], "postId": t.post_id,
                                        "note": "walked"})
    await go("get_board", {"boardId": board["id"]})
    await go("share_board", {"boardId": board["id"]})
    await go("unshare_board", {"boardId": board["id"]})
    await go("delete_board_item", {"boardId": board["id"], "itemId": saved["item"]["id"]})
    await go("delete_board", {"boardId": board["id"]})
    await go("create_topup_link", {"packId": "pack_s"})
    await go("report_issue", {"message": "walking every skill once"})
    await go("get_credit_ledger", {"limit": 50})
    # A plan: the local provider's checkout page is paid by posting its form, as a buyer would.
    link = await go("create_subscription_checkout", {"planId": "creator", "interval": "month"})
    async with httpx.AsyncClient(timeout=30) as page:
        paid = await page.post(link["checkoutUrl"] + "/pay")
        assert paid.status_code == 200, paid.text
    await go("get_subscription", {})
    await go("change_subscription", {"planId": "pro", "interval": "month"})
    await go("cancel_subscription", {})
    await go("resume_subscription", {})
    await go("get_billing_portal", {})
    return done


def missing_from_walk(skills: list[str], walked: list[str]) -> list[str]:
    return sorted(set(skills) - set(walked))

"""Events delivered to a loopback receiver in each format: the Standard Webhooks envelope,
a Slack message (`text`, `blocks`) and a Discord message (`content`, `embeds`), for jobs,
credits, test events, post changes, and a post-carrying event the renderer has no code for;
every message kept to its chat's limits and still signed."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from sors.events import service as events
from sors.jobs import service as jobs
from sors.kit.numbers import compact, multiple
from tests.alerts.scenario import day_at
from tests.factories import auth, create_account
from tests.factories.jobs import run_jobs_until_idle
from tests.factories.world import (
    hand_crawl,
    hand_post,
    ingest,
    rows,
    run_once,
    set_time,
)
from tests.webhooks.chat import by_event, check_discord, check_slack, discord_type, slack_type
from tests.webhooks.helpers import alert_and_tracking, create_endpoint
from tests.webhooks.test_post_changed import HANDLE, RetitlingAdapter, crawl_at
from tests.webhooks.test_post_changed import T0 as RETITLED_AT

pytestmark = pytest.mark.usefixtures("sim_time_restored")
T0 = datetime(2026, 7, 1, 12, 0, tzinfo=UTC)
FORMATS = ("standard", "slack", "discord")


def slack_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def slack_fields(msg: dict) -> list[tuple[str, str]]:
    if len(msg["blocks"]) < 3:
        return []
    return [tuple(f["text"][1:].split("*\n", 1)) for f in msg["blocks"][1]["fields"]]


def discord_fields(msg: dict) -> list[tuple[str, str]]:
    return [(f["name"], f["value"]) for f in msg["embeds"][0]["fields"]]


def stamp(envelope: dict) -> str:
    at = datetime.fromisoformat(envelope["timestamp"].replace("Z", "+00:00"))
    return f"<!date^{int(at.timestamp())}^{{date_short_pretty}} {{time}}|{envelope['timestamp']}>"


async def endpoints(client, key, receiver, events_: list[str]) -> dict[str, dict]:
    return {fmt: await create_endpoint(client, key, f"{receiver.url}/{fmt}", format=fmt,
                                       events=events_) for fmt in FORMATS}


@dataclass
class Delivered:
    """What the three endpoints received, each by event id: the Standard Webhooks envelopes,
    the Slack and the Discord messages."""

    eps: dict[str, dict]
    std: dict[str, dict]
    slack: dict[str, dict]
    discord: dict[str, dict]

    def of_type(self, event_type: str) -> list[tuple[dict, dict, dict]]:
        """(envelope data, Slack message, Discord message) of each event of this type."""
        return [(env["data"], self.slack[i], self.discord[i]) for i, env in self.std.items()
                if env["type"] == event_type]


@pytest.fixture
async def delivered(client: httpx.AsyncClient, db, runtime, receiver) -> Delivered:
    """Two crawls (one completes, one fails), the credits.low they cause and a test event,
    delivered to a standard, a Slack and a Discord endpoint."""
    await set_time(db, T0)
    _, key = await create_account(db, credits=130)
    h = auth(key)
    eps = await endpoints(client, key, receiver, ["job.completed", "job.failed", "credits.low"])
    assert (await client.put("/api/v1/webhooks/settings", json={"creditsLowThreshold": 100},
                             headers=h)).status_code == 200
    for handle in ("hook.anna", "ghost.hook"):  # 130 -> 90 crosses 100: one credits.low
        r = await client.post(
            "/api/v1/crawls", json={"platform": "tiktok", "handle": handle}, headers=h)
        assert r.status_code == 200, r.text
    for ep in eps.values():
        tested = await client.post(f"/api/v1/webhooks/{ep['id']}/test", headers=h)
        assert tested.status_code == 200
    await run_jobs_until_idle(runtime, timeout=120)
    return Delivered(eps, by_event(receiver, "/hook/standard"), by_event(receiver, "/hook/slack"),
                     by_event(receiver, "/hook/discord"))


async def test_every_event_reaches_every_format_signed_and_within_limits(
    delivered: Delivered, receiver
) -> None:
    std, slack, discord = delivered.std, delivered.slack, delivered.discord
    assert sorted(e["type"] for e in std.values()) == [
        "credits.low", "job.completed", "job.failed", "webhook.test"]
    assert len(slack) == len(discord) == 4
    for fmt, got in (("slack", slack), ("discord", discord)):
        shared = {i for i, e in std.items() if e["type"] != "webhook.test"}
        assert shared < set(got), fmt  # the same events, the same webhook-id
        for r in receiver.received:  # still signed: a relay in between can verify them
            if r.path == f"/hook/{fmt}":
                assert r.verify(delivered.eps[fmt]["secret"]) == r.payload
    for msg in slack.values():
        check_slack(msg)
    for msg in discord.values():
        check_discord(msg)


async def test_each_chat_message_names_its_event_and_time(delivered: Delivered) -> None:
    for event_id, env in delivered.std.items():
        if env["type"] == "webhook.test":
            continue
        s, d = delivered.slack[event_id], delivered.discord[event_id]
        assert slack_type(s) == discord_type(d) == env["type"]
        assert s["blocks"][-1]["elements"][0]["text"] == f"sors · {env['type']} · {stamp(env)}"
        assert d["embeds"][0]["timestamp"] == env["timestamp"]


async def test_a_failed_job_in_each_format(delivered: Delivered) -> None:
    [(data, s, d)] = delivered.of_type("job.failed")
    message = data["error"]["message"]
    assert s["text"] == "Job failed: crawl" and d["content"] == "Job failed: crawl"
    assert s["blocks"][0]["text"]["text"] == (
        f"*Job failed: crawl*\n*Error:* {slack_escape(message)}")
    assert slack_fields(s) == [("Job", data["jobRef"]), ("Credits charged", "40"),
                               ("Credits refunded", "40")]
    embed = d["embeds"][0]
    assert embed["title"] == "Job failed: crawl" and "url" not in embed
    assert embed["description"].startswith("**Error:** ")
    assert [n for n, _ in discord_fields(d)] == ["Job", "Credits charged", "Credits refunded"]
    assert discord_fields(d)[0][1].replace("\\", "") == data["jobRef"]


async def test_a_completed_job_in_each_format(delivered: Delivered) -> None:
    [(data, s, d)] = delivered.of_type("job.completed")
    assert s["text"] == "Job completed: crawl"
    fields = dict(slack_fields(s))
    assert fields["Job"] == data["jobRef"] and fields["Credits charged"] == "40"
    assert fields["Posts seen"] == compact(data["result"]["postsSeen"])
    assert dict(discord_fields(d))["Posts seen"] == compact(data["result"]["postsSeen"])


async def test_credits_low_in_each_format(delivered: Delivered) -> None:
    [(data, s, d)] = delivered.of_type("credits.low")
    assert data["balance"] == 90
    assert s["text"] == "Credits low: 90 credits"
    assert s["blocks"][0]["text"]["text"] == (
        "*Credits low: 90 credits*\nThe balance fell below 100 credits.\n"
        f"Last entry: *-40* ({slack_escape(data['entry']['reason'])})")
    assert slack_fields(s) == [("Balance", "90 credits"),
                               ("Worth", f"${data['balanceUsd']:,.2f}"),
                               ("Threshold", "100")]
    assert d["embeds"][0]["title"] == "Credits low: 90 credits"
    assert discord_fields(d) == slack_fields(s)


async def test_the_test_event_in_each_chats_own_words(delivered: Delivered) -> None:
    [s] = [m for m in delivered.slack.values() if slack_type(m) == "webhook.test"]
    assert s["text"] == "Test event from sors"
    assert s["blocks"][0]["text"]["text"] == "*Test event from sors*\nA test event from sors."
    assert slack_fields(s) == [("Endpoint id", delivered.eps["slack"]["id"])]
    [d] = [m for m in delivered.discord.values() if discord_type(m) == "webhook.test"]
    assert d["content"] == "Test event from sors"
    assert d["embeds"][0]["description"] == "A test event from sors."


async def test_a_rewritten_title_arrives_as_a_chat_message(
    client: httpx.AsyncClient, db, runtime, settings, app, receiver
) -> None:
    # The post crawl_at makes is published 10 h before RETITLED_AT: a crawl sees it then.
    await set_time(db, RETITLED_AT)
    profile_id = await ingest(db, crawl_at(RETITLED_AT, 1000, "I tried the 5am routine"))
    _, key = await create_account(db, credits=100)
    await endpoints(client, key, receiver, ["post.changed"])
    r = await client.post("/api/v1/tracking", headers=auth(key),
                          json={"profileId": profile_id, "frequency": "daily"})
    assert r.status_code == 200, r.text
    await set_time(db, RETITLED_AT + timedelta(hours=10))
    async with db.transaction() as s:
        await jobs.enqueue(s, type="refresh", account_id=None, credits=0, origin="catalog",
                           now=RETITLED_AT + timedelta(hours=10), max_attempts=4,
                           payload={"platform": "tiktok", "handle": HANDLE,
                                    "profileId": profile_id},
                           target=f"tiktok:{HANDLE}")
    await run_jobs_until_idle(runtime, adapter=RetitlingAdapter(2500, "5am for 30 days <3"))
    await run_jobs_until_idle(runtime)

    [env] = by_event(receiver, "/hook/standard").values()
    [change] = env["data"]["changes"]
    [s] = by_event(receiver, "/hook/slack").values()
    [d] = by_event(receiver, "/hook/discord").values()
    check_slack(s)
    check_discord(d)
    title = f"Post changed: @{HANDLE} on TikTok"
    assert s["text"] == title and d["embeds"][0]["title"] == title
    assert s["blocks"][0]["text"]["text"] == (
        f"*<{change['url']}|{title}>*\n"
        f"• <{change['url']}|Caption changed>: “I tried the 5am routine” → “5am for 30 days &lt;3”")
    assert d["embeds"][0]["url"] == change["url"]
    assert d["embeds"][0]["description"] == (
        f"• [Caption changed]({change['url']}): “I tried the 5am routine” → “5am for 30 days \\<3”")
    assert slack_fields(s) == discord_fields(d) == [("Changes", "1")]


async def test_a_post_event_without_renderer_code_and_an_unknown_event_stay_within_limits(
    client: httpx.AsyncClient, db, runtime, settings, app, receiver
) -> None:
    """`post.rising` (or any event carrying `post` and `profile`) renders as a post card
    from its shape; a caption of 6,000 emoji and markup, a long name and 40 extra numbers
    still fit; an event of unknown shape is one generic message."""
    await set_time(db, T0)
    handle = "long.caption"
    caption = ("🔥 *bold* _it_ <@123> @everyone [x](https://evil.example) | " * 120)[:6000]
    post = replace(hand_post(handle, 1, T0 - timedelta(hours=5), views=48_612), caption=caption)
    snap = hand_crawl(handle, [post], T0)
    snap = replace(snap, profile=replace(snap.profile, display_name="N" * 200,
                                         follower_count=1_234_567))
    profile_id = await ingest(db, snap)
    account_id, key = await create_account(db, credits=10)
    h = auth(key)
    eps = await endpoints(client, key, receiver, ["job.completed"])
    [post_row] = await rows(db, "SELECT id FROM posts WHERE profile_id = :p", p=profile_id)
    record = (await client.get(f"/api/v1/posts/{post_row['id']}", headers=h)).json()
    profile = (await client.get(f"/api/v1/profiles/{profile_id}", headers=h)).json()
    projection = {"vsMedianNow": 22.23, "percentileNow": 97, "accelerating": True,
                  # (jsonb keeps shorter keys first: these come after the three above)
                  **{f"anotherNumber{i:02}": i * 1000 for i in range(40)}}
    async with db.transaction() as s:
        rising = await events.emit(
            s, account_id, "post.rising",
            {"post": record, "profile": profile, "projection": projection},
            endpoint_ids=[ep["id"] for ep in eps.values()], at=T0)
        mystery = await events.emit(
            s, account_id, "mystery.event",
            {"note": "x" * 5000, "count": 12_345, "nested": {"a": 1}},
            endpoint_ids=[ep["id"] for ep in eps.values()], at=T0)
    await run_jobs_until_idle(runtime)

    std = by_event(receiver, "/hook/standard")
    assert std[rising]["data"]["post"] == record  # the standard body is untouched
    slack, discord = by_event(receiver, "/hook/slack"), by_event(receiver, "/hook/discord")
    for msg in slack.values():
        check_slack(msg)
    for msg in discord.values():
        check_discord(msg)

    s, d = slack[rising], discord[rising]
    title = f"Rising post: @{handle}"
    assert s["text"] == title and d["content"] == "Rising post: @long.caption"
    lines = s["blocks"][0]["text"]["text"].split("\n")
    assert lines[0] == f"*<{record['url']}|{title}>*"
    assert lines[1].startswith(
        f"<{record['url']}|🔥 *bold* _it_ &lt;@123&gt; @everyone [x](https://evil.example) ¦")
    assert lines[1].endswith("…>") and "<@" not in lines[1]
    assert lines[2] == (
        f"by *{'N' * 79}…* (<{profile['url']}|@{handle}>) on TikTok · 1.2M followers")
    fields = slack_fields(s)
    assert fields[:3] == [
        ("Views", "48.6K"), ("Likes", compact(48_612 // 20)), ("Comments", "243")]
    assert len(fields) == 10  # Slack's most per section; the rest are left out

    embed = d["embeds"][0]
    assert embed["title"] == title and embed["url"] == record["url"]
    first, creator = embed["description"].split("\n")
    assert first.startswith(
        "[🔥 \\*bold\\* \\_it\\_ \\<@123\\> @everyone \\[x\\](https://evil.example) \\| ")
    assert first.endswith(f"…]({record['url']})")
    assert creator.startswith(f"by **{'N' * 79}…** ([@long.caption]({profile['url']}))")
    named = dict(discord_fields(d))
    assert len(named) == 25 and named["Views"] == "48.6K"
    assert named["Projection: vs median now"] == multiple(22.23) == "22.2×"
    assert named["Projection: percentile now"] == "97"
    assert named["Projection: accelerating"] == "yes"

    s, d = slack[mystery], discord[mystery]
    assert s["text"] == "Mystery event" and d["embeds"][0]["title"] == "Mystery event"
    assert s["blocks"][0]["text"]["text"] == "*Mystery event*"
    assert slack_fields(s) == [("Note", "x" * 199 + "…"), ("Count", "12.3K")]
    assert discord_fields(d) == slack_fields(s) and "description" not in d["embeds"][0]


async def test_a_viral_alert_and_new_posts_arrive_as_post_cards(
    client: httpx.AsyncClient, db, runtime, settings, app, receiver
) -> None:
    _, key = await create_account(db, credits=1000, email="owner@example.com")
    await endpoints(client, key, receiver, ["alert.triggered", "tracking.new_posts"])
    await alert_and_tracking(client, db, app, key)
    await set_time(db, day_at(1, 12))
    await run_once(runtime)
    await run_jobs_until_idle(runtime, timeout=120)

    std = by_event(receiver, "/hook/standard")
    slack, discord = by_event(receiver, "/hook/slack"), by_event(receiver, "/hook/discord")
    assert {e["type"] for e in std.values()} == {"alert.triggered", "tracking.new_posts"}
    assert set(std) == set(slack) == set(discord)
    for event_id, env in std.items():
        s, d = slack[event_id], discord[event_id]
        check_slack(s)
        check_discord(d)
        data = env["data"]
        if env["type"] == "alert.triggered":
            post, who = data["post"], data["post"]["profile"]
            title = f"Viral alert: @{who['handle']}"
            assert s["text"] == title and d["embeds"][0]["title"] == title
            assert d["embeds"][0]["url"] == post["url"]
            head, link, creator = s["blocks"][0]["text"]["text"].split("\n")
            assert head == f"*<{post['url']}|{title}>*"
            assert link.startswith(f"<{post['url']}|") and link.endswith(">")
            name = (f"*{who['display_name']}* (*@{who['handle']}*)"
                    if who["display_name"] != who["handle"] else f"*@{who['handle']}*")
            assert creator == f"by {name} on TikTok · {compact(who['follower_count'])} followers"
            fields = dict(slack_fields(s))
            assert fields["Views"] == compact(post["views"])
            assert fields["Likes"] == compact(post["likes"])
            score = multiple(data["outlierScore"])
            assert fields["Outlier score (three months)"] == score
            assert dict(discord_fields(d))["Outlier score (three months)"] == score
        else:
            posts = data["posts"]
            title = f"New posts: {compact(data['newPosts'])} from @{data['handle']}"
            assert s["text"] == title and d["embeds"][0]["title"] == title
            lines = s["blocks"][0]["text"]["text"].split("\n")
            named = posts[0]["display_name"] != data["handle"]
            assert lines[1].startswith(f"by *{posts[0]['display_name']}*" if named
                                       else f"by *@{data['handle']}*")
            listed = [ln for ln in lines if ln.startswith("• ")]
            assert len(listed) == min(5, len(posts))
            for ln, p in zip(listed, posts, strict=False):
                assert ln.startswith(f"• <{p['url']}|")
                assert ln.endswith(f"> · {compact(p['views'])} views")
            assert slack_fields(s) == discord_fields(d) == [("Posts", compact(data["newPosts"]))]

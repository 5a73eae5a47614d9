"""The chat renderer on its own: which message an event's shape gets, and Slack's and
Discord's limits held against oversized, hostile input (emoji, markup, mentions)."""

from __future__ import annotations

from datetime import UTC, datetime

from sors.webhooks.formats import body, clip, discord_escape, fit_lines, units
from tests.webhooks.chat import check_discord, check_slack, discord_size

AT = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def flat_post(i: int, caption: str = "a post") -> dict:
    return {"id": f"pst_{i}", "platform": "youtube", "url": f"https://youtu.be/v{i}",
            "content_type": "short", "caption": caption, "views": 1000 * i + 500,
            "handle": "chan", "display_name": "The Channel", "follower_count": 2_500_000}


def test_clipping_counts_utf16_never_splits_an_emoji_or_leaves_half_an_escape() -> None:
    assert units("🔥a") == 3
    assert clip("🔥🔥🔥", 4) == "🔥…"  # 2 units of emoji + the ellipsis; never half a pair
    assert clip("ab\\*cd", 4) == "ab…"  # the cut would end on a lone backslash
    assert clip("a &amp; b", 5) == "a …"  # nor half an entity
    assert clip("short", 5) == "short" and clip("anything", 0) == ""


def test_lines_that_do_not_fit_are_dropped_whole_with_an_ellipsis() -> None:
    lines = ["<https://a|first>", "<https://b|second>", "<https://c|third>"]
    assert fit_lines(lines, 1000) == "\n".join(lines)
    assert fit_lines(lines, 40) == "<https://a|first>\n<https://b|second>\n…"
    assert fit_lines(lines, 20) == "<https://a|first>\n…"
    assert fit_lines(["x" * 50], 10) == "x" * 9 + "…"


def test_user_text_cannot_ping_or_format_in_discord() -> None:
    assert discord_escape("<@123> **b** # h") == "\\<@123\\> \\*\\*b\\*\\* # h"
    assert discord_escape("# heading\n- item\n> quote") == "\\# heading\n\\- item\n\\> quote"
    msg = body("discord", "evt_1", "webhook.test", AT, {"message": "@everyone <@&42> hi"})
    assert msg["allowed_mentions"] == {"parse": []}
    assert msg["embeds"][0]["description"] == "@everyone \\<@&42\\> hi"


def test_a_long_list_of_new_posts_names_five_and_counts_the_rest() -> None:
    data = {"profileId": "prf_1", "platform": "youtube", "handle": "chan", "newPosts": 120,
            "posts": [flat_post(i, "🔥" * 500) for i in range(100)], "truncated": True}
    slack = body("slack", "evt_1", "tracking.new_posts", AT, data)
    check_slack(slack)
    lines = slack["blocks"][0]["text"]["text"].split("\n")
    assert lines[0] == "*New posts: 120 from @chan*"
    assert lines[1] == "by *The Channel* (*@chan*) on YouTube · 2.5M followers"
    assert len(lines) == 2 + 5 + 1 and lines[-1] == "…and 115 more"
    assert lines[2] == f"• <https://youtu.be/v0|{'🔥' * 99}…> · 500 views"
    discord = body("discord", "evt_1", "tracking.new_posts", AT, data)
    check_discord(discord)
    assert discord["embeds"][0]["description"].split("\n")[-1] == "…and 115 more"
    assert "url" not in discord["embeds"][0]  # several posts: no single link for the title


def test_discord_keeps_to_6000_over_the_embed_when_every_part_is_long() -> None:
    data = {"post": flat_post(1, "x" * 10_000),
            "profile": {"handle": "h" * 300, "display_name": "D" * 300, "url": "https://p"},
            "projection": {f"{'k' * 300}{i}": True for i in range(30)}}
    msg = body("discord", "evt_1", "post.rising", AT, data)
    check_discord(msg)
    embed = msg["embeds"][0]
    assert units(embed["title"]) == 256 and embed["title"].endswith("…")
    assert discord_size(embed) <= 6000 and len(embed["fields"]) < 25  # fields went first
    assert embed["fields"][0] == {"name": "Views", "value": "1.5K", "inline": True}
    check_slack(body("slack", "evt_1", "post.rising", AT, data))


def test_the_standard_format_is_the_envelope_unchanged() -> None:
    data = {"jobRef": "job_1", "nested": {"a": [1, 2]}}
    assert body("standard", "evt_1", "job.completed", AT, data) == {
        "id": "evt_1", "type": "job.completed", "timestamp": "2026-11-25T12:00:00Z", "data": data}


def test_account_events_without_a_shape_of_their_own_read_as_their_values() -> None:
    invoice = {"invoiceId": "in_1", "planId": "pro", "interval": "month", "amountUsd": 49,
               "credits": 5000, "billingReason": "subscription_create",
               "periodStart": "2026-11-01T00:00:00Z", "periodEnd": "2026-12-01T00:00:00Z"}
    msg = body("slack", "evt_1", "invoice.paid", AT, invoice)
    check_slack(msg)
    assert msg["text"] == "Invoice paid"
    assert [f["text"] for f in msg["blocks"][1]["fields"]] == [
        "*Invoice id*\nin_1", "*Plan id*\npro", "*Interval*\nmonth", "*Amount usd*\n$49.00",
        "*Credits*\n5K", "*Billing reason*\nsubscription_create",
        "*Period start*\n2026-11-01T00:00:00Z", "*Period end*\n2026-12-01T00:00:00Z"]
    analysis = {"jobRef": "job_1", "postId": "pst_1", "score": 7.26, "stoodOut": ["hook_question"],
                "summary": "A question in the first second.", "engine": "offline"}
    msg = body("discord", "evt_1", "analysis.completed", AT, analysis)
    check_discord(msg)
    embed = msg["embeds"][0]
    assert embed["title"] == "Analysis ready"
    assert embed["description"] == "A question in the first second."
    assert [(f["name"], f["value"]) for f in embed["fields"]] == [
        ("Job ref", "job\\_1"), ("Post id", "pst\\_1"), ("Score", "7.3×"), ("Engine", "offline"),
        ("Stood out", "Hook question")]

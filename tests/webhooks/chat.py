"""Reading Slack and Discord messages a receiver got: which event each one is, and checks
that a message keeps to its chat's documented shape and limits."""

from __future__ import annotations

from typing import Any

from tests.webhooks.receiver import Receiver


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def at_path(receiver: Receiver, path: str) -> list[Any]:
    with receiver.lock:
        return [r for r in receiver.received if r.path == path]


def by_event(receiver: Receiver, path: str) -> dict[str, dict[str, Any]]:
    """Each message of one endpoint by its `webhook-id` (the event id, shared by every
    format's delivery of the same event)."""
    return {r.id: r.payload for r in at_path(receiver, path)}


def slack_type(msg: dict[str, Any]) -> str:
    return msg["blocks"][-1]["elements"][0]["text"].split(" · ")[1]


def discord_type(msg: dict[str, Any]) -> str:
    return msg["embeds"][0]["footer"]["text"].split(" · ")[1]


def check_slack(msg: dict[str, Any]) -> None:
    """Slack's incoming-webhook shape: `text` and blocks of known types within their
    limits (section text 3000, 10 fields of 2000, 50 blocks)."""
    assert set(msg) == {"text", "blocks"}, msg.keys()
    assert isinstance(msg["text"], str) and 0 < len(msg["text"]) <= 3000
    blocks = msg["blocks"]
    assert 1 <= len(blocks) <= 50
    assert [b["type"] for b in blocks] in (
        ["section", "section", "context"], ["section", "context"])
    assert blocks[0]["text"]["type"] == "mrkdwn" and 0 < utf16(blocks[0]["text"]["text"]) <= 3000
    if len(blocks) == 3:
        fields = blocks[1]["fields"]
        assert 1 <= len(fields) <= 10
        assert all(f["type"] == "mrkdwn" and 0 < utf16(f["text"]) <= 2000 for f in fields)
    [context] = blocks[-1]["elements"]
    assert context["type"] == "mrkdwn" and utf16(context["text"]) <= 2000


def discord_size(embed: dict[str, Any]) -> int:
    return (utf16(embed.get("title", "")) + utf16(embed.get("description", ""))
            + sum(utf16(f["name"]) + utf16(f["value"]) for f in embed.get("fields", []))
            + utf16(embed.get("footer", {}).get("text", "")))


def check_discord(msg: dict[str, Any]) -> None:
    """Discord's execute-webhook shape: content 2000; one embed with title 256,
    description 4096, 25 fields (name 256, value 1024), footer 2048, 6000 in all; and
    no mention can ping anyone."""
    assert set(msg) == {"content", "embeds", "allowed_mentions"}, msg.keys()
    assert msg["allowed_mentions"] == {"parse": []}
    assert 0 < utf16(msg["content"]) <= 2000
    [embed] = msg["embeds"]
    assert set(embed) <= {"title", "url", "description", "fields", "timestamp", "footer", "color"}
    assert 0 < utf16(embed["title"]) <= 256
    assert utf16(embed.get("description", "")) <= 4096
    assert len(embed["fields"]) <= 25
    for f in embed["fields"]:
        assert 0 < utf16(f["name"]) <= 256 and 0 < utf16(f["value"]) <= 1024 and f["inline"] is True
    assert utf16(embed["footer"]["text"]) <= 2048
    assert discord_size(embed) <= 6000
    assert embed["timestamp"].endswith("Z")

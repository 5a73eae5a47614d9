"""The body an endpoint receives, by its `format`: the Standard Webhooks envelope, or the
event as a Slack or Discord incoming-webhook message (`sors.webhooks.render` decides what
the message says; here it is written in each chat's markup and kept within its limits).

Lengths are counted in UTF-16 code units, which is never less than the characters a chat
counts, so a message measured here is never too long there. User text (captions, names,
error messages) is escaped: it cannot format, link or mention anyone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, NotRequired, Required, TypedDict, get_args
from urllib.parse import quote

from sors.events.service import envelope
from sors.kit.clock import isoformat
from sors.webhooks.render import Line, Link, Message, Strong, message
from sors.webhooks.schemas import Format

FORMATS: tuple[str, ...] = get_args(Format)

# Slack: a section's text 3000, a field 2000, 10 fields per section, context text 2000;
# the top-level `text` (the notification) is kept short.
SLACK_SECTION, SLACK_FIELD, SLACK_FIELDS, SLACK_TEXT = 3000, 2000, 10, 300
# Discord: content 2000; per embed title 256, description 4096, 25 fields (name 256, value
# 1024), footer 2048, and 6000 over all of them.
DISCORD_CONTENT, DISCORD_TITLE, DISCORD_DESCRIPTION = 2000, 256, 4096
DISCORD_FIELDS, DISCORD_FIELD_NAME, DISCORD_FIELD_VALUE, DISCORD_TOTAL = 25, 256, 1024, 6000
DISCORD_COLOR = 0x5865F2


def units(text: str) -> int:
    """Length in UTF-16 code units (an emoji counts 2)."""
    return len(text.encode("utf-16-le")) // 2


def clip(text: str, limit: int) -> str:
    """`text` cut to at most `limit` units with an ellipsis; never ends in a lone escape."""
    if units(text) <= limit:
        return text
    if limit < 1:
        return ""
    out, used = [], 0
    for ch in text:
        size = units(ch)
        if used + size > limit - 1:
            break
        out.append(ch)
        used += size
    cut = "".join(out)
    amp = cut.rfind("&", max(0, len(cut) - 6))
    if amp >= 0 and ";" not in cut[amp:]:  # half an entity (`&am`) reads as garbage
        cut = cut[:amp]
    return cut.rstrip("\\") + "…"


def fit_lines(lines: list[str], limit: int) -> str:
    """The lines joined; when too long, whole lines are dropped from the end (markup is
    never cut in half) and an ellipsis line says so. A first line that alone is too long
    is clipped."""
    text = "\n".join(lines)
    if units(text) <= limit:
        return text
    kept = list(lines)
    while len(kept) > 1:
        kept.pop()
        shortened = "\n".join([*kept, "…"])
        if units(shortened) <= limit:
            return shortened
    return clip(lines[0], limit) if lines else ""


def safe_url(url: str) -> str:
    """A URL both chats take inside their link markup: spaces, quotes, pipes, brackets and
    angle brackets percent-encoded (a link cannot break out of its markup)."""
    return quote(url, safe="/:?#@!$&'*+,;=%~.-_")[:2000]


@dataclass(frozen=True)
class Markup:
    """How one chat writes escaped text, bold and links."""

    escape: Callable[[str], str]
    strong: str
    link: Callable[[str, str], str]  # (escaped label, url)

    def line(self, line: Line) -> str:
        out = []
        for span in line:
            if isinstance(span, Link):
                out.append(self.link(self.escape(span.text), span.url))
            elif isinstance(span, Strong):
                out.append(f"{self.strong}{self.escape(span.text)}{self.strong}")
            else:
                out.append(self.escape(span))
        return "".join(out)


# ---- Slack ----------------------------------------------------------------------------------


class SlackText(TypedDict):
    type: Literal["mrkdwn"]
    text: str


class SlackBlock(TypedDict):
    type: Literal["section", "context"]
    text: NotRequired[SlackText]
    fields: NotRequired[list[SlackText]]
    elements: NotRequired[list[SlackText]]


class SlackMessage(TypedDict):
    """An incoming-webhook message: the notification `text`, and its `blocks`."""

    text: str
    blocks: list[SlackBlock]


def slack_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _slack_link(text: str, url: str) -> str:
    return f"<{safe_url(url)}|{text.replace('|', '¦')}>"  # `|` ends a Slack link's label


SLACK = Markup(slack_escape, "*", _slack_link)


def slack(m: Message) -> SlackMessage:
    title = slack_escape(m.title)
    heading = f"*{_slack_link(title, m.url)}*" if m.url else f"*{title}*"
    blocks: list[SlackBlock] = [{"type": "section", "text": {
        "type": "mrkdwn", "text": fit_lines([heading, *map(SLACK.line, m.lines)], SLACK_SECTION),
    }}]
    if m.fields:
        blocks.append({"type": "section", "fields": [
            {"type": "mrkdwn",
             "text": clip(f"*{slack_escape(name)}*\n{slack_escape(value)}", SLACK_FIELD)}
            for name, value in m.fields[:SLACK_FIELDS]
        ]})
    stamp = int(m.occurred_at.timestamp())
    blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": (
        f"sors · {slack_escape(m.event_type)} · "
        f"<!date^{stamp}^{{date_short_pretty}} {{time}}|{isoformat(m.occurred_at)}>"
    )}]})
    return {"text": clip(slack_escape(m.title), SLACK_TEXT), "blocks": blocks}


# ---- Discord --------------------------------------------------------------------------------


class DiscordField(TypedDict):
    name: str
    value: str
    inline: bool


class DiscordFooter(TypedDict):
    text: str


class DiscordEmbed(TypedDict, total=False):
    title: Required[str]
    url: str
    description: str
    fields: list[DiscordField]
    timestamp: str | None
    footer: DiscordFooter
    color: int


class DiscordMentions(TypedDict):
    parse: list[str]


class DiscordMessage(TypedDict):
    """An incoming-webhook message: `content` (the notification) and one embed."""

    content: str
    embeds: list[DiscordEmbed]
    allowed_mentions: DiscordMentions

_DISCORD_MARKUP = re.compile(r"([\\*_~`|<>\[\]])|^([#>-])", re.MULTILINE)


def discord_escape(text: str) -> str:
    """Backslash before each character Discord's markdown would read (an escaped character
    renders as itself): emphasis, code, spoilers, links, mentions written as `<@…>`, and
    headings, quotes or lists at the start of a line."""
    return _DISCORD_MARKUP.sub(lambda mt: "\\" + (mt.group(1) or mt.group(2)), text)


def _discord_link(text: str, url: str) -> str:
    return f"[{text}]({safe_url(url)})"


DISCORD = Markup(discord_escape, "**", _discord_link)


def _embed_size(embed: DiscordEmbed) -> int:
    fields = embed.get("fields", [])
    return (units(embed["title"]) + units(embed.get("description", ""))
            + sum(units(f["name"]) + units(f["value"]) for f in fields)
            + units(embed.get("footer", {"text": ""})["text"]))


def discord(m: Message) -> DiscordMessage:
    lines = [DISCORD.line(line) for line in m.lines]
    embed: DiscordEmbed = {"title": clip(m.title, DISCORD_TITLE)}
    if m.url:
        embed["url"] = safe_url(m.url)
    embed["description"] = fit_lines(lines, DISCORD_DESCRIPTION)
    embed["fields"] = [
        {"name": clip(discord_escape(name), DISCORD_FIELD_NAME),
         "value": clip(discord_escape(value), DISCORD_FIELD_VALUE) or "—", "inline": True}
        for name, value in m.fields[:DISCORD_FIELDS]
    ]
    embed["timestamp"] = isoformat(m.occurred_at)
    embed["footer"] = {"text": f"sors · {m.event_type}"[:200]}
    embed["color"] = DISCORD_COLOR
    # Within 6000 over the embed: fields go first (from the end), then description lines.
    while _embed_size(embed) > DISCORD_TOTAL and embed["fields"]:
        embed["fields"].pop()
    if _embed_size(embed) > DISCORD_TOTAL:
        room = DISCORD_TOTAL - (_embed_size(embed) - units(embed["description"]))
        embed["description"] = fit_lines(lines, max(0, room))
    if not embed["description"]:
        del embed["description"]
    return {
        "content": clip(discord_escape(m.title), DISCORD_CONTENT),
        "embeds": [embed],
        # Nothing in an event may ping a person, a role or everyone.
        "allowed_mentions": {"parse": []},
    }


_WRITERS: dict[str, Callable[[Message], Mapping[str, object]]] = {
    "slack": slack, "discord": discord,
}
assert {"standard", *_WRITERS} == set(FORMATS)  # every format the API accepts has a writer


def body(format_: str, event_id: str, type_: str, occurred_at: datetime,
         data: Mapping[str, Any]) -> Mapping[str, object]:
    """What an endpoint of `format_` receives for this event."""
    if format_ == "standard":
        return envelope(event_id, type_, occurred_at, dict(data))
    return _WRITERS[format_](message(event_id, type_, occurred_at, data))

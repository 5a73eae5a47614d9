"""An event as a chat message, independent of the chat: a title, a link, lines of text made
of plain text, bold and link spans, and labelled numbers. `sors.webhooks.formats` writes it
as Slack's or Discord's own payload.

The message is chosen by the payload's shape, not by the event type: an event carrying a
`post` (and optionally a `profile`) is a post card whatever its type, one carrying `posts`
a list of posts, `changes` a list of changes, a job record a job line, a balance and a
ledger entry a credits line. The type only picks the title, so an event added later with a
known shape renders without code here; anything else gets a generic message with its plain
values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sors.kit.numbers import compact, multiple, usd


@dataclass(frozen=True)
class Strong:
    text: str


@dataclass(frozen=True)
class Link:
    text: str
    url: str


Span = str | Strong | Link
Line = tuple[Span, ...]


@dataclass
class Message:
    event_id: str
    event_type: str
    occurred_at: datetime
    title: str
    url: str | None = None  # where the title leads (the post on its platform)
    lines: list[Line] = field(default_factory=list)
    fields: list[tuple[str, str]] = field(default_factory=list)  # (label, value)


TITLES = {
    "alert.triggered": "Viral alert",
    "post.rising": "Rising post",
    "tracking.new_posts": "New posts",
    "tracking.paused": "Monitoring paused",
    "post.changed": "Post changed",
    "job.completed": "Job completed",
    "job.failed": "Job failed",
    "credits.low": "Credits low",
    "credits.added": "Credits added",
    "subscription.updated": "Subscription updated",
    "invoice.paid": "Invoice paid",
    "analysis.completed": "Analysis ready",
    "webhook.test": "Test event from sors",
}
PLATFORMS = {"tiktok": "TikTok", "instagram": "Instagram", "youtube": "YouTube"}
CAPTION_CHARS = 280  # of a post's caption in a card; lists show less
LIST_CAPTION_CHARS = 100
LISTED = 5  # posts or changes named in a list message; the rest are counted


def title_of(type_: str) -> str:
    return TITLES.get(type_) or type_.replace(".", " ").replace("_", " ").capitalize()


def excerpt(text: str | None, limit: int) -> str:
    """The first `limit` characters of `text` on one line, cut at a word when it can be."""
    flat = " ".join((text or "").split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    if " " in cut[limit // 2:]:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(",;:-–— ") + "…"


def label(key: str) -> str:
    """`creditsRefunded` / `credits_refunded` → `Credits refunded`."""
    words: list[str] = []
    for part in key.replace("_", " ").split():
        word = ""
        for ch in part:
            if ch.isupper() and word:
                words.append(word)
                word = ""
            word += ch
        words.append(word)
    return " ".join(words).lower().capitalize()


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def plain_value(v: Any, key: str = "") -> str | None:
    """A scalar as text (numbers compact; a score or a `vs…` ratio as a multiple, `…Usd` in
    dollars), None for what is not worth a field."""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if _number(v) and ("score" in key.lower() or key.startswith("vs")):
        return multiple(v)
    if _number(v) and key.endswith("Usd"):
        return usd(v)
    if _number(v):
        return compact(v) if abs(v) >= 1000 else (f"{v:g}" if isinstance(v, float) else str(v))
    if isinstance(v, str) and v:
        return excerpt(v, 200)
    return None


def scalar_fields(data: Mapping[str, Any], skip: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    out = []
    for key, v in data.items():
        if key in skip:
            continue
        shown = plain_value(v, key)
        if shown is not None:
            out.append((label(key), shown))
    return out


# ---- posts ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Creator:
    """Who posted, as far as the event says (any of it may be missing)."""

    handle: Any
    display_name: Any
    follower_count: Any
    url: Any
    platform: Any


def _creator(post: Mapping[str, Any], profile: Mapping[str, Any] | None) -> Creator:
    """Who posted: the event's `profile`, else the post record's nested one, else the
    flattened post's own columns."""
    nested = profile or post.get("profile") or {}

    def pick(key: str) -> Any:
        return nested.get(key) if nested.get(key) is not None else post.get(key)

    return Creator(handle=pick("handle"), display_name=pick("display_name"),
                   follower_count=pick("follower_count"), url=nested.get("url"),
                   platform=pick("platform"))


def creator_line(post: Mapping[str, Any], profile: Mapping[str, Any] | None) -> Line:
    who = _creator(post, profile)
    handle = f"@{who.handle}" if who.handle else "an unknown creator"
    name: Span = Link(handle, who.url) if who.url else Strong(handle)
    spans: list[Span] = ["by "]
    if who.display_name and who.display_name != who.handle:
        spans += [Strong(excerpt(who.display_name, 80)), " (", name, ")"]
    else:
        spans.append(name)
    platform = PLATFORMS.get(who.platform or "", who.platform)
    if platform:
        spans.append(f" on {platform}")
    if _number(who.follower_count):
        spans.append(f" · {compact(who.follower_count)} followers")
    return tuple(spans)


def post_fields(post: Mapping[str, Any], data: Mapping[str, Any]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for key, name in (("views", "Views"), ("likes", "Likes"), ("comments", "Comments"),
                      ("shares", "Shares")):
        if _number(post.get(key)):
            out.append((name, compact(post[key])))
    score = data.get("outlierScore")
    window = (data.get("alert") or {}).get("scoreWindow")
    if not _number(score):
        window, score = "three_months", (post.get("outlier_scores") or {}).get("three_months")
    if _number(score):
        out.append((f"Outlier score ({label(window).lower()})" if window else "Outlier score",
                    multiple(score)))
    age = (post.get("age_adjusted_score") or {}).get("score")
    if _number(age):
        out.append(("Vs same age", multiple(age)))
    if _number(post.get("velocity")):
        out.append(("Views per hour", compact(post["velocity"])))
    if _number(post.get("engagement_rate")):
        out.append(("Engagement", f"{post['engagement_rate'] * 100:.1f}%"))
    return out


def _post_link(post: Mapping[str, Any], limit: int) -> Span:
    text = excerpt(post.get("caption"), limit) or f"{label(post.get('content_type') or 'post')}"
    return Link(text, post["url"]) if post.get("url") else text


def _post_card(m: Message, data: Mapping[str, Any]) -> Message:
    post = data["post"]
    profile = data.get("profile") if isinstance(data.get("profile"), Mapping) else None
    who = _creator(post, profile)
    m.lines.append((_post_link(post, CAPTION_CHARS),))
    m.lines.append(creator_line(post, profile))
    m.fields.extend(post_fields(post, data))
    # The event's own numbers (a projection, a percentile) beside the post's.
    skip = ("post", "profile", "alert", "outlierScore")
    for key, v in data.items():
        if key in skip:
            continue
        if isinstance(v, Mapping):
            m.fields.extend((f"{label(key)}: {label(k).lower()}", plain_value(x, k) or "")
                            for k, x in v.items() if _number(x) or isinstance(x, bool))
        elif _number(v) or isinstance(v, bool):
            m.fields.append((label(key), plain_value(v, key) or ""))
    subject = f"@{who.handle}" if who.handle else "a post"
    m.title, m.url = f"{title_of(m.event_type)}: {subject}", post.get("url")
    return m


def _posts_list(m: Message, data: Mapping[str, Any]) -> Message:
    posts = [p for p in data["posts"] if isinstance(p, Mapping)]
    total = data.get("newPosts") if _number(data.get("newPosts")) else len(posts)
    handle = data.get("handle") or (posts[0].get("handle") if posts else None)
    lead = posts[0] if posts else {}
    if lead:
        m.lines.append(creator_line(lead, None))
    for p in posts[:LISTED]:
        stats = f" · {compact(p['views'])} views" if _number(p.get("views")) else ""
        m.lines.append(("• ", _post_link(p, LIST_CAPTION_CHARS), stats))
    if total > min(len(posts), LISTED):
        m.lines.append((f"…and {compact(total - min(len(posts), LISTED))} more",))
    m.fields.append(("Posts", compact(total)))
    subject = f"{compact(total)} from @{handle}" if handle else compact(total)
    m.title = f"{title_of(m.event_type)}: {subject}"
    m.url = lead.get("url") if len(posts) == 1 else None
    return m


def _changes_list(m: Message, data: Mapping[str, Any]) -> Message:
    changes = [c for c in data["changes"] if isinstance(c, Mapping)]
    for c in changes[:LISTED]:
        what = label(str(c.get("field") or "post"))
        target: Span = Link(f"{what} changed", c["url"]) if c.get("url") else f"{what} changed"
        line: list[Span] = ["• ", target]
        if c.get("field") in ("caption", "title"):
            line += [": “", excerpt(c.get("before"), LIST_CAPTION_CHARS), "” → “",
                     excerpt(c.get("after"), LIST_CAPTION_CHARS), "”"]
        m.lines.append(tuple(line))
    if len(changes) > LISTED:
        m.lines.append((f"…and {len(changes) - LISTED} more",))
    m.fields.append(("Changes", compact(len(changes))))
    handle = data.get("handle")
    platform = PLATFORMS.get(data.get("platform") or "", data.get("platform"))
    subject = f"@{handle}" + (f" on {platform}" if platform else "") if handle else "a post"
    url = changes[0].get("url") if len(changes) == 1 else None
    m.title, m.url = f"{title_of(m.event_type)}: {subject}", url
    return m


# ---- account events ---------------------------------------------------------------------


def _job(m: Message, data: Mapping[str, Any]) -> Message:
    error = data.get("error")
    if isinstance(error, Mapping) and error.get("message"):
        m.lines.append((Strong("Error:"), " ", excerpt(str(error["message"]), 500)))
    m.fields.append(("Job", str(data["jobRef"])))
    for key in ("creditsCharged", "creditsRefunded"):
        if _number(data.get(key)) and data[key]:
            m.fields.append((label(key), compact(data[key])))
    result = data.get("result")
    if isinstance(result, Mapping):
        m.fields.extend(scalar_fields(result))
    m.title, m.url = f"{title_of(m.event_type)}: {data.get('type') or 'job'}", None
    return m


def _credits(m: Message, data: Mapping[str, Any]) -> Message:
    entry = data.get("entry") if isinstance(data.get("entry"), Mapping) else {}
    balance = data["balance"]
    m.fields.append(("Balance", f"{compact(balance)} credits"))
    if _number(data.get("balanceUsd")):
        m.fields.append(("Worth", usd(data["balanceUsd"])))
    if _number(data.get("threshold")):
        m.lines.append((f"The balance fell below {compact(data['threshold'])} credits.",))
        m.fields.append(("Threshold", compact(data["threshold"])))
    if _number(entry.get("credits")):
        sign = "+" if entry["credits"] > 0 else ""
        reason = entry.get("reason") or entry.get("kind") or "entry"
        m.lines.append(("Last entry: ", Strong(f"{sign}{compact(entry['credits'])}"),
                        f" ({excerpt(str(reason), 200)})"))
    m.title, m.url = f"{title_of(m.event_type)}: {compact(balance)} credits", None
    return m


def _generic(m: Message, data: Mapping[str, Any]) -> Message:
    text = data.get("summary") or data.get("message")
    if isinstance(text, str) and text:
        m.lines.append((excerpt(text, 1000),))
    m.fields.extend(scalar_fields(data, skip=("summary", "message")))
    lists = {k: v for k, v in data.items() if isinstance(v, list) and v
             and all(isinstance(i, str | int | float) for i in v)}
    for key, v in lists.items():  # analysis.completed's `stoodOut`
        m.fields.append((label(key), excerpt(", ".join(label(str(i)) for i in v), 500)))
    m.title, m.url = title_of(m.event_type), None
    return m


Shape = tuple[Callable[[Mapping[str, Any]], bool], Callable[[Message, Mapping[str, Any]], Message]]
SHAPES: tuple[Shape, ...] = (
    (lambda d: isinstance(d.get("post"), Mapping), _post_card),
    (lambda d: isinstance(d.get("posts"), list), _posts_list),
    (lambda d: isinstance(d.get("changes"), list), _changes_list),
    (lambda d: bool(d.get("jobRef")) and "status" in d and "result" in d, _job),
    (lambda d: _number(d.get("balance")), _credits),
)


def message(event_id: str, type_: str, occurred_at: datetime, data: Mapping[str, Any]) -> Message:
    m = Message(event_id, type_, occurred_at, title_of(type_))
    for matches, build in SHAPES:
        if matches(data):
            return build(m, data)
    return _generic(m, data)

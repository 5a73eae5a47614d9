"""Files a team already holds → snapshots, for `sors import`: Apify dataset exports (JSON
array or JSONL) of the TikTok, Instagram and YouTube actors, yt-dlp `.info.json` files (a
video, or a channel tab's playlist), and YouTube Data API `videos.list` / `channels.list`
answers. Comments come with them where a file carries some (an Instagram post's
`latestComments`, a video's yt-dlp `comments`) and from comment files: Apify's TikTok and
Instagram comment actors, the Data API's `commentThreads.list` answers.

Strict where it matters: a file that is not JSON, of no known format, or with a record that
lacks what a post needs (its id, its publication time, its creator) is refused whole, naming
the file, the record and the field. Records that are not posts (an actor's error items) are
skipped with their reason. Pure: nothing here touches the database or the network.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sors.platforms.base import (
    CommentSnapshot,
    CrawlSnapshot,
    PostSnapshot,
    ProfileSnapshot,
    platform_of,
)
from sors.platforms.handles import InvalidHandle, normalize_handle
from sors.platforms.live.api.comments import thread_comments
from sors.platforms.live.api.mapping import map_api_channel, map_api_video
from sors.platforms.live.apify import comments as apify_comments
from sors.platforms.live.apify import mapping as apify_map
from sors.platforms.live.common import from_timestamp, get_path, parse_rfc3339, to_int
from sors.platforms.live.web.tiktok_map import POST_ID_RE, map_tiktok_post
from sors.platforms.live.web.youtube_map import map_ytdlp_channel, map_ytdlp_video
from sors.platforms.live.web.ytdlp_comments import ytdlp_comments

COMMENT_FORMATS = ("apify-tiktok-comments", "apify-instagram-comments",
                   "youtube-api-comment-threads")
FORMATS = ("apify-tiktok", "apify-instagram", "apify-youtube", "ytdlp",
           "youtube-api-videos", "youtube-api-channels", *COMMENT_FORMATS)
# Fields an Apify item may carry its capture time in (the newest one is the file's time).
_CAPTURE_KEYS = ("scrapedAt", "scrapeTime", "crawledAt", "fetchedAt", "collectedAt")


class ImportFileError(Exception):
    """A file that cannot be imported; nothing of it is."""

    def __init__(self, path: Path, message: str, *, record: int | None = None,
                 field: str | None = None) -> None:
        where = "".join((f", record {record}" if record is not None else "",
                         f", field {field!r}" if field else ""))
        super().__init__(f"{path}{where}: {message}")
        self.path, self.record, self.field, self.reason = path, record, field, message


@dataclass
class ParsedFile:
    path: Path
    format: str
    observed_at: datetime
    observed_from: str  # "file" (a capture time it carries) or "--observed-at"
    snapshots: list[CrawlSnapshot]
    records: int
    skipped: list[str] = field(default_factory=list)  # reasons, one per skipped record
    comments: list[CommentSnapshot] = field(default_factory=list)


def read_json(path: Path) -> Any:
    """A JSON document, or JSONL (one JSON value per line) as a list."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ImportFileError(path, f"not UTF-8 text (byte {exc.start})") from exc
    except OSError as exc:
        raise ImportFileError(path, f"cannot be read: {exc.strerror}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as first:
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) < 2:
            raise _broken(path, first) from first
        out = []
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                if n == 1:  # not JSONL either: report the document's own error
                    raise _broken(path, first) from first
                raise ImportFileError(path, f"line {n} is not JSON ({exc.msg}, column "
                                            f"{exc.colno}); the file may be truncated") from exc
        return out


def _broken(path: Path, exc: json.JSONDecodeError) -> ImportFileError:
    return ImportFileError(path, f"not valid JSON: {exc.msg} at line {exc.lineno}, column "
                                 f"{exc.colno} (character {exc.pos}); the file may be truncated")


def detect(data: Any) -> str | None:
    """The format of a parsed file, from the shape of its first records."""
    if isinstance(data, Mapping):
        kind = data.get("kind")
        if kind == "youtube#videoListResponse":
            return "youtube-api-videos"
        if kind == "youtube#channelListResponse":
            return "youtube-api-channels"
        if kind == "youtube#commentThreadListResponse":
            return "youtube-api-comment-threads"
        if data.get("extractor_key") or data.get("extractor") or data.get("_type") == "playlist":
            return "ytdlp"
        return None
    if not isinstance(data, list) or not data:
        return None
    sample = [i for i in data[:20] if isinstance(i, Mapping) and not apify_map.item_error(i)]
    for item in sample:
        if apify_comments.is_tiktok_comment(item):
            return "apify-tiktok-comments"
        if apify_comments.is_instagram_comment(item):
            return "apify-instagram-comments"
        if "authorMeta" in item or "webVideoUrl" in item:
            return "apify-tiktok"
        if "shortCode" in item or "ownerUsername" in item or "latestPosts" in item:
            return "apify-instagram"
        if "channelName" in item or "numberOfSubscribers" in item:
            return "apify-youtube"
        if "extractor_key" in item:
            return "ytdlp"
    return None


def parse_file(path: Path, *, format: str | None = None, observed_at: datetime | None = None,
               channels: Mapping[str, ProfileSnapshot] | None = None) -> ParsedFile:
    """`channels`: YouTube channels already read (from `channels.list` answers given in the
    same import), by channel id: `videos.list` items name their channel only by id."""
    data = read_json(path)
    found = detect(data)
    if format is None:
        if found is None:
            raise ImportFileError(path, "not a format sors can import (" + ", ".join(FORMATS)
                                  + "); pass --format if it is one of them")
        format = found
    elif format not in FORMATS:
        raise ImportFileError(path, f"unknown format {format!r}")
    records = data if isinstance(data, list) else [data]
    carried = _capture_time(format, data)
    if carried is not None:
        when, source = carried, "file"
    elif observed_at is not None:
        when, source = observed_at, "--observed-at"
    else:
        raise ImportFileError(path, "the file carries no capture time: say when it was "
                                    "captured with --observed-at (ISO 8601)")
    parsed = ParsedFile(path, format, when, source, [], len(records))
    if format in COMMENT_FORMATS:
        parsed.comments = _comments_of(format, data)
        if len(parsed.comments) < len(records) and format != "youtube-api-comment-threads":
            parsed.skipped.append(f"{len(records) - len(parsed.comments)} record(s) are no "
                                  "comment (no id, post or text)")
        return parsed
    _PARSERS[format](parsed, data, dict(channels or {}))
    return parsed


def _comments_of(format: str, data: Any) -> list[CommentSnapshot]:
    if format == "youtube-api-comment-threads":
        return thread_comments(data) if isinstance(data, Mapping) else []
    if not isinstance(data, list):
        return []
    return apify_comments.comments_of(i for i in data if isinstance(i, Mapping))


def _capture_time(format: str, data: Any) -> datetime | None:
    if format in COMMENT_FORMATS:
        # A comment file carries no capture time, but it was captured after its newest
        # comment: comments are kept as written, not as time series.
        times = [c.published_at for c in _comments_of(format, data) if c.published_at]
        return max(times) if times else None
    if format == "ytdlp":
        return from_timestamp(data.get("epoch")) if isinstance(data, Mapping) else None
    if format.startswith("apify-") and isinstance(data, list):
        return apify_map.latest_time(data, *_CAPTURE_KEYS)
    return None


# ---- Apify exports -----------------------------------------------------------------------

_REQUIRED = {
    # format -> (field path, check) that every post record must pass
    "apify-tiktok": (("id", lambda v: POST_ID_RE.match(str(v or "")) is not None),
                     ("createTimeISO|createTime", lambda v: v is not None),
                     ("authorMeta.name", lambda v: bool(v))),
    "apify-instagram": (("shortCode", lambda v: isinstance(v, str) and bool(v)),
                        ("timestamp", lambda v: parse_rfc3339(v) is not None),
                        ("ownerUsername", lambda v: bool(v))),
    "apify-youtube": (("id", lambda v: isinstance(v, str) and bool(v)),
                      ("date", lambda v: parse_rfc3339(v) is not None)),
}
_COUNTS = {
    "apify-tiktok": ("playCount", "diggCount", "commentCount", "shareCount", "collectCount"),
    "apify-instagram": ("likesCount", "commentsCount", "videoViewCount", "videoPlayCount"),
    "apify-youtube": ("viewCount", "likes", "commentsCount"),
}


def _lookup(item: Mapping[str, Any], path: str) -> Any:
    for alternative in path.split("|"):
        value = get_path(item, *alternative.split("."))
        if value is not None:
            return value
    return None


def _check_record(parsed: ParsedFile, n: int, item: Any) -> bool:
    """Whether record `n` is a post to import (False: skipped, with its reason); raises when
    it is a post record missing what a post needs."""
    if not isinstance(item, Mapping):
        raise ImportFileError(parsed.path, "not a JSON object", record=n)
    error = apify_map.item_error(item)
    if error is not None:
        parsed.skipped.append(f"record {n}: the actor reported an error: {error}")
        return False
    if parsed.format == "apify-instagram" and "latestPosts" in item:
        return True  # a profile (`details`) record: its posts are checked as they map
    for path, ok in _REQUIRED[parsed.format]:
        if not ok(_lookup(item, path)):
            raise ImportFileError(parsed.path, "missing or invalid", record=n, field=path)
    for name in _COUNTS[parsed.format]:
        value = item.get(name)
        if value is not None and to_int(value) is None and not _negative(value):
            raise ImportFileError(parsed.path, f"not a count: {value!r}", record=n, field=name)
    return True


def _negative(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value < 0


def _parse_apify(parsed: ParsedFile, data: Any, _channels: Mapping[str, Any]) -> None:
    if not isinstance(data, list):
        raise ImportFileError(parsed.path, "an Apify export is a list of items")
    platform = parsed.format.removeprefix("apify-")
    items = [item for n, item in enumerate(data, start=1) if _check_record(parsed, n, item)]
    groups = apify_map.groups(platform_of(platform), items)
    if platform == "instagram":  # post items carry their latest comments
        posts = [p for i in items for p in (i.get("latestPosts") or [i]) if isinstance(p, Mapping)]
        parsed.comments = [c for p in posts for c in apify_comments.instagram_post_comments(p)]
    mapped = sum(len(g.posts) for g in groups)
    posts_in = sum(len(i.get("latestPosts") or ()) if "latestPosts" in i else 1 for i in items)
    if mapped < posts_in:
        parsed.skipped.append(f"{posts_in - mapped} post record(s) name no creator sors can "
                              "key them by (e.g. a YouTube channel without an @handle)")
    for g in groups:
        try:
            handle = normalize_handle(g.profile.platform, g.profile.handle)
        except InvalidHandle:
            parsed.skipped.append(f"{len(g.posts)} post(s) of @{g.profile.handle}: not a "
                                  f"{g.profile.platform} handle sors can store")
            continue
        profile = dataclasses.replace(g.profile, handle=handle)
        parsed.snapshots.append(_snapshot(profile, g.posts, parsed.observed_at))


def _snapshot(profile: ProfileSnapshot, posts: Sequence[PostSnapshot], at: datetime
              ) -> CrawlSnapshot:
    # An export is not known to be a complete listing: nothing is judged deleted from it.
    # A post listed twice (exports of overlapping runs) counts once.
    unique = list({p.platform_post_id: p for p in reversed(posts)}.values())[::-1]
    return CrawlSnapshot(profile=profile, posts=unique, fetched_at=at,
                         listing_complete=False, source="import")


# ---- yt-dlp ------------------------------------------------------------------------------


def _ytdlp_profile(info: Mapping[str, Any], platform: str) -> ProfileSnapshot | None:
    if platform == "youtube":
        for key in ("uploader_id", "uploader_url", "channel_url"):
            value = str(info.get(key) or "")
            if "@" in value:
                handle = value.rsplit("@", 1)[1].strip("/").lower()
                channel = map_ytdlp_channel(info, handle)
                # A video's info describes the video: its description is not the channel's.
                return channel if info.get("_type") == "playlist" else dataclasses.replace(
                    channel, bio=None, avatar_url=None)
        return None
    handle = str(info.get("uploader") or "").lower()
    if not handle:
        return None
    return ProfileSnapshot(platform="tiktok", handle=handle,
                           platform_user_id=str(info.get("uploader_id") or "") or None,
                           display_name=info.get("channel") or None, bio=None, avatar_url=None,
                           follower_count=to_int(info.get("channel_follower_count")),
                           url=f"https://www.tiktok.com/@{handle}")


def _parse_ytdlp(parsed: ParsedFile, data: Any, _channels: Mapping[str, Any]) -> None:
    if not isinstance(data, Mapping):
        raise ImportFileError(parsed.path, "a yt-dlp .info.json file is one JSON object")
    extractor = str(data.get("extractor_key") or data.get("extractor") or "").lower()
    platform = "youtube" if extractor.startswith("youtube") else (
        "tiktok" if extractor.startswith("tiktok") else None)
    if platform is None:
        raise ImportFileError(parsed.path, f"yt-dlp extractor {extractor!r} is not YouTube or "
                                           "TikTok", field="extractor_key")
    entries = data.get("entries") if data.get("_type") == "playlist" else [data]
    profile = _ytdlp_profile(data, platform)
    if profile is None:
        raise ImportFileError(parsed.path, "no creator handle (an @handle in uploader_id, "
                                           "uploader_url or channel_url)", field="uploader_id")
    tab = str(data.get("webpage_url") or "").rstrip("/").rsplit("/", 1)[-1]
    posts: list[PostSnapshot] = []
    for n, entry in enumerate(entries or (), start=1):
        if not isinstance(entry, Mapping):
            raise ImportFileError(parsed.path, "not a JSON object", record=n, field="entries")
        post = (map_ytdlp_video(entry, tab=tab if tab in ("shorts", "streams") else None)
                if platform == "youtube" else map_tiktok_post(entry, handle=profile.handle))
        if post is None:
            parsed.skipped.append(f"entry {n}: no id or publication time ({entry.get('id')})")
            continue
        posts.append(post)
        parsed.comments.extend(ytdlp_comments(entry, platform_of(platform)))
    parsed.records = len(entries or ())
    parsed.snapshots.append(_snapshot(profile, posts, parsed.observed_at))


# ---- YouTube Data API --------------------------------------------------------------------


def channel_profiles(data: Mapping[str, Any], path: Path) -> dict[str, ProfileSnapshot]:
    """A channels.list answer's channels by id (their handle from `snippet.customUrl`)."""
    out: dict[str, ProfileSnapshot] = {}
    for n, item in enumerate(data.get("items") or (), start=1):
        # "@handle" since 2022; older answers give the custom URL's name without the "@".
        custom = str(get_path(item, "snippet", "customUrl") or "").removeprefix("@").lower()
        if not custom or not item.get("id"):
            raise ImportFileError(path, "a channel without an @handle", record=n,
                                  field="snippet.customUrl")
        out[item["id"]] = map_api_channel(item, custom)
    return out


def _parse_api_channels(parsed: ParsedFile, data: Any, _channels: Mapping[str, Any]) -> None:
    for profile in channel_profiles(data, parsed.path).values():
        parsed.snapshots.append(_snapshot(profile, [], parsed.observed_at))
    parsed.records = len(data.get("items") or ())


def _parse_api_videos(parsed: ParsedFile, data: Any, channels: Mapping[str, Any]) -> None:
    by_channel: dict[str, list[PostSnapshot]] = {}
    items = list(data.get("items") or ())
    for n, item in enumerate(items, start=1):
        channel = get_path(item, "snippet", "channelId")
        if channel not in channels:
            raise ImportFileError(
                parsed.path, f"channel {channel} is not in any channels.list answer of this "
                "import: import the channels.list answer with it (it gives the @handle)",
                record=n, field="snippet.channelId")
        try:
            post = map_api_video(item)
        except (KeyError, ValueError) as exc:
            raise ImportFileError(parsed.path, str(exc), record=n, field="snippet.publishedAt"
                                  ) from exc
        by_channel.setdefault(channel, []).append(post)
    parsed.records = len(items)
    for channel, posts in by_channel.items():
        parsed.snapshots.append(_snapshot(channels[channel], posts, parsed.observed_at))


_PARSERS: dict[str, Callable[[ParsedFile, Any, Mapping[str, Any]], None]] = {
    "apify-tiktok": _parse_apify,
    "apify-instagram": _parse_apify,
    "apify-youtube": _parse_apify,
    "ytdlp": _parse_ytdlp,
    "youtube-api-videos": _parse_api_videos,
    "youtube-api-channels": _parse_api_channels,
}

"""Plumbing shared by the live platforms: failure classification, time and number parsing,
and the completeness of a listing.

Everything here is pure, so the rules that turn a platform's refusal into a typed failure are
tested without a network.
"""

from __future__ import annotations

import email.utils
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from sors.platforms import urls
from sors.platforms.base import (
    Blocked,
    PlatformError,
    PostNotFound,
    PostSnapshot,
    ProfileNotFound,
    ProfilePrivate,
    RateLimited,
    TransientError,
)

Subject = Literal["profile", "post"]


# ---- public URLs of what a source sent (the one builder: sors.platforms.urls) ------------


def post_url_of(platform: str, handle: str | None, post_id: str, content_type: str) -> str | None:
    """The post's canonical URL; None when the source's ids do not make one (a post id or
    an owner the platform cannot have): such a post is not kept."""
    try:
        return urls.post_url(platform, handle, post_id, content_type)
    except ValueError:
        return None


def profile_url_of(platform: str, handle: str) -> str | None:
    """The profile's canonical URL; None for a handle the platform cannot have."""
    try:
        return urls.profile_url(platform, handle)
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class FailureInfo:
    """What we could learn about one failed request, whatever library made it."""

    message: str
    status: int | None = None  # HTTP status, when known
    retry_after: float | None = None  # seconds, from a Retry-After header
    network: bool = False  # a transport failure: DNS, connect, TLS, timeout
    # What the library only warned about on the way (yt-dlp swallows some failed requests,
    # e.g. TikTok's profile page, and fails later with a vaguer message).
    warnings: tuple[str, ...] = ()


# Lower-case fragments of the messages yt-dlp, instaloader and the platforms use. Order of the
# checks matters: Instagram says "rate-limit reached or login required" for one condition.
_RATE_LIMIT = (
    "http error 429",
    "429 too many requests",
    "too many requests",
    "rate-limit",
    "rate limit",
    "ratelimit",
    "try again later",
    "please wait a few minutes",
    "quota",
)
_GONE = (
    "http error 404",
    "http error 410",
    "404 not found",
    "not found",
    "does not exist",
    "doesn't exist",
    "video unavailable",
    "this video is unavailable",
    "video not available",
    "has been removed",
    "been deleted",
    "removed by the uploader",
    "has been terminated",
    "no longer available",
    "isn't available anymore",
)
# A private account is there, only not public: never taken for a gone one.
_PRIVATE = (
    "private video",
    "video is private",
    "account is private",
    "private account",
    "private profile",
    "is private but not followed",
    "likely either private",
    "permission to view this post",
    "only available for registered users who follow",
)
_BLOCKED = (
    "http error 403",
    "http error 401",
    "http error 451",
    "forbidden",
    "not a bot",
    "captcha",
    "login required",
    "requiring login",
    "log in for access",
    "log into",
    "sign in to confirm",
    "use --cookies",
    "--cookies-from-browser",
    "registered users",
    "ip address is blocked",
    "checkpoint_required",
    "challenge_required",
    "feedback_required",
    "login page",
    "not granting access",
    "geo restriction",
    "not available from your location",
    "age-restricted",
    "confirm your age",
)
_TRANSIENT = (
    "http error 5",
    "timed out",
    "timeout",
    "temporary failure",
    "name resolution",
    "name or service not known",
    "failed to resolve",
    "unable to download",
    "connection",
    "remote end closed",
    "reset by peer",
    "ssl",
    "incomplete read",
    "network is unreachable",
    "bad gateway",
    "service unavailable",
    "internal server error",
)


def not_found(subject: Subject, message: str) -> PlatformError:
    return ProfileNotFound(message) if subject == "profile" else PostNotFound(message)


def from_http_status(
    status: int, *, subject: Subject, message: str = "", retry_after: float | None = None
) -> PlatformError:
    """The typed failure for an HTTP status from one of the platforms' own hosts."""
    text = message or f"HTTP {status}"
    if status == 429:
        return RateLimited(text, retry_after=retry_after)
    if status in (404, 410):
        return not_found(subject, text)
    if status in (401, 403, 451):
        return Blocked(text)
    if status in (408, 425) or status >= 500:
        return TransientError(text, retry_after=retry_after)
    return PlatformError(text)


def known_failure(info: FailureInfo, *, subject: Subject) -> PlatformError | None:
    """The typed failure when the status or the words say which; None when they do not."""
    text = info.message.lower()
    message = info.message.strip() or "platform request failed"
    if info.status == 429 or any(k in text for k in _RATE_LIMIT):
        return RateLimited(message, retry_after=info.retry_after)
    if any(k in text for k in _PRIVATE):
        return ProfilePrivate(message) if subject == "profile" else PostNotFound(message)
    if info.status in (404, 410) or any(k in text for k in _GONE):
        return not_found(subject, message)
    if info.status in (401, 403, 451) or any(k in text for k in _BLOCKED):
        return Blocked(message)
    if info.network or (info.status is not None and info.status >= 500):
        return TransientError(message, retry_after=info.retry_after)
    if any(k in text for k in _TRANSIENT):
        return TransientError(message, retry_after=info.retry_after)
    return None


def classify_failure(info: FailureInfo, *, subject: Subject) -> PlatformError:
    """Map a failure to the typed failures of base.py by its status and its words.

    Unknown failures count as transient: the job engine retries them a bounded number of
    times, which is right for an extractor hiccup and harmless for a real breakage.
    """
    known = known_failure(info, subject=subject)
    if known is not None:
        return known
    return TransientError(
        info.message.strip() or "platform request failed", retry_after=info.retry_after
    )


def failure_from_warnings(info: FailureInfo, *, subject: Subject) -> PlatformError | None:
    """A rate limit or network failure that the library only warned about."""
    for warning in info.warnings:
        known = known_failure(FailureInfo(message=warning), subject=subject)
        if isinstance(known, RateLimited | TransientError):
            return type(known)(f"{info.message} (after: {warning})", retry_after=known.retry_after)
    return None


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


# ---- values --------------------------------------------------------------------------


def to_int(value: Any) -> int | None:
    """An integer from a JSON number or numeric string ("1830000"); None otherwise."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value)
    if isinstance(value, str):
        s = value.strip().replace(",", "")
        if s.isdigit():
            return int(s)
    return None


def to_float(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def from_timestamp(value: Any) -> datetime | None:
    """A UTC datetime from a Unix timestamp (seconds)."""
    ts = to_float(value)
    if ts is None or ts <= 0:
        return None
    return datetime.fromtimestamp(ts, UTC)


def parse_rfc3339(value: Any) -> datetime | None:
    """A UTC datetime from "2024-05-01T17:04:00Z" (fractional seconds allowed)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC)


def from_upload_date(value: Any) -> datetime | None:
    """yt-dlp's `upload_date` ("20240501") as midnight UTC."""
    if not isinstance(value, str) or len(value) != 8 or not value.isdigit():
        return None
    try:
        return datetime.strptime(value, "%Y%m%d").replace(tzinfo=UTC)
    except ValueError:
        return None


def get_path(obj: Any, *path: str | int) -> Any:
    """obj[p0][p1]... or None when any step is missing."""
    for key in path:
        if isinstance(key, int):
            if (
                not isinstance(obj, Sequence)
                or isinstance(obj, str)
                or not -len(obj) <= key < len(obj)
            ):
                return None
            obj = obj[key]
        else:
            if not isinstance(obj, Mapping):
                return None
            obj = obj.get(key)
        if obj is None:
            return None
    return obj


def best_thumbnail(thumbnails: Iterable[Mapping[str, Any]] | None) -> str | None:
    """yt-dlp's choice among `thumbnails`: highest preference, then largest, then last."""
    best: tuple[float, int, int] | None = None
    url: str | None = None
    for index, thumb in enumerate(thumbnails or ()):
        if not isinstance(thumb, Mapping) or not isinstance(thumb.get("url"), str):
            continue
        key = (
            to_float(thumb.get("preference")) or 0.0,
            (to_int(thumb.get("width")) or 0) * (to_int(thumb.get("height")) or 0),
            index,
        )
        if best is None or key > best:
            best, url = key, thumb["url"]
    return url


# ---- listings ------------------------------------------------------------------------


def listing_is_complete(posts_in_listed_order: Sequence[PostSnapshot]) -> bool:
    """Whether a newest-first listing is contiguous down to its oldest item.

    Pinned posts come first, out of order; when one is older than the last listed post, a
    known post between the two would look deleted, so such a listing is not complete.
    """
    if not posts_in_listed_order:
        return True
    oldest = min(p.published_at for p in posts_in_listed_order)
    return posts_in_listed_order[-1].published_at == oldest


def merged_listing_is_complete(tabs: Sequence[tuple[Sequence[PostSnapshot], bool]]) -> bool:
    """Completeness of a listing merged from several newest-first tabs.

    Each tab is (its posts in listed order, whether it was cut at our limit). A cut tab only
    covers down to its own oldest post, so the merge is complete only when no post of any
    tab is older than that.
    """
    every = [p for posts, _ in tabs for p in posts]
    if not every:
        return True
    oldest = min(p.published_at for p in every)
    for posts, truncated in tabs:
        if not listing_is_complete(posts):
            return False
        if truncated and posts and min(p.published_at for p in posts) > oldest:
            return False
    return True

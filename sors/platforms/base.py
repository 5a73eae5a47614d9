"""The platform adapter interface: what every source of posts and profiles provides.

Snapshots are plain frozen data: what one platform said about one profile and its posts at
one moment. Everything above this seam (ingest, scores, search, jobs) is the same whether
the data came from the live platforms or from the simulated world.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, ClassVar, Literal, Protocol

Platform = Literal["tiktok", "instagram", "youtube"]
PLATFORMS: tuple[Platform, ...] = ("tiktok", "instagram", "youtube")


def platform_of(name: str) -> Platform:
    """`name` (read from storage or a payload) as a `Platform`; ValueError for another."""
    for platform in PLATFORMS:
        if platform == name:
            return platform
    raise ValueError(f"Unknown platform {name!r}; expected one of {', '.join(PLATFORMS)}.")

CONTENT_TYPES: dict[str, tuple[str, ...]] = {
    "tiktok": ("video", "slideshow"),
    "instagram": ("reel", "image", "carousel"),
    "youtube": ("video", "short", "live"),
}
ALL_CONTENT_TYPES: tuple[str, ...] = tuple(sorted({c for cs in CONTENT_TYPES.values() for c in cs}))


@dataclass(frozen=True, slots=True)
class ProfileSnapshot:
    platform: Platform
    handle: str  # canonical form: lower-case, no leading @
    platform_user_id: str | None  # stable across handle changes, when the platform exposes it
    display_name: str | None
    bio: str | None
    avatar_url: str | None
    follower_count: int | None  # None when the platform hides it
    follower_count_approximate: bool = False  # True when the platform rounds it ("1.2M")
    url: str | None = None


@dataclass(frozen=True, slots=True)
class SoundRef:
    """The audio a post uses, as its source names it (docs/API.md, "Sounds").

    `key` identifies the sound on its platform: the platform's own audio id where the
    source gives it exactly (TikTok's `musicId` as a string, Instagram's `audio_id`), else
    `name:<title>|<author>` (lower-cased) for a licensed track, else `post:<post id>` for an
    original sound, which is the post's own audio (`sounds.sound_key`)."""

    key: str
    title: str | None
    author: str | None
    original: bool


@dataclass(frozen=True, slots=True)
class PostSnapshot:
    platform: Platform
    platform_post_id: str
    url: str
    content_type: str  # one of CONTENT_TYPES[platform]
    caption: str | None
    published_at: datetime  # timezone-aware UTC
    duration_seconds: float | None
    views: int | None  # None when hidden (e.g. Instagram image posts)
    likes: int | None
    comments: int | None
    shares: int | None
    thumbnail_url: str | None
    # Fields whose value the platform rounds or hides, e.g. {"likes": "hidden"}.
    approximations: Mapping[str, str] = field(default_factory=dict)
    # Source-specific extras (e.g. the simulated script, slideshow image URLs).
    extra: Mapping[str, Any] = field(default_factory=dict)
    # The audio it uses, where the source shows it.
    sound: SoundRef | None = None


@dataclass(frozen=True, slots=True)
class SourceRun:
    """One paid run at a data provider, as the provider reported it."""

    provider: str  # "apify"
    run_id: str
    cost_usd: float | None  # what the provider says the run cost (None: not reported)
    status: str  # the provider's final status, e.g. "SUCCEEDED", "FAILED"
    items: int = 0


@dataclass(frozen=True, slots=True)
class CrawlSnapshot:
    profile: ProfileSnapshot
    posts: Sequence[PostSnapshot]
    fetched_at: datetime
    # True when `posts` is the platform's complete recent listing back to its oldest item,
    # so a known post newer than the oldest listed one that is missing has been deleted.
    listing_complete: bool = True
    # Which source answered ("sim", "web", "api", "apify") and, for a data provider, its run.
    source: str | None = None
    source_run: SourceRun | None = None


@dataclass(frozen=True, slots=True)
class CommentSnapshot:
    """One comment on a post as its platform showed it. Of the person who wrote it only the
    public handle is kept (no name, picture or id)."""

    platform: Platform
    platform_post_id: str
    platform_comment_id: str
    text: str
    author_handle: str | None  # lower case, no leading @
    likes: int | None
    replies: int | None  # how many answers the platform counts (not all may be listed)
    published_at: datetime | None
    parent_id: str | None = None  # the platform's id of the comment this one answers
    language: str | None = None  # as the source says (TikTok's textLanguage), if it does


@dataclass(frozen=True, slots=True)
class CommentsSnapshot:
    """What one fetch of a post's comments returned."""

    comments: Sequence[CommentSnapshot]
    fetched_at: datetime
    source: str | None = None  # "sim", "apify", "api"
    source_run: SourceRun | None = None


@dataclass(frozen=True, slots=True)
class MediaFile:
    kind: Literal["video", "image", "thumbnail", "audio"]
    path: Path
    content_type: str  # MIME type
    position: int = 0
    width: int | None = None
    height: int | None = None
    duration_seconds: float | None = None


# The media types a downloaded file may have: images, video and audio, nothing a browser
# runs or renders as a document (no HTML, no SVG, no XML). A platform host answering
# anything else is refused, and the service never serves it (`GET /media/{token}`).
# Inline: those the console embeds; the others are served as attachments.
INLINE_MEDIA_TYPES = frozenset({
    "image/jpeg", "image/png", "image/webp", "image/gif", "image/avif",
    "video/mp4", "video/webm",
    "audio/mpeg", "audio/mp4", "audio/ogg", "audio/webm",
})
MEDIA_TYPES = INLINE_MEDIA_TYPES | frozenset({"image/heic", "image/heif", "video/quicktime"})


def is_media_type(content_type: str | None) -> bool:
    """A MIME type (parameters ignored) on the media allow-list."""
    return (content_type or "").split(";", 1)[0].strip().lower() in MEDIA_TYPES


@dataclass(frozen=True, slots=True)
class PostRef:
    """Enough to find a post again on its platform."""

    platform: Platform
    platform_post_id: str
    url: str
    content_type: str
    handle: str | None = None
    published_at: datetime | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)


# ---- typed failures -------------------------------------------------------------------


class FailureKind(StrEnum):
    """What a failure means for the creator asked about: only `gone` deactivates a catalog
    profile (crawling.tasks); `private` leaves it active; `rate_limited` and `transient` are
    retried with backoff; `bad_token` (and `blocked`) wait for an operator."""

    GONE = "gone"
    PRIVATE = "private"
    RATE_LIMITED = "rate_limited"
    TRANSIENT = "transient"
    BAD_TOKEN = "bad_token"  # noqa: S105 (a kind of failure, not a secret)
    BLOCKED = "blocked"
    OTHER = "other"


class PlatformError(Exception):
    """Base of every adapter failure. `retryable` drives the job engine; `kind` says what
    the failure means for the creator (FailureKind)."""

    code = "platform_error"
    retryable = False
    kind: ClassVar[FailureKind] = FailureKind.OTHER

    def __init__(
        self, message: str = "", *, retry_after: float | None = None,
        source_run: SourceRun | None = None,
    ) -> None:
        super().__init__(message or self.__class__.__doc__ or self.code)
        self.retry_after = retry_after
        # A data provider's run that failed still cost what it cost.
        self.source_run = source_run


class MediaNotMade(PlatformError):
    """The adapter could not make a post's media (the simulated renderer: a program missing
    or failing); its `code` is what the job reports."""

    code = "render_failed"

    @property
    def message(self) -> str:
        return str(self)


class ProfileNotFound(PlatformError):
    """The platform has no such profile (missing, deleted or banned): it is gone."""

    code = "profile_not_found"
    kind = FailureKind.GONE


class ProfilePrivate(PlatformError):
    """The profile exists but shows nothing publicly (a private account, or one the source
    found no public data for). Not gone: a catalog profile stays active."""

    code = "profile_private"
    kind = FailureKind.PRIVATE


class PostNotFound(PlatformError):
    """The platform has no such public post."""

    code = "post_not_found"
    kind = FailureKind.GONE


class RateLimited(PlatformError):
    """The platform asked us to slow down."""

    code = "platform_rate_limited"
    retryable = True
    kind = FailureKind.RATE_LIMITED


class Blocked(PlatformError):
    """The platform refused us (login wall, bot check); retrying soon will not help."""

    code = "platform_blocked"
    kind = FailureKind.BLOCKED


class TransientError(PlatformError):
    """A network or server hiccup; worth retrying."""

    code = "platform_unavailable"
    retryable = True
    kind = FailureKind.TRANSIENT


class SourceUnavailable(PlatformError):
    """The configured source cannot be used (a refused token, an unknown actor); the message
    names the setting to fix. Retrying will not help until an operator does."""

    code = "source_unavailable"
    kind = FailureKind.BAD_TOKEN


class EmptyAnswer(TransientError):
    """The source answered with nothing at all for the profile. Blocked scrapers do that,
    so for a profile known to have posts it is an error worth retrying, never "0 posts";
    for a handle never seen, it means there is no such public profile."""


class CommentsUnsupported(PlatformError):
    """The configured source cannot fetch this platform's comments; the message says which
    source or setting can."""

    code = "comments_unsupported"


class UnsupportedMedia(PlatformError):
    """The post has no media we can fetch."""

    code = "unsupported_media"


class DiscoveryUnsupported(PlatformError):
    """This source has no stable listing of new creators for the platform."""

    code = "discovery_unsupported"


class PlatformAdapter(Protocol):
    """One source of posts and profiles (the live platforms, or the simulated world)."""

    async def fetch_profile(
        self, platform: Platform, handle: str, *, now: datetime
    ) -> CrawlSnapshot:
        """The profile and its recent posts as the platform shows them at `now`.

        Raises ProfileNotFound when there is no such public profile.
        """
        ...

    async def fetch_media(self, post: PostRef, dest_dir: Path, *, now: datetime) -> list[MediaFile]:
        """Download (or, in simulation, make) the post's media files into `dest_dir`.

        Video posts: one `video` file (with its audio). Slideshows / carousels / image posts:
        one `image` per slide with its `position`. YouTube: the `thumbnail` only is returned
        to API callers, but the video may also be fetched for transcription.
        """
        ...


class ThumbnailSource(Protocol):
    """Optional: adapters that fetch a post's thumbnail image (the catalog's thumbnail-change
    check uses it when present; `getattr(adapter, "fetch_thumbnail", None)`)."""

    async def fetch_thumbnail(self, platform: Platform, url: str) -> bytes:
        """The image at `url` (a thumbnail URL the platform itself returned)."""
        ...


class DiscoveryListing(Protocol):
    """Optional: adapters whose source lists new creators (the catalog keeper uses it when
    present; `getattr(adapter, "discover", None)`)."""

    async def discover(
        self, platform: Platform, niche: str | None, *, since: datetime, now: datetime,
        limit: int,
    ) -> Sequence[str]:
        """Handles of creators (of `niche`, a taxonomy id, or any) that the platform started
        showing in (since, now], oldest first, at most `limit`. Raises DiscoveryUnsupported
        when the source has no such listing for this platform."""
        ...


class CommentSource(Protocol):
    """Optional: adapters that fetch a post's comments (`getattr(adapter, "fetch_comments",
    None)`; the demand feature's `comments` job uses it)."""

    async def fetch_comments(
        self, post: PostRef, *, limit: int, now: datetime
    ) -> CommentsSnapshot:
        """Up to `limit` of the post's comments (replies included where the source lists
        them), most relevant first as the platform orders them."""
        ...

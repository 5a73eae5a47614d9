"""Monitoring: tracking entries, their paid refresh crawls, and the updates feed."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from sors.billing.pricing import get_pricing
from sors.catalog.models import Profile
from sors.catalog.records import repository as catalog_repo
from sors.catalog.records import service as catalog
from sors.catalog.records.build import flat_post
from sors.catalog.records.errors import (
    ProfileNotFound,
    ShortLinkNotSupported,
    UnsupportedUrl,
)
from sors.config import Settings
from sors.events import service as events
from sors.kit.clock import isoformat
from sors.kit.errors import NotFound, ValidationFailed
from sors.kit.ids import new_id
from sors.kit.runtime import Runtime
from sors.monitoring import repository as repo
from sors.monitoring.models import PausedReason, StartedBy, TrackedProfile
from sors.monitoring.schemas import ProfileTarget, TrackedUpdates
from sors.platforms import handles, urls
from sors.subscriptions import limits

CADENCE = {
    "daily": timedelta(days=1),
    "every_3_days": timedelta(days=3),
    "weekly": timedelta(days=7),
}
REFRESH_SKILL = "tracking_refresh"

_CRAWL_FIRST = (
    "Crawl it first with POST /api/v1/crawls (crawl_profile); once that job completes the "
    "profile can be monitored."
)


def refresh_cost() -> int:
    return get_pricing().cost(REFRESH_SKILL)


# ---- naming a profile ---------------------------------------------------------------------


def _missing(what: str) -> ProfileNotFound:
    return ProfileNotFound(f"{what} is not in the database. {_CRAWL_FIRST}")


async def _by_handle(session: AsyncSession, platform: str, handle: str) -> Profile:
    profile = await repo.active_profile(session, platform, handle)
    if profile is None:
        raise _missing(f"The {platform} profile @{handle}")
    return profile


async def _by_url(session: AsyncSession, url: str) -> Profile:
    try:
        parsed = urls.parse_profile_url(url)
    except urls.ShortLinkNotSupported as exc:
        raise ShortLinkNotSupported(str(exc)) from exc
    except urls.UnsupportedUrl as exc:
        # A post URL that does not name its owner (YouTube): the post may be known.
        try:
            post = urls.parse_post_url(url)
        except urls.UrlError:
            raise UnsupportedUrl(str(exc)) from exc
        pid = await repo.profile_id_of_post(session, post.platform, post.platform_post_id)
        profile = await repo.get_profile(session, pid) if pid else None
        if profile is None:
            raise _missing("The owner of this post") from exc
        return profile
    return await _by_handle(session, parsed.platform, parsed.handle)


async def resolve_profile(session: AsyncSession, target: ProfileTarget) -> Profile:
    """The active profile named by profileId, platform + handle, or url. When several are
    given they must name the same profile."""
    if (target.platform is None) != (target.handle is None):
        field = "handle" if target.handle is None else "platform"
        raise ValidationFailed.single(field, "platform and handle must be given together.")
    found: list[Profile] = []
    if target.profileId is not None:
        profile = await repo.get_profile(session, target.profileId)
        if profile is None:
            raise _missing(f"Profile {target.profileId}")
        found.append(profile)
    if target.platform is not None and target.handle is not None:
        try:
            handle = handles.normalize_handle(target.platform, target.handle)
        except handles.InvalidHandle as exc:
            raise ValidationFailed.single("handle", str(exc)) from exc
        found.append(await _by_handle(session, target.platform, handle))
    if target.url is not None:
        found.append(await _by_url(session, target.url))
    if not found:
        raise ValidationFailed.single(
            "profileId", "Identify the profile with profileId, platform and handle, or url."
        )
    if len({p.id for p in found}) > 1:
        raise ValidationFailed.single(
            "profileId", "profileId, platform/handle and url name different profiles."
        )
    profile = found[0]
    if not profile.is_active:
        raise ProfileNotFound(
            f"Profile {profile.id} (@{profile.handle}) is no longer active on {profile.platform}"
            " (renamed or removed); it cannot be monitored."
        )
    return profile


# ---- entries ------------------------------------------------------------------------------


def new_entry(
    account_id: str, profile_id: str, frequency: str, started_by: StartedBy, now: datetime,
    key_id: str | None,
) -> TrackedProfile:
    return TrackedProfile(
        account_id=account_id,
        profile_id=profile_id,
        frequency=frequency,
        started_by=started_by,
        key_id=key_id,
        next_crawl_at=now + CADENCE[frequency],
        # Posts stored from now on; an id minted now sorts after every post stored so far.
        cursor_seen_at=now,
        cursor_post_id=new_id("pst"),
        created_at=now,
        updated_at=now,
    )


# Pauses that belong to the key that pays: saving the entry again with a key ends them.
_KEY_PAUSES = (PausedReason.SPEND_CAP, PausedReason.KEY_REVOKED)


def adopt(entry: TrackedProfile, key_id: str, now: datetime) -> None:
    """The entry's refreshes are charged through `key_id` from now on (the key that saved
    it last); a pause of the previous key's (its cap, its revocation) ends, due at once."""
    entry.key_id = key_id
    if entry.paused_reason in _KEY_PAUSES:
        entry.paused_reason, entry.paused_at = None, None
        entry.next_crawl_at = now
    entry.updated_at = now


async def track(
    session: AsyncSession, account_id: str, key_id: str, profile: Profile, frequency: str,
    now: datetime, settings: Settings,
) -> TrackedProfile:
    entry = await repo.get_entry(session, account_id, profile.id, for_update=True)
    if entry is None or entry.started_by != StartedBy.USER:
        await _within_watchlist(session, account_id, now, settings)
    if entry is None:
        entry = new_entry(account_id, profile.id, frequency, StartedBy.USER, now, key_id)
        await repo.add_entry(session, entry)
        return entry
    if entry.frequency != frequency and entry.paused_reason is None:
        # The new cadence counts from the last refresh, not from the original schedule.
        entry.next_crawl_at = entry.next_crawl_at - CADENCE[entry.frequency] + CADENCE[frequency]
    entry.frequency = frequency
    entry.started_by = StartedBy.USER
    adopt(entry, key_id, now)
    await session.flush()
    return entry


async def _within_watchlist(
    session: AsyncSession, account_id: str, now: datetime, settings: Settings
) -> None:
    """One more profile on the watchlist must fit the plan's watchlist limit."""
    standing = await limits.standing(session, account_id, now, settings)
    cap = standing.watchlist_limit
    if cap is None:
        return
    watched = [
        e
        for e in await repo.user_entries(session, account_id)
        if e.paused_reason != PausedReason.PLAN_LIMIT
    ]
    if len(watched) >= cap:
        raise limits.PlanLimitReached("watchlistLimit", cap, standing)


async def apply_plan_limit(
    session: AsyncSession, account_id: str, now: datetime, rt: Runtime
) -> int:
    """The plan's watchlist limit over what exists: entries past it pause (the newest first,
    the oldest last) and, after an upgrade, resume oldest first (due at once). Nothing is
    deleted. Returns how many entries changed. Also the listener of a plan change
    (`subscriptions.state.PLAN_CHANGED`)."""
    cap = (await limits.standing(session, account_id, now, rt.settings)).watchlist_limit
    changed = 0
    for i, entry in enumerate(await repo.user_entries(session, account_id)):
        over = cap is not None and i >= cap
        if over and entry.paused_reason != PausedReason.PLAN_LIMIT:
            entry.paused_reason, entry.paused_at = PausedReason.PLAN_LIMIT, now
            entry.updated_at = now
            changed += 1
        elif not over and entry.paused_reason == PausedReason.PLAN_LIMIT:
            entry.paused_reason, entry.paused_at = None, None
            entry.next_crawl_at, entry.updated_at = now, now
            changed += 1
    await session.flush()
    return changed


async def start_for_alert(
    session: AsyncSession, account_id: str, profile_id: str, frequency: str, now: datetime,
    key_id: str,
) -> bool:
    """Monitoring on behalf of an alert (charged through the alert's key), unless the
    profile is already monitored. Returns whether this started it."""
    if await repo.get_entry(session, account_id, profile_id) is not None:
        return False
    entry = new_entry(account_id, profile_id, frequency, StartedBy.ALERT, now, key_id)
    await repo.add_entry(session, entry)
    return True


async def untrack(
    session: AsyncSession, account_id: str, profile_id: str, now: datetime, rt: Runtime
) -> None:
    if not await repo.delete_entry(session, account_id, profile_id):
        raise NotFound(f"Profile {profile_id} is not monitored by this account.")
    await apply_plan_limit(session, account_id, now, rt)  # a paused one may fit again


async def list_tracking(
    session: AsyncSession, account_id: str
) -> list[tuple[TrackedProfile, Profile]]:
    return await repo.list_entries(session, account_id)


async def updates(
    session: AsyncSession, account_id: str, limit: int, now: datetime, min_age_hours: float
) -> TrackedUpdates:
    # Locking the account's entries serialises concurrent reads of the feed, so two calls
    # never hand out the same posts.
    await repo.list_entries(session, account_id, for_update=True)
    rows = await repo.new_posts(session, account_id, limit=limit + 1)
    has_more = len(rows) > limit
    rows = rows[:limit]
    last: dict[str, tuple[datetime, str]] = {}
    for r in rows:
        last[r["profile_id"]] = (r["first_seen_at"], r["id"])
    for profile_id, (seen_at, post_id) in last.items():
        await repo.advance_cursor(session, account_id, profile_id, seen_at, post_id)
    # The posts as the catalog builds them (not validated again: that would only rewrite
    # the whole numbers of a projection as floats; the route renders them as they are).
    posts = [flat_post(r, now, min_age_hours) for r in rows]
    return TrackedUpdates(results=posts, hasMore=has_more)


async def resume_paused(
    session: AsyncSession, account_id: str, now: datetime, rt: Runtime
) -> int:
    """Credits arrived (the listener of `payments.service.CREDITS_ARRIVING`): paused
    entries resume and are due at once."""
    return await repo.resume_account(session, account_id, now)


# ---- events ------------------------------------------------------------------------------


_NEW_POSTS_IN_EVENT = 100


async def announce_changes(session: AsyncSession, profile_id: str, handle: str,
                           platform: str, at: datetime, field: str = "caption") -> None:
    """`post.changed` to every account monitoring a profile whose posts' `field` (captions
    and titles, or thumbnails) was seen changed at `at` (when the event happened)."""
    trackers = await repo.trackers(session, profile_id)
    wanted = await events.accounts_wanting(session, trackers, "post.changed")
    if not wanted:
        return
    changes = await catalog_repo.changes_seen(session, profile_id, at, field)
    if not changes:
        return
    data = {
        "profileId": profile_id, "platform": platform, "handle": handle,
        "changes": [{"postId": c["post_id"], "url": c["url"], "field": c["field"],
                     "before": c["before"], "after": c["after"],
                     "changedAt": isoformat(c["changed_at"])} for c in changes],
    }
    for account_id in sorted(wanted):
        await events.emit(session, account_id, "post.changed", data, at=at)


async def announce_new_posts(
    session: AsyncSession, profile_id: str, seen_at: datetime, min_age_hours: float
) -> None:
    """`tracking.new_posts` to every account monitoring a profile whose crawl just stored
    new posts (those first seen at `seen_at`, when the event happened), with the posts in the
    flattened shape."""
    trackers = await repo.trackers(session, profile_id)
    wanted = await events.accounts_wanting(session, trackers, "tracking.new_posts")
    if not wanted:
        return
    posts = [p.model_dump()
             for p in await catalog.posts_first_seen(session, profile_id, seen_at, min_age_hours)]
    if not posts:
        return
    data = {
        "profileId": profile_id, "platform": posts[0]["platform"], "handle": posts[0]["handle"],
        "newPosts": len(posts), "posts": posts[:_NEW_POSTS_IN_EVENT],
        "truncated": len(posts) > _NEW_POSTS_IN_EVENT,
    }
    for account_id in sorted(wanted):
        await events.emit(session, account_id, "tracking.new_posts", data, at=seen_at)

"""The simulated world: every profile and post, derived on demand from (seed, platform, handle).

Nothing is stored. A profile is a pure function of the world seed, its platform and its
original handle; a post is a pure function of its profile and its *slot*; `now` only decides
what is visible and how far the numbers have grown. So any process, any day, re-derives the
same world, and a post can be found again from its id and its owner's handle.

Profiles (sim/accounts.py)
    Every handle that passes `normalize_handle` exists, except handles starting with
    "ghost" (ProfileNotFound). A handle that names a niche ("yoga.with.mia") gets that niche;
    others get one at random. Followers are heavy-tailed (1k-5M at SIM_EPOCH) and grow a
    little each year.

Posts (sim/posts.py)
    Accounts start between a month and four years before SIM_EPOCH and post every 1-5 days
    (a jittered moment in each slot of their period; some slots skipped). A post exists iff
    published_at <= now. `final` is log-normal around the account's typical level, and ~4%
    of posts are 3-50x outliers. Views grow towards it along one of a few shapes
    (sim/trajectories.py, shares documented there): most as final * (1 - exp(-age / tau)),
    others start slowly, plateau early, spike and fade, or take off days late.
    Likes, comments and shares are fixed per-post rates of the views, so every counter grows
    monotonically. YouTube shows no share counts (shares=None).

Deletions
    ~2% of posts are deleted some time (1 hour to 30 days) after publishing. From then on
    they are missing from listings and `find_post` raises PostNotFound. A listing is the 60
    most recent live posts and is complete, so ingest must treat a known post that is newer
    than the oldest listed one and missing from the listing as deleted (older ones simply
    fell off the listing).

Renames
    ~1% of handles (those short enough to take a suffix) are renamed once, at a moment in the
    two years after SIM_EPOCH, to `old + "_" + 3 characters` (see `renamed_to`). From that
    moment the old handle raises ProfileNotFound and the new one shows the same
    platform_user_id, display name, bio and posts (TikTok post URLs carry the new handle).
    Before it, the new handle does not exist. A rename target is never renamed again.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

from sors.platforms.base import (
    CommentSnapshot,
    CrawlSnapshot,
    Platform,
    PostNotFound,
    PostSnapshot,
    ProfileNotFound,
)
from sors.platforms.handles import InvalidHandle, normalize_handle
from sors.platforms.sim import posts
from sors.platforms.sim.accounts import B64, EPOCH_TS, Account, derive_account, profile_snapshot
from sors.platforms.sim.rng import stable_int, unit_floats

LISTING_SIZE = 60
RENAMED_SHARE = 0.01
_RENAME_WINDOW_SECONDS = 730 * 86_400
_MAX_HANDLE = {"tiktok": 24, "instagram": 30, "youtube": 30}


def _ts(dt: datetime) -> float:
    if dt.tzinfo is None:
        raise ValueError("The simulated world needs timezone-aware datetimes.")
    return dt.timestamp()


class SimWorld:
    """A deterministic stand-in for the three platforms (see the module docstring)."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = int(seed)

    # ---- renames ----------------------------------------------------------------------

    def _rename_target(self, platform: str, handle: str) -> str | None:
        """The handle this one is renamed to at some time, if it ever is."""
        if handle.startswith("ghost") or len(handle) + 4 > _MAX_HANDLE[platform]:
            return None
        (u,) = unit_floats(self.seed, "rename", platform, handle, count=1)
        if u >= RENAMED_SHARE or self._rename_origin(platform, handle) is not None:
            return None
        code = stable_int(self.seed, "rename-suffix", platform, handle)
        suffix = "".join(B64[26 + (code >> (6 * i)) % 36] for i in range(3))  # [a-z0-9]
        return f"{handle}_{suffix}"

    def _rename_origin(self, platform: str, handle: str) -> str | None:
        """The handle whose rename produces this one, if any."""
        head, sep, tail = handle.rpartition("_")
        if not sep or len(tail) != 3 or not head:
            return None
        return head if self._rename_target(platform, head) == handle else None

    def _rename_ts(self, platform: str, old: str) -> float:
        (u,) = unit_floats(self.seed, "rename-at", platform, old, count=1)
        return EPOCH_TS + math.floor(u * _RENAME_WINDOW_SECONDS)

    def renamed_to(self, platform: str, handle: str, now: datetime) -> str | None:
        """The new handle of a profile that was renamed at or before `now`."""
        h = normalize_handle(platform, handle)
        target = self._rename_target(platform, h)
        if target is not None and self._rename_ts(platform, h) <= _ts(now):
            return target
        return None

    def renamed_from(self, platform: str, handle: str, now: datetime) -> str | None:
        """The old handle of a profile that took this handle at or before `now`."""
        h = normalize_handle(platform, handle)
        origin = self._rename_origin(platform, h)
        if origin is not None and self._rename_ts(platform, origin) <= _ts(now):
            return origin
        return None

    def rename_time(self, platform: str, handle: str) -> datetime | None:
        """When the old handle `handle` gets renamed; None for handles that never are."""
        h = normalize_handle(platform, handle)
        if self._rename_target(platform, h) is None:
            return None
        return datetime.fromtimestamp(self._rename_ts(platform, h), UTC)

    def is_stable_handle(self, platform: str, handle: str) -> bool:
        """True for handles that exist and never take part in a rename."""
        return (
            not handle.startswith("ghost")
            and self._rename_target(platform, handle) is None
            and self._rename_origin(platform, handle) is None
        )

    # ---- accounts ---------------------------------------------------------------------

    def _checked(self, platform: Platform, handle: str) -> str:
        try:
            h = normalize_handle(platform, handle)
        except InvalidHandle as exc:
            raise ProfileNotFound(str(exc)) from exc
        if h.startswith("ghost"):
            raise ProfileNotFound(f"No {platform} profile @{h}.")
        return h

    def _root_at(self, platform: Platform, h: str, now: float) -> str:
        """The original handle of the account called `h` at `now`, else ProfileNotFound."""
        origin = self._rename_origin(platform, h)
        if origin is not None:
            if now < self._rename_ts(platform, origin):
                raise ProfileNotFound(f"No {platform} profile @{h} (yet).")
            return origin
        if self._rename_target(platform, h) is not None and now >= self._rename_ts(platform, h):
            raise ProfileNotFound(f"No {platform} profile @{h}: the account changed handle.")
        return h

    def account(self, platform: Platform, handle: str) -> Account:
        """The account that has (or had, or will have) this handle. Time-independent."""
        h = self._checked(platform, handle)
        return derive_account(self.seed, platform, self._rename_origin(platform, h) or h)

    def niche_of(self, platform: Platform, handle: str) -> str:
        """The taxonomy leaf the account is about (for tests and demos)."""
        return self.account(platform, handle).niche.id

    # ---- crawling and lookups ---------------------------------------------------------

    def crawl(
        self, platform: Platform, handle: str, now: datetime, *, size: int = LISTING_SIZE
    ) -> CrawlSnapshot:
        """The profile and its LISTING_SIZE most recent live posts as seen at `now` (`size`:
        only the newest few, for a caller that looks at recent posts only)."""
        t = _ts(now)
        h = self._checked(platform, handle)
        a = derive_account(self.seed, platform, self._root_at(platform, h, t))
        listed: list[PostSnapshot] = []
        for s in posts.live_slots(a, t):
            listed.append(posts.post_snapshot(a, h, s, t))
            if len(listed) >= size:
                break
        return CrawlSnapshot(
            profile=profile_snapshot(a, h, t),
            posts=tuple(listed),
            fetched_at=now,
            listing_complete=True,
            source="sim",
        )

    def find_post(
        self,
        platform: Platform,
        handle: str,
        platform_post_id: str,
        *,
        now: datetime,
        slot_hint: int | None = None,
    ) -> PostSnapshot:
        """Re-derive one post from its id and a handle its owner has had at any time.

        ProfileNotFound for an impossible owner; PostNotFound when the owner has no such
        post, or it is not yet published or already deleted at `now`.
        """
        t = _ts(now)
        h = self._checked(platform, handle)
        a = self.account(platform, h)
        newest = posts.newest_slot_index(a, t)
        hints = [] if slot_hint is None else [slot_hint]
        if platform == "tiktok" and platform_post_id.isdigit():
            # TikTok ids carry their publish second in the top bits, which names the slot.
            k = math.floor(((int(platform_post_id) >> 32) - a.start) / a.period)
            hints += [k, k - 1, k + 1]
        # Hints first, then the whole history (a few thousand cheap hashes at most).
        for k in (*hints, *range(newest, -1, -1)):
            if not 0 <= k <= newest:
                continue
            s = posts.slot(a, k)
            if s is None or posts.post_id(platform, s) != platform_post_id:
                continue
            if not posts.is_live(s, t):
                break
            return posts.post_snapshot(a, h, s, t)
        raise PostNotFound(f"No {platform} post {platform_post_id} by @{h} at this time.")

    def comments(
        self, platform: Platform, handle: str, platform_post_id: str, *, now: datetime,
        limit: int, slot_hint: int | None = None,
    ) -> list[CommentSnapshot]:
        """A post's comments visible at `now`, most liked first (sim/comments.py)."""
        from sors.platforms.sim.comments import post_comments

        post = self.find_post(platform, handle, platform_post_id, now=now, slot_hint=slot_hint)
        return post_comments(post, self.seed, now, limit)

    def sample_handles(self, n: int, *, seed: int | None = None) -> list[tuple[Platform, str]]:
        """`n` believable, stable handles across the three platforms (see sim/handles.py)."""
        from sors.platforms.sim.handles import sample_handles

        return sample_handles(self.is_stable_handle, n, seed=self.seed if seed is None else seed)

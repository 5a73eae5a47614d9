"""Simulated posts: slots in an account's timeline, and the post each slot holds.

Time after an account's start is cut into slots of its posting period. Slot k holds at most
one post, published at a jittered moment inside the slot, so posts stay in slot order and
the ones around any moment are reached directly, without walking the whole history. A
slot's content is a pure function of (account, k); `now` only decides visibility and how
far the counters have grown.

This is the hot path of seeding a demo world (~100k posts), so draws are kept few and
cheap; see bench numbers in the package report.
"""

from __future__ import annotations

import hashlib
import math
import struct
from base64 import urlsafe_b64encode
from bisect import bisect
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import cache
from typing import NamedTuple

from sors.platforms import views as view_definitions
from sors.platforms.base import PostSnapshot
from sors.platforms.sim import content, languages, sounds
from sors.platforms.sim.accounts import ASSET_HOST, Account
from sors.platforms.sim.rng import Rng
from sors.platforms.sim.trajectories import Trajectory
from sors.platforms.urls import post_url

OUTLIER_SHARE = 0.04
OUTLIER_RANGE = (3.0, 50.0)
DELETED_SHARE = 0.02
VIDEO_TYPES = frozenset({"video", "reel", "short", "live"})

_U64 = float(1 << 64)
_MAX_DELETE_DELAY_HOURS = 30 * 24

# YouTube counts a long-form video's or a stream's view from the first frame since
# 2026-08-24 (platforms.views): the same kind of video reads higher after that day, by a
# factor of each creator's own (their audience's share of short visits).
_FIRST_FRAME = next(c for c in view_definitions.CHANGES
                    if c.platform == "youtube" and "video" in c.content_types)
_FIRST_FRAME_TYPES = frozenset(_FIRST_FRAME.content_types)
_FIRST_FRAME_AT = datetime(_FIRST_FRAME.on.year, _FIRST_FRAME.on.month, _FIRST_FRAME.on.day,
                           tzinfo=UTC).timestamp()
FIRST_FRAME_FACTOR = (1.2, 1.8)


@cache
def first_frame_factor(slot_prefix: bytes) -> float:
    """How much higher a creator's long-form YouTube views count from the first frame:
    drawn from the account's own key, apart from its other draws."""
    digest = hashlib.blake2b(slot_prefix + b"first-frame", digest_size=8).digest()
    low, high = FIRST_FRAME_FACTOR
    return low + (high - low) * (struct.unpack("<Q", digest)[0] / _U64)


class Slot(NamedTuple):
    number: int  # k: the slot's place in the account's timeline
    published: int  # epoch seconds
    deleted: int | None  # when the post disappears, if it ever does
    seed: int  # for everything else about the post, including its id


def slot(a: Account, k: int) -> Slot | None:
    """Slot k of the account, or None when the creator skipped it."""
    # Same bytes as stable_digest(seed, platform, root, "slot", k): the prefix is cached.
    raw = hashlib.blake2b(a.slot_prefix + str(k).encode(), digest_size=40).digest()
    skip, jitter, dele, delay, seed = struct.unpack(">5Q", raw)
    if skip / _U64 < a.skip:
        return None
    published = math.floor(a.start + (k + 0.05 + 0.9 * jitter / _U64) * a.period)
    deleted = None
    if dele / _U64 < DELETED_SHARE:
        # 1 hour to 30 days, log-uniform: most deletions come soon after posting.
        deleted = published + math.floor(3600 * _MAX_DELETE_DELAY_HOURS ** (delay / _U64))
    return Slot(k, published, deleted, seed)


def newest_slot_index(a: Account, now: float) -> int:
    return math.floor((now - a.start) / a.period)


def live_slots(a: Account, now: float) -> Iterator[Slot]:
    """Slots whose post is published and not deleted at `now`, newest first."""
    for k in range(newest_slot_index(a, now), -1, -1):
        s = slot(a, k)
        if s is None or s.published > now or (s.deleted is not None and s.deleted <= now):
            continue
        yield s


def is_live(s: Slot, now: float) -> bool:
    return s.published <= now and (s.deleted is None or s.deleted > now)


def post_id(platform: str, s: Slot) -> str:
    x = s.seed
    if platform == "tiktok":
        # Like real TikTok ids: the publish second in the top bits, 19 digits today.
        return str((s.published << 32) | (x & 0xFFFFFFFF))
    # Real YouTube ids are 8 random bytes in URL-safe base64 (11 characters, the last one
    # from "AEIMQUYcgkosw048"); Instagram shortcodes of recent posts look alike and start
    # with C or D.
    code = urlsafe_b64encode(x.to_bytes(8, "big"))[:11].decode()
    if platform == "instagram":
        return ("C" if x & 1 else "D") + code[1:]
    return code


def post_snapshot(a: Account, handle: str, s: Slot, now: float) -> PostSnapshot:
    """The post in slot `s` as seen at `now` (the caller checks that it is live)."""
    rng = Rng(s.seed)
    r = rng.random
    niche = a.niche
    ctype = a.mix_types[bisect(a.mix_cumulative, r())]
    topic_index = int(r() * len(niche.topics))
    topic = niche.topics[topic_index]
    final = a.typical_views * a.mix_views[ctype] * math.exp(rng.normal(0.0, a.sigma))
    outlier = r() < OUTLIER_SHARE
    multiplier = 1.0
    if outlier:
        low, high = OUTLIER_RANGE
        multiplier = low * (high / low) ** r()
        final *= multiplier
    growth = Trajectory(s.seed, a.tau, outlier=outlier, multiplier=multiplier)
    final *= growth.final_factor
    if a.platform == "youtube" and ctype in _FIRST_FRAME_TYPES and s.published >= _FIRST_FRAME_AT:
        final *= first_frame_factor(a.slot_prefix)
    # Per-post engagement wobbles around the account's rates; fixed per post, so every
    # counter grows with views and never goes down.
    like_rate = a.like_rate * (0.6 + 0.8 * r())
    comment_rate = a.comment_rate * (0.5 + r())
    share_rate = a.share_rate * (0.4 + 1.2 * r()) if a.share_rate is not None else None
    caption = content.caption(rng, a.platform, ctype, niche, topic_index)
    extra: dict[str, object] = {
        "topic": topic,
        "niche": niche.id,
        "sim_slot": s.number,
        "sim_shape": growth.shape.value,
    }
    duration: float | None = None
    if ctype in VIDEO_TYPES:
        long_form = a.platform == "youtube" and ctype == "video"
        scenes = 4 + int(r() * 3) if long_form else 3 + int(r() * 4)
        extra["script"] = content.script(rng, niche, topic, scenes, outlier=outlier)
        if ctype == "live":
            # Streams run for an hour; their media is a voice-paced stand-in (see SimAdapter).
            duration = float(round(900.0 + 4500.0 * r()))
        else:
            if long_form:
                duration = round(60.0 + 120.0 * r(), 1)
            else:
                duration = round(min(60.0, scenes * (4.5 + 5.5 * r())), 1)
            # So rendered media last about as long as the post claims (a scene whose
            # sentence takes longer to say stretches it).
            extra["seconds_per_scene"] = round(duration / scenes, 3)
    else:
        count = 1 if ctype == "image" else 2 + int(r() * 5)
        extra["slides"] = content.slides(rng, niche, topic, count)
    if a.language is not None:
        # Drawn after all the others: the post is otherwise the same as in English.
        caption = languages.caption(rng, a.platform, niche.id, a.language)
        extra["language"] = a.language
    views = int(final * growth.fraction(now - s.published))
    pid = post_id(a.platform, s)
    return PostSnapshot(
        platform=a.platform,
        platform_post_id=pid,
        url=post_url(a.platform, handle, pid, ctype),
        content_type=ctype,
        caption=caption,
        published_at=datetime.fromtimestamp(s.published, UTC),
        duration_seconds=duration,
        views=views,
        likes=int(views * like_rate),
        comments=int(views * comment_rate),
        shares=int(views * share_rate) if share_rate is not None else None,
        thumbnail_url=f"{ASSET_HOST}/{a.platform}/thumb/{pid}.jpg",
        approximations={} if share_rate is not None else {"shares": "hidden"},
        extra=extra,
        sound=sounds.sound_of(a, ctype, s.seed, s.published, pid),
    )

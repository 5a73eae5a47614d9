"""Simulated accounts: everything about a profile that does not change with time.

An `Account` is derived from (world seed, platform, original handle) alone. Its numbers set
the scale of everything its posts do: typical views, engagement rates, how fast views
saturate, which content types it favours, how often it posts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime

from sors.platforms.base import Platform, ProfileSnapshot
from sors.platforms.sim import content, languages
from sors.platforms.sim.rng import Rng, stable_digest, stable_int
from sors.platforms.urls import profile_url

SIM_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
EPOCH_TS = SIM_EPOCH.timestamp()
DAY = 86_400.0
ASSET_HOST = "https://sim.sors.invalid"  # .invalid never resolves: these URLs are labels
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

# Content types: typical share of an account's posts, and views relative to its level.
MIX: dict[str, tuple[tuple[str, float, float], ...]] = {
    "tiktok": (("video", 0.85, 1.0), ("slideshow", 0.15, 0.7)),
    "instagram": (("reel", 0.6, 1.0), ("carousel", 0.28, 0.45), ("image", 0.12, 0.3)),
    "youtube": (("short", 0.55, 1.0), ("video", 0.38, 0.6), ("live", 0.07, 0.25)),
}
_VIEW_RATIO = {"tiktok": 0.25, "instagram": 0.1, "youtube": 0.08}  # typical views / followers
_LIKE_RATE = {"tiktok": (0.04, 0.10), "instagram": (0.03, 0.08), "youtube": (0.02, 0.05)}
_COMMENT_RATE = {"tiktok": (0.001, 0.006), "instagram": (0.001, 0.005), "youtube": (0.0005, 0.003)}
_SHARE_RATE = {"tiktok": (0.001, 0.01), "instagram": (0.0005, 0.005)}  # YouTube hides shares
_TAU_DAYS = {"tiktok": (1.0, 3.0), "instagram": (0.7, 2.0), "youtube": (3.0, 10.0)}


@dataclass(frozen=True, slots=True)
class Account:
    platform: Platform
    root: str  # the handle the account was created with; renames keep deriving from it
    seed: int  # the world's
    slot_prefix: bytes  # hash input of its posting slots, minus the slot number
    user_id: str
    niche: content.Niche
    display_name: str
    bio: str
    followers: float  # at SIM_EPOCH
    growth: float  # relative follower growth per year
    start: float  # account creation, epoch seconds
    period: float  # seconds between posting slots
    skip: float  # share of slots without a post
    typical_views: float
    sigma: float  # spread of final views around the typical level (log scale)
    like_rate: float
    comment_rate: float
    share_rate: float | None
    tau: float  # seconds for a post's views to reach 63% of their final value
    mix_types: tuple[str, ...]
    mix_cumulative: tuple[float, ...]  # running share of each type, for bisect()
    mix_views: dict[str, float]
    language: str | None = None  # not English: the creator's captions (sim/languages.py)


def derive_account(seed: int, platform: Platform, root: str) -> Account:
    key = (seed, platform, root)
    rng = Rng(stable_int(*key, "profile"))
    drawn_niche = rng.choice(content.niche_ids())
    niche = content.niches()[content.niche_for_handle(root) or drawn_niche]
    # u^2.2 on a log scale: median ~6k followers, a few percent past 1M, capped at 5M.
    followers = 1000.0 * 5000.0 ** (rng.random() ** 2.2)
    age_days = 30.0 + 1500.0 * rng.random() ** 2
    weights = [weight * rng.uniform(0.4, 1.6) for _, weight, _ in MIX[platform]]
    share = _SHARE_RATE.get(platform)
    return Account(
        platform=platform,
        root=root,
        seed=seed,
        slot_prefix=("\x1f".join(str(x) for x in (*key, "slot")) + "\x1f").encode(),
        user_id=_user_id(platform, stable_digest(*key, "user-id", size=16)),
        niche=niche,
        display_name=content.display_name(rng, root, niche),
        bio=content.bio(rng, niche),
        followers=followers,
        growth=rng.uniform(0.0, 0.3),
        start=EPOCH_TS - age_days * DAY,
        period=rng.uniform(1.0, 5.0) * DAY,
        skip=rng.uniform(0.03, 0.2),
        typical_views=max(200.0, followers * _VIEW_RATIO[platform] * rng.lognormal(0, 0.6)),
        sigma=rng.uniform(0.35, 0.6),
        like_rate=rng.uniform(*_LIKE_RATE[platform]),
        comment_rate=rng.uniform(*_COMMENT_RATE[platform]),
        share_rate=rng.uniform(*share) if share else None,
        tau=rng.uniform(*_TAU_DAYS[platform]) * DAY,
        mix_types=tuple(ctype for ctype, _, _ in MIX[platform]),
        mix_cumulative=tuple(sum(weights[: i + 1]) / sum(weights) for i in range(len(weights) - 1)),
        mix_views={ctype: mult for ctype, _, mult in MIX[platform]},
        language=languages.language_for(seed, platform, root, niche.id),
    )


def profile_snapshot(a: Account, handle: str, now: float) -> ProfileSnapshot:
    """The profile as shown at `now` under `handle` (its name at that time)."""
    years = min(max((now - EPOCH_TS) / (365 * DAY), -1.0), 4.0)
    followers = max(1000, math.floor(a.followers * (1 + a.growth * years)))
    return ProfileSnapshot(
        platform=a.platform,
        handle=handle,
        platform_user_id=a.user_id,
        display_name=a.display_name,
        bio=a.bio,
        avatar_url=f"{ASSET_HOST}/{a.platform}/avatar/{a.user_id}.jpg",
        follower_count=followers,
        url=profile_url(a.platform, handle),
    )


def _user_id(platform: str, raw: bytes) -> str:
    x = int.from_bytes(raw, "big")
    if platform == "tiktok":
        return str(6_000_000_000_000_000_000 + x % 10**18)
    if platform == "instagram":
        return str(1_000_000_000 + x % 60_000_000_000)
    return "UC" + "".join(B64[(x >> (6 * i)) & 63] for i in range(22))

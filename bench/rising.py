"""Backtest of rising posts over the simulated world (docs/PERFORMANCE.md, "Rising posts").

For a sample of simulated creators, every post published in the evaluation window is
looked at the way a creator under a rising alert is crawled (at about 1, 3, 6, 12, 24, 48
and 72 hours of age, then daily to 7 days, then at 10, 14, 20 and 30 days). Each look is
judged exactly as a crawl judges it (`sors.catalog.ingest.trajectory.project`) against the
creator's curve made by the rule of `sors.catalog.ingest.curves` (percentiles of the
creator's posts at least 7 days old, each interpolated between snapshots around the age),
from the same looks at the creator's earlier posts. The world's own counters are the truth:

- a *breakout* ends at least 5x its creator's three-month average by 30 days (the average:
  mean views at that moment of the creator's posts published in the 90 days before, at
  least 48 hours old, the seed's baseline);
- *detected by age A*: rising at some look up to age A (an alert fires once, at the first);
- precision and recall at A = 3, 6, 24, 48 h; the median lead time: how long before the
  post crossed 5x the detection came (detections after the crossing count 0);
- the projection at 24 h of age: median absolute percentage error of the 7- and 30-day
  projections, and how often the truth falls inside the stated range.

    .venv/bin/python bench/rising.py [--creators 300] [--seed 0] [--min-rising-score 3] [--json]
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sors.catalog.ingest.curves import (
    CURVE_AGES_HOURS,
    CURVE_MIN_POST_AGE_HOURS,
    CURVE_MIN_POSTS,
)
from sors.catalog.ingest.trajectory import project
from sors.platforms.sim import posts as sim_posts
from sors.platforms.sim.handles import sample_handles
from sors.platforms.sim.world import SimWorld

LOOKS_HOURS = (1.0, 3.0, 6.0, 12.0, 24.0, 48.0, 72.0, 96.0, 120.0, 144.0, 168.0, 240.0, 336.0,
               480.0, 720.0)
DETECTION_AGES = (3, 6, 24, 48)
BREAKOUT = 5.0
EVAL_START = datetime(2026, 6, 1, tzinfo=UTC)
EVAL_DAYS = 30
HISTORY_DAYS = 120
BASELINE_MIN_AGE = timedelta(hours=48)
_SEG_MIN = 2.0


@dataclass
class Post:
    slot: sim_posts.Slot
    published: datetime
    shape: str
    fmt: str
    looks: list[tuple[float, int]] = field(default_factory=list)  # (age hours, views)

    def views_at(self, world: SimWorld, account: object, handle: str, at: datetime) -> int:
        snap = sim_posts.post_snapshot(account, handle, self.slot, at.timestamp())  # type: ignore[arg-type]
        return int(snap.views or 0)


def _fmt(platform: str, content_type: str) -> str:
    if content_type in ("short", "reel"):
        return "short"
    if content_type in ("image", "carousel"):
        return "photo"
    return "long" if platform == "youtube" else "all"


def _interp(looks: Sequence[tuple[float, int]], age: float) -> float | None:
    pts = [(0.0, 0.0), *((a, float(v)) for a, v in looks)]
    for (a_lo, v_lo), (a_hi, v_hi) in itertools.pairwise(pts):
        if a_lo < age <= a_hi and a_hi - a_lo <= max(age, _SEG_MIN):
            return v_lo + (v_hi - v_lo) * (age - a_lo) / (a_hi - a_lo)
    return None


def _pct(xs: list[float], q: float) -> float:
    pos = q * (len(xs) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def curve(
    history: Sequence[Post],
) -> dict[int, tuple[float | None, float | None, float | None, int]]:
    """The rule of catalog.curves over these posts' looks."""
    out: dict[int, tuple[float | None, float | None, float | None, int]] = {}
    for age in CURVE_AGES_HOURS:
        vals = sorted(v for p in history if (v := _interp(p.looks, age)) is not None)
        if not vals:
            continue
        if len(vals) < CURVE_MIN_POSTS:
            out[age] = (None, None, None, len(vals))
        else:
            out[age] = (_pct(vals, 0.1), _pct(vals, 0.5), _pct(vals, 0.9), len(vals))
    return out


@dataclass
class Judged:
    breakout: bool
    shape: str
    first_rising_h: float | None
    cross_h: float | None
    proj24: dict | None
    truth7: int
    truth30: int


def creator(world: SimWorld, platform: str, handle: str, min_score: float = 0.0) -> list[Judged]:
    account = world.account(platform, handle)  # type: ignore[arg-type]
    t_end = EVAL_START + timedelta(days=EVAL_DAYS)
    t_hist = EVAL_START - timedelta(days=HISTORY_DAYS)
    first_k = max(0, sim_posts.newest_slot_index(account, t_hist.timestamp()))
    last_k = sim_posts.newest_slot_index(account, t_end.timestamp())
    posts: list[Post] = []
    for k in range(first_k, last_k + 1):
        s = sim_posts.slot(account, k)
        if s is None or s.deleted is not None:
            continue
        pub = datetime.fromtimestamp(s.published, UTC)
        if not t_hist <= pub < t_end:
            continue
        snap = sim_posts.post_snapshot(account, handle, s, s.published + 3600)
        p = Post(s, pub, str(snap.extra["sim_shape"]), _fmt(platform, snap.content_type))
        for h in LOOKS_HOURS:
            at = s.published + h * 3600
            p.looks.append((h, int(sim_posts.post_snapshot(account, handle, s, at).views or 0)))
        posts.append(p)
    out: list[Judged] = []
    for p in posts:
        if p.published < EVAL_START:
            continue
        # The curve as the scheduler keeps it, a little before this post's first look.
        cutoff = p.published - timedelta(hours=CURVE_MIN_POST_AGE_HOURS)
        hist = [q for q in posts if q.fmt == p.fmt and q.published <= cutoff]
        c = curve(hist)
        d30 = p.published + timedelta(days=30)
        truth30 = p.views_at(world, account, handle, d30)
        truth7 = p.views_at(world, account, handle, p.published + timedelta(days=7))
        base = [q.views_at(world, account, handle, d30) for q in posts
                if d30 - timedelta(days=90) < q.published <= d30 - BASELINE_MIN_AGE]
        avg = sum(base) / len(base) if len(base) >= 3 else None
        if avg is None or not c:
            continue
        breakout = truth30 >= BREAKOUT * avg
        cross_h = None
        if breakout:
            for h in range(1, 24 * 30 + 1):
                views = p.views_at(world, account, handle, p.published + timedelta(hours=h))
                if views >= BREAKOUT * avg:
                    cross_h = float(h)
                    break
        first = None
        proj24 = None
        for i, (h, v) in enumerate(p.looks):
            at = p.published + timedelta(hours=h)
            snaps = [(p.published + timedelta(hours=a), vv)
                     for a, vv in p.looks[max(0, i - 2): i + 1]]
            pr = project(views=v, published_at=p.published, at=at, snapshots=snaps, curve=c,
                         three_month_average=avg)
            if pr is None:
                continue
            if h == 24.0:
                proj24 = pr
            if pr["rising"] and pr["vs_median_now"] >= min_score and first is None:
                first = h
        out.append(Judged(breakout, p.shape, first, cross_h, proj24, truth7, truth30))
    return out


def summarise(judged: list[Judged]) -> dict[str, object]:
    res: dict[str, object] = {"posts": len(judged),
                              "breakouts": sum(j.breakout for j in judged)}
    for a in DETECTION_AGES:
        flagged = [j for j in judged if j.first_rising_h is not None and j.first_rising_h <= a]
        tp = sum(j.breakout for j in flagged)
        res[f"at_{a}h"] = {
            "flagged": len(flagged),
            "precision": round(tp / len(flagged), 3) if flagged else None,
            "recall": round(tp / res["breakouts"], 3) if res["breakouts"] else None,  # type: ignore[operator]
            "false_by_shape": _count(j.shape for j in flagged if not j.breakout),
        }
    leads = [max(0.0, j.cross_h - j.first_rising_h) for j in judged
             if j.breakout and j.first_rising_h is not None and j.cross_h is not None]
    res["median_lead_hours"] = statistics.median(leads) if leads else None
    for name, truth, only in (("7d", "truth7", False), ("30d", "truth30", False),
                              ("30d_breakouts_only", "truth30", True)):
        errs, inside = [], 0
        key = f"projected_views_{name[:3]}"
        rows = [j for j in judged if j.proj24 and j.proj24[key] and (j.breakout or not only)]
        for j in rows:
            pv = j.proj24[key]  # type: ignore[index]
            t = getattr(j, truth)
            if t > 0:
                errs.append(abs(pv["expected"] - t) / t)
            inside += pv["low"] <= t <= pv["high"]
        res[f"projection_{name}_at_24h"] = {
            "posts": len(rows),
            "mdape": round(statistics.median(errs), 3) if errs else None,
            "inside_range": round(inside / len(rows), 3) if rows else None,
        }
    return res


def _count(items: object) -> dict[str, int]:
    out: dict[str, int] = {}
    for x in items:  # type: ignore[attr-defined]
        out[x] = out.get(x, 0) + 1
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--creators", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--min-rising-score", type=float, default=0.0,
                    help="also require this rising score (search's minRisingScore)")
    args = ap.parse_args(argv)
    world = SimWorld(args.seed)
    started = time.perf_counter()
    judged: list[Judged] = []
    for platform, handle in sample_handles(world.is_stable_handle, args.creators, seed=args.seed):
        judged += creator(world, platform, handle, args.min_rising_score)
    res = summarise(judged)
    res["creators"] = args.creators
    res["seed"] = args.seed
    res["min_rising_score"] = args.min_rising_score
    res["seconds"] = round(time.perf_counter() - started, 1)
    if args.json:
        print(json.dumps(res, indent=2))
    else:
        for k, v in res.items():
            print(f"{k}: {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

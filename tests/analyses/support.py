"""A hand-made creator for the analyses tests: ordinary posts and outliers, each with a
transcript and a scene analysis written as enrichment writes them."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from sors.catalog.models import Post, Profile
from sors.enrichment import repository as enrichment_repo
from sors.enrichment.analysis import SceneData, SegmentData
from sors.kit.db import Database
from tests.factories.world import hand_crawl, hand_post, ingest

AT = datetime(2026, 11, 1, 12, tzinfo=UTC)
ORDINARY_HOOK = "This is how I plan my week in ten minutes."
OUTLIER_HOOK = "Why does nobody plan their week like this?"
HOOK_SPAN = (0.2, 2.6)


def segments(hook: str) -> list[SegmentData]:
    return [
        {"start": HOOK_SPAN[0], "end": HOOK_SPAN[1], "text": hook},
        {"start": 3.0, "end": 7.0, "text": "Write the three things that matter most."},
        {"start": 7.5, "end": 11.0, "text": "Then block the mornings for them."},
        {"start": 11.5, "end": 14.0, "text": "Follow for part two."},
    ]


SCENES: list[SceneData] = [
    {"index": i, "start": s, "end": e, "on_screen_text": "", "dominant_colors": []}
    for i, (s, e) in enumerate([(0.0, 3.0), (3.0, 7.2), (7.2, 11.3), (11.3, 20.0)])
]


async def creator(
    db: Database, handle: str = "plan.with.mia", *, ordinary: int = 12, outliers: int = 3,
    outlier_hook: str = OUTLIER_HOOK,
) -> tuple[list[str], list[str]]:
    """(ordinary post ids, outlier post ids), every post transcribed and analysed.

    Everything but the hook and the views is the same on every post (caption, duration,
    scenes, publish hour), and the outliers' weekdays differ, so the hook is the only
    difference there is to find."""
    posts = [
        replace(hand_post(handle, i, AT - timedelta(days=20 - i)), caption="Plan with me #plan")
        for i in range(ordinary)
    ]
    posts += [
        replace(
            hand_post(handle, 50 + i, AT - timedelta(days=20 - ordinary - i), views=100_000),
            caption="Plan with me #plan",
        )
        for i in range(outliers)
    ]
    await ingest(db, hand_crawl(handle, posts, AT))
    async with db.transaction() as s:
        rows = (await s.execute(
            select(Post.id, Post.views)
            .join(Profile, Profile.id == Post.profile_id)
            .where(Profile.handle == handle)
            .order_by(Post.published_at)
        )).all()
        ids = {pid: views for pid, views in rows}
        for pid, views in ids.items():
            hook = outlier_hook if views >= 100_000 else ORDINARY_HOOK
            text = " ".join(seg["text"] for seg in segments(hook))
            await enrichment_repo.save_transcript(
                s, pid,
                {"text": text, "language": "en", "source": "speech", "segments": segments(hook)},
                "test", AT,
            )
            await enrichment_repo.save_visual_analysis(
                s, pid,
                {"scene_count": len(SCENES), "avg_scene_seconds": 5.0, "scenes": SCENES,
                 "on_screen_text": ""},
            )
    return (
        [pid for pid, v in ids.items() if v < 100_000],
        [pid for pid, v in ids.items() if v >= 100_000],
    )

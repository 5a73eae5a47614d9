"""The simulated world's comments in the demo's catalog: those of each built profile's most
viewed posts, as their crawl saw them (sim/comments.py says what they hold), kept typed by
the rules. Their texts' vectors come with the scheduler's `demand.embed_comments` (or at
once, when the caller passes the settings that name the model)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy.ext.asyncio import AsyncSession

from sors.config import Settings
from sors.demand import service as demand
from sors.platforms.base import CommentSnapshot, CrawlSnapshot

if TYPE_CHECKING:
    from sors.platforms.sim.world import SimWorld

# Per profile: enough posts that a niche holds thousands of comments in a full demo world
# (2,000 profiles: ~60,000 comments), few enough to keep the build's pace.
TOP_POSTS = 3


def world_comments(world: SimWorld, crawls: Sequence[CrawlSnapshot],
                   at: datetime) -> list[CommentSnapshot]:
    from sors.platforms.sim.comments import post_comments

    out: list[CommentSnapshot] = []
    for snap in crawls:
        for post in sorted(snap.posts, key=lambda p: -(p.views or 0))[:TOP_POSTS]:
            out.extend(post_comments(post, world.seed, at))
    return out


async def keep_world_comments(session: AsyncSession, world: SimWorld,
                              crawls: Sequence[CrawlSnapshot], at: datetime,
                              settings: Settings | None = None) -> int:
    """Keep the comments in the caller's transaction; how many were new."""
    found = world_comments(world, crawls, at)
    labelled = demand.rules_labels(found)
    kept = await demand.keep(session, labelled, now=at, settings=settings, source="sim",
                             embed=settings is not None)
    return kept.new

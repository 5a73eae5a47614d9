"""Helpers for the enrichment and remix API tests: simulated posts in the catalog,
job and ledger checks."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from sqlalchemy import select, text

from sors.catalog.ingest.service import ingest_crawls
from sors.catalog.models import Post
from sors.kit.db import Database
from sors.platforms.base import PostNotFound, PostSnapshot
from sors.platforms.sim.clock import ensure_state
from sors.platforms.sim.world import SimWorld
from tests.factories import auth

CRAWLED_AT = datetime(2026, 11, 1, tzinfo=UTC)


@dataclass(frozen=True)
class SimPost:
    id: str
    snap: PostSnapshot

    @property
    def script(self) -> list[str]:
        return list(self.snap.extra["script"])

    @property
    def slides(self) -> list[str]:
        return list(self.snap.extra["slides"])


async def sim_now(db: Database) -> datetime:
    async with db.transaction() as s:
        return (await ensure_state(s)).now


async def ingest(
    db: Database, platform: str, handle: str
) -> tuple[list[PostSnapshot], dict[str, str]]:
    """Crawl a simulated profile into the catalog; (its posts, platform id → post id)."""
    snap = SimWorld(0).crawl(platform, handle, CRAWLED_AT)  # type: ignore[arg-type]
    async with db.transaction() as s:
        await ingest_crawls(s, [snap])
        rows = (
            await s.execute(select(Post.platform_post_id, Post.id).where(Post.platform == platform))
        ).all()
    return list(snap.posts), dict(rows)


async def pick(
    db: Database,
    platform: str,
    handle: str,
    content_type: str,
    accept: Callable[[PostSnapshot], bool] = lambda p: True,
    key: Callable[[PostSnapshot], Any] = lambda p: 0,
) -> SimPost:
    """A post of that type still live now in simulated time (so its media can be made)."""
    posts, ids = await ingest(db, platform, handle)
    now = await sim_now(db)
    world = SimWorld(0)
    for p in sorted((p for p in posts if p.content_type == content_type and accept(p)), key=key):
        try:
            world.find_post(platform, handle, p.platform_post_id, now=now)  # type: ignore[arg-type]
        except PostNotFound:
            continue
        return SimPost(ids[p.platform_post_id], p)
    raise AssertionError(f"no live {content_type} post of @{handle}")


async def video_post(db: Database) -> SimPost:
    """A short TikTok video with four scenes."""
    return await pick(
        db,
        "tiktok",
        "study.with.leo",
        "video",
        lambda p: len(p.extra["script"]) == 4,
        lambda p: p.duration_seconds or 0,
    )


async def slideshow_post(db: Database) -> SimPost:
    return await pick(
        db,
        "tiktok",
        "study.with.leo",
        "slideshow",
        lambda p: len(p.extra["slides"]) >= 3,
        lambda p: len(p.extra["slides"]),
    )


async def job(client: httpx.AsyncClient, key: str, job_ref: str) -> dict[str, Any]:
    r = await client.get(f"/api/v1/jobs/{job_ref}", headers=auth(key))
    assert r.status_code == 200, r.text
    return r.json()


async def ledger_kinds(db: Database, account_id: str) -> list[str]:
    async with db.session() as s:
        rows = await s.execute(
            text("SELECT kind FROM ledger_entries WHERE account_id = :a ORDER BY id"),
            {"a": account_id},
        )
        return list(rows.scalars())


def charged(r: httpx.Response) -> int:
    return int(r.headers["x-credits-charged"])


def words(value: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", value.lower())


def word_error_rate(reference: str, hypothesis: str) -> float:
    """Word-level Levenshtein distance over the reference length, on normalised words."""
    ref, hyp = words(reference), words(hypothesis)
    previous = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, start=1):
        current = [i] + [0] * len(hyp)
        for j, h in enumerate(hyp, start=1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (r != h))
        previous = current
    return previous[-1] / max(1, len(ref))


SEGMENT_KEYS = [
    "segment",
    "label",
    "startSecond",
    "endSecond",
    "visual",
    "voiceover",
    "onScreenText",
]


def assert_complete_remix(remix: dict[str, Any]) -> None:
    assert list(remix) == ["title", "description", "script", "checklist", "engine", "kept"]
    assert remix["title"].strip() and remix["description"].strip() and remix["engine"].strip()
    assert 3 <= len(remix["checklist"]) and all(c.strip() for c in remix["checklist"])
    end = 0.0
    for i, seg in enumerate(remix["script"]):
        assert list(seg) == SEGMENT_KEYS
        assert seg["segment"] == i + 1 and seg["startSecond"] == pytest.approx(end)
        assert seg["endSecond"] > seg["startSecond"]
        assert all(isinstance(seg[k], str) and seg[k].strip() for k in [*SEGMENT_KEYS[4:], "label"])
        end = seg["endSecond"]

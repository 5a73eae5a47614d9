"""Shared by the simulated world's tests."""

from __future__ import annotations

from datetime import UTC, datetime

from sors.platforms.base import Platform
from sors.platforms.sim import SimWorld, posts

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def deleted_slots(world: SimWorld, platform: Platform, handle: str) -> list[posts.Slot]:
    """The account's deleted posts up to NOW."""
    account = world.account(platform, handle)
    newest = posts.newest_slot_index(account, NOW.timestamp())
    return [s for s in (posts.slot(account, k) for k in range(newest + 1)) if s and s.deleted]

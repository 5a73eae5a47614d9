"""Paging and time frames, as every catalog read pages and filters (docs/API.md, "Paging"):
the result window, a page's place in it, a time frame's start."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Generic, TypeVar

from sors.catalog.models import WINDOWS
from sors.catalog.records.fields import RESULT_WINDOW
from sors.kit.errors import ValidationFailed

DEFAULT_SCORE_WINDOW = "three_months"
T = TypeVar("T")


DEFAULT_SCORE_METHOD = "mean"


def since(time_frame: str | None, now: datetime) -> datetime | None:
    """The start of the last `time_frame` before `now` (None: no limit)."""
    days = WINDOWS[time_frame] if time_frame else None
    return None if days is None else now - timedelta(days=days)


@dataclass(frozen=True, slots=True)
class _Page:
    offset: int
    limit: int


def page_window(page: int, page_size: int) -> _Page:
    offset = (page - 1) * page_size
    if offset >= RESULT_WINDOW:
        raise ValidationFailed.single(
            "page",
            f"Only the first {RESULT_WINDOW:,} matches can be paged through "
            f"(page {page} of {page_size} starts past them); narrow the search.",
        )
    # A page never reaches past the result window.
    return _Page(offset, min(page_size, RESULT_WINDOW - offset))


@dataclass(frozen=True, slots=True)
class Paged(Generic[T]):
    """A page's rows and where the page stands: the matches (counted up to the result
    window), whether there were more than that, whether another page follows."""

    rows: Sequence[T]
    total: int
    capped: bool
    has_more: bool


async def _paged(
    rows: Sequence[T], p: _Page, count: Callable[[], Awaitable[int]]
) -> Paged[T]:
    """The page from `limit + 1` fetched rows; `count` is asked only when the rows cannot
    tell the total."""
    more = len(rows) > p.limit
    rows = rows[: p.limit]
    if not more and (rows or p.offset == 0):
        total = p.offset + len(rows)  # the last page: no count needed
    else:
        total = await count()
    has_more = more and p.offset + p.limit < RESULT_WINDOW
    return Paged(rows, min(total, RESULT_WINDOW), total > RESULT_WINDOW, has_more)

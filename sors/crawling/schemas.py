from __future__ import annotations

from typing import Literal

from pydantic import Field

from sors.kit.schemas import RequestModel


class CrawlIn(RequestModel):
    platform: Literal["tiktok", "instagram", "youtube"]
    handle: str = Field(min_length=1, max_length=100)

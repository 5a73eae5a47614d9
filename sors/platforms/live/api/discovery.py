"""YouTube's discovery listing: channels of a niche created since the last read, through the
Data API (the one stable public source of new creators among the three platforms).

`search.list` (type=channel, order=date, publishedAfter) costs 100 quota units of the
default 10,000 a day, so at most `searches_per_day` searches run per day of the service
clock; `channels.list` (1 unit) then turns the channel ids into handles (`customUrl`).
Without a key there is no listing (DiscoveryUnsupported).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime

from sors.kit.clock import isoformat
from sors.platforms import taxonomy
from sors.platforms.live.api.client import YouTubeDataAPI


class YouTubeDiscovery:
    def __init__(self, api: YouTubeDataAPI, searches_per_day: int) -> None:
        self._api = api
        self._per_day = searches_per_day
        self._used: tuple[date, int] = (date.min, 0)

    def _query(self, niche: str | None, now: datetime) -> str:
        by_id = {c.id: c.name for c in taxonomy.CATEGORIES}
        if niche and niche in by_id:
            return by_id[niche]
        # No niche asked for: one top-level niche per hour, in turn.
        tops = [c.name for c in taxonomy.CATEGORIES if c.parent_id is None]
        return tops[int(now.timestamp() // 3600) % len(tops)]

    async def discover(
        self, niche: str | None, *, since: datetime, now: datetime, limit: int
    ) -> Sequence[str]:
        day, used = self._used
        used = used if day == now.date() else 0
        if used >= self._per_day or limit <= 0:
            return []  # today's share of the quota is spent: the next read tries again
        self._used = (now.date(), used + 1)
        found = await self._api.get("search", {
            "part": "snippet", "type": "channel", "order": "date", "q": self._query(niche, now),
            "publishedAfter": isoformat(since), "maxResults": min(50, limit),
        }, subject="profile", now=now)
        ids = [i["id"]["channelId"] for i in found.get("items") or ()
               if isinstance(i.get("id"), dict) and i["id"].get("channelId")]
        if not ids:
            return []
        channels = await self._api.get("channels", {
            "part": "snippet", "id": ",".join(ids), "maxResults": 50,
        }, subject="profile", now=now)
        handles = []
        for item in channels.get("items") or ():
            custom = ((item.get("snippet") or {}).get("customUrl") or "").strip()
            if custom.startswith("@") and len(custom) > 1:
                handles.append(custom[1:].lower())
        return handles[:limit]

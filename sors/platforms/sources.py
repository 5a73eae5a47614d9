"""Which source serves each platform when live, and why.

A platform's source is its setting (`SORS_TIKTOK_SOURCE`, `SORS_INSTAGRAM_SOURCE`,
`SORS_YOUTUBE_SOURCE`) when set; otherwise the best one configured: YouTube's Data API with a
key, a data provider (Apify) for TikTok and Instagram with a token, else the scrapers (`web`).
The reason travels with the choice, so `sors doctor` and the console can say it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sors.config import Settings

SourceName = Literal["web", "api", "apify"]

# Which sources each platform can use.
SOURCES: dict[str, tuple[SourceName, ...]] = {
    "tiktok": ("web", "apify"),
    "instagram": ("web", "apify"),
    "youtube": ("web", "api", "apify"),
}
SETTING = {p: f"SORS_{p.upper()}_SOURCE" for p in SOURCES}


@dataclass(frozen=True, slots=True)
class SourceChoice:
    platform: str
    source: SourceName
    reason: str


def choose(settings: Settings, platform: str) -> SourceChoice:
    chosen = getattr(settings.sources, platform, None)
    if chosen:
        if chosen not in SOURCES[platform]:
            raise ValueError(
                f"{SETTING[platform]}={chosen!r}: {platform} sources are "
                + ", ".join(SOURCES[platform])
            )
        return SourceChoice(platform, chosen, f"{SETTING[platform]}={chosen}")
    if platform == "youtube":
        if settings.youtube.api_key:
            return SourceChoice(platform, "api", "SORS_YOUTUBE_API_KEY is set")
        return SourceChoice(platform, "web", "no SORS_YOUTUBE_API_KEY: yt-dlp scraping")
    if settings.apify.token:
        return SourceChoice(platform, "apify", "SORS_APIFY_TOKEN is set")
    scraper = "yt-dlp" if platform == "tiktok" else "instaloader and yt-dlp"
    return SourceChoice(platform, "web", f"no SORS_APIFY_TOKEN: {scraper} scraping")


def choose_all(settings: Settings) -> dict[str, SourceChoice]:
    return {platform: choose(settings, platform) for platform in SOURCES}

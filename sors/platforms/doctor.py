"""`sors doctor`: for each platform, the source in use and why, whether its prerequisites are
there, and with `live=True` one cheap real request — each failure with its fix.

The checks read settings, installed packages and files only; the live probes go through the
same clients the crawls use (the Apify token through the free `GET /v2/users/me`, YouTube's
Data API through a one-unit `channels.list`, a scraper through one profile fetch).
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import shutil
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, Literal

from sors.config import Settings
from sors.platforms import sources

Status = Literal["ok", "warning", "error"]
# yt-dlp releases every few weeks, and TikTok's and YouTube's extraction break between them.
YTDLP_STALE_DAYS = 60
PROBE_HANDLES = {"tiktok": "tiktok", "instagram": "instagram", "youtube": "youtube"}


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    status: Status
    detail: str
    fix: str | None = None


@dataclass
class PlatformReport:
    platform: str
    source: str
    reason: str
    checks: list[Check] = field(default_factory=list)

    @property
    def status(self) -> Status:
        found = {c.status for c in self.checks}
        return "error" if "error" in found else "warning" if "warning" in found else "ok"

    def as_dict(self) -> dict[str, object]:
        return {"platform": self.platform, "source": self.source, "reason": self.reason,
                "status": self.status, "checks": [asdict(c) for c in self.checks]}


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def ytdlp_check(today: date) -> Check:
    version = _version("yt-dlp")
    if version is None:
        return Check("yt-dlp", "error", "not installed", "pip install -U yt-dlp")
    try:
        released = date(*(int(x) for x in version.split(".")[:3]))
    except (TypeError, ValueError):
        return Check("yt-dlp", "ok", f"version {version}")
    age = (today - released).days
    if age > YTDLP_STALE_DAYS:
        return Check("yt-dlp", "warning", f"version {version}, {age} days old: platform "
                     "extraction breaks between releases", "pip install -U yt-dlp")
    return Check("yt-dlp", "ok", f"version {version} ({age} days old)")


def proxy_check(settings: Settings, platform: str) -> Check:
    if settings.sources.http_proxy:
        return Check("proxy", "ok", "SORS_HTTP_PROXY is set")
    why = {"tiktok": "TikTok blocks server IPs, sometimes for a day",
           "instagram": "Instagram limits cloud and datacenter IPs hardest",
           "youtube": "YouTube asks datacenter IPs to sign in (\"confirm you're not a bot\")"}
    return Check("proxy", "warning", f"no proxy: {why[platform]}",
                 "set SORS_HTTP_PROXY to a residential proxy, or use a data provider "
                 "(SORS_APIFY_TOKEN)" + (" or SORS_YOUTUBE_API_KEY" if platform == "youtube"
                                         else ""))


def file_check(name: str, setting: str, value: str | None, *, now: float,
               required_fix: str) -> Check:
    if not value:
        return Check(name, "error", f"{setting} is not set", required_fix)
    path = Path(value).expanduser()
    if not path.is_file():
        return Check(name, "error", f"{setting}={value}: no such file", required_fix)
    try:
        text = path.read_text(errors="replace")
    except OSError as exc:
        return Check(name, "error", f"{setting}={value}: {exc.strerror}", required_fix)
    expiries = []
    for line in text.splitlines():  # Netscape cookies: the fifth field is the expiry
        parts = line.split("\t")
        if len(parts) == 7 and parts[4].isdigit() and int(parts[4]) > 0:
            expiries.append(int(parts[4]))
    if expiries and max(expiries) < now:
        return Check(name, "error", f"{setting}={value}: every cookie has expired", required_fix)
    return Check(name, "ok", f"{setting}={value} is readable")


def _apify_checks(settings: Settings, platform: str) -> list[Check]:
    actor = getattr(settings.apify, f"{platform}_actor")
    checks = [Check("actor", "ok", f"{actor} (SORS_APIFY_{platform.upper()}_ACTOR)")]
    if settings.apify.token:
        checks.insert(0, Check("token", "ok", "SORS_APIFY_TOKEN is set"))
    else:
        checks.insert(0, Check("token", "error", "SORS_APIFY_TOKEN is not set",
                               "create a token at console.apify.com (Settings → API & "
                               "Integrations) and set SORS_APIFY_TOKEN"))
    budget = settings.apify.daily_usd_budget
    checks.append(Check("budget", "ok" if budget is not None else "warning",
                        f"the keeper may spend ${budget:g} a day" if budget is not None
                        else "no daily budget: the catalog keeper's provider runs are unlimited",
                        None if budget is not None else "set SORS_APIFY_DAILY_USD_BUDGET"))
    return checks


def _web_checks(settings: Settings, platform: str, today: date, now: float) -> list[Check]:
    checks = [ytdlp_check(today)]
    if platform == "tiktok":
        checks.append(
            Check("curl_cffi", "ok", f"version {_version('curl_cffi')} (browser impersonation)")
            if _version("curl_cffi") or _version("curl-cffi") else
            Check("curl_cffi", "error", "not installed: without it yt-dlp's TikTok "
                  "impersonation silently fails", "pip install curl_cffi"))
        cookies = settings.sources.tiktok_cookies_file
        checks.append(file_check("cookies", "SORS_TIKTOK_COOKIES_FILE", cookies, now=now,
                                 required_fix="export a logged-in browser's tiktok.com cookies "
                                 "(Netscape format) and set SORS_TIKTOK_COOKIES_FILE")
                      if cookies else Check("cookies", "warning", "no SORS_TIKTOK_COOKIES_FILE: "
                                            "signed out, a profile shows only its newest videos",
                                            "set SORS_TIKTOK_COOKIES_FILE"))
    elif platform == "instagram":
        version = _version("instaloader")
        checks.append(Check("instaloader", "ok", f"version {version}") if version else
                      Check("instaloader", "error", "not installed", "pip install instaloader"))
        checks.append(file_check(
            "session", "SORS_INSTAGRAM_SESSION_FILE",
            settings.sources.instagram_session_file, now=now,
            required_fix="logged-out Instagram answers 401 from server IPs: save a session "
            "(instaloader --login USER) and set SORS_INSTAGRAM_SESSION_FILE, or use a data "
            "provider (SORS_APIFY_TOKEN)"))
    else:
        runtime = next((r for r in ("deno", "node", "bun") if shutil.which(r)), None)
        checks.append(Check("javascript runtime", "ok", f"{runtime} found") if runtime else
                      Check("javascript runtime", "warning", "no deno, node or bun: full video "
                            "extraction fails; channel listings give rounded counts",
                            "install deno (or node) and pip install yt-dlp-ejs"))
        if runtime and not _version("yt-dlp-ejs"):
            checks.append(Check("yt-dlp-ejs", "warning", "not installed: yt-dlp cannot solve "
                                "YouTube's JavaScript challenges", "pip install yt-dlp-ejs"))
        checks.append(Check("data api", "warning", "no SORS_YOUTUBE_API_KEY: scraping only",
                            "create a YouTube Data API v3 key (10,000 free units a day) and "
                            "set SORS_YOUTUBE_API_KEY"))
    checks.append(proxy_check(settings, platform))
    return checks


def report(settings: Settings, *, now: datetime | None = None) -> list[PlatformReport]:
    """What each platform would use live, and what it lacks."""
    now = now or datetime.now(UTC)
    out = []
    for platform, choice in sources.choose_all(settings).items():
        r = PlatformReport(platform, choice.source, choice.reason)
        if choice.source == "apify":
            r.checks = _apify_checks(settings, platform)
        elif choice.source == "api":
            r.checks = [Check("api key", "ok", "SORS_YOUTUBE_API_KEY is set (10,000 units a "
                              "day; a crawl costs about 3)")]
        else:
            r.checks = _web_checks(settings, platform, now.date(), now.timestamp())
        out.append(r)
    return out


async def probe(
    settings: Settings, reports: list[PlatformReport], *, timeout: float = 60.0
) -> None:
    """One cheap real request per platform (`--live`), added to each report as a check."""
    from sors.platforms.live import LiveAdapter

    adapter = LiveAdapter(settings)
    try:
        for r in reports:
            started = time.monotonic()
            try:
                detail = await asyncio.wait_for(_probe_one(adapter, r), timeout)
                r.checks.append(Check("live request", "ok",
                                      f"{detail} in {time.monotonic() - started:.1f} s"))
            except TimeoutError:
                r.checks.append(Check("live request", "error", f"no answer in {timeout:g} s",
                                      "check the network and proxy"))
            except Exception as exc:  # every failure is reported, with its type
                code = getattr(exc, "code", type(exc).__name__)
                r.checks.append(Check("live request", "error", f"{code}: {exc}", _fix_for(r, exc)))
    finally:
        await adapter.aclose()


async def _probe_one(adapter: Any, r: PlatformReport) -> str:
    if r.source == "apify":
        me = await adapter.apify_client().me()
        return f"Apify token accepted (user {me.get('username') or me.get('id') or '?'})"
    handle = PROBE_HANDLES[r.platform]
    snap = await adapter.fetch_profile(r.platform, handle, now=datetime.now(UTC))
    return f"@{handle}: {len(snap.posts)} posts, followers {snap.profile.follower_count}"


def _fix_for(r: PlatformReport, exc: Exception) -> str:
    if getattr(exc, "code", None) == "source_unavailable":
        return str(exc)
    if r.source == "web":
        return ("the platform refused this machine: use a residential proxy "
                "(SORS_HTTP_PROXY) or a data provider (SORS_APIFY_TOKEN)")
    return "see the detail; docs/OPERATIONS.md \"Sources\""


def exit_status(settings: Settings, reports: list[PlatformReport]) -> int:
    """1 when a platform the running service would use live cannot work."""
    if settings.platform_source != "live":
        return 0
    return 1 if any(r.status == "error" for r in reports) else 0

"""The Apify source: a profile's latest posts through a data provider's actor.

One crawl is one actor run (`POST /v2/acts/{actor}/runs`, waited on with
`GET /v2/actor-runs/{id}?waitForFinish=…`), then its default dataset
(`GET /v2/datasets/{id}/items`). The run's cost as Apify reports it (`usageTotalUsd`) travels
with the snapshot, or with the failure, since a failed run is paid for too. Requests go only
to `SORS_APIFY_BASE_URL` (api.apify.com by default) with the operator's token; nothing a
caller sends is fetched.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import httpx

from sors.platforms import urls
from sors.platforms.base import (
    CommentsSnapshot,
    CommentsUnsupported,
    CrawlSnapshot,
    EmptyAnswer,
    PlatformError,
    PostNotFound,
    ProfileNotFound,
    ProfilePrivate,
    RateLimited,
    SourceRun,
    SourceUnavailable,
    TransientError,
    platform_of,
)
from sors.platforms.live.apify import comments as apify_comments
from sors.platforms.live.apify import mapping as apify_map
from sors.platforms.live.common import listing_is_complete, parse_retry_after

TERMINAL = {"SUCCEEDED", "FAILED", "ABORTED", "TIMED-OUT"}
ACTOR_SETTING = {
    "tiktok": "SORS_APIFY_TIKTOK_ACTOR",
    "instagram": "SORS_APIFY_INSTAGRAM_ACTOR",
    "youtube": "SORS_APIFY_YOUTUBE_ACTOR",
}
# What an actor's error item (`{"error": code, "errorDescription": …}`, written into the
# dataset instead of a result) means, by its code, as the actors answer (recorded in
# tests/fixtures/sources/apify/): `not_found` ("Post does not exist", for a missing profile
# as for a missing post) and `no_items` ("Empty or private data for provided input": a
# private or empty profile, not a missing one). Any other code reads as a failing run:
# retried, never taken for a missing creator. The description is prose for people.
ITEM_ERRORS: dict[str, type[PlatformError]] = {
    "not_found": ProfileNotFound,
    "no_items": ProfilePrivate,
}
# Apify API answers by their `error.type` where the status alone would mislead.
_API_ERRORS: dict[str, type[PlatformError]] = {
    "rate-limit-exceeded": RateLimited,
    "not-enough-usage-to-run-paid-actor": SourceUnavailable,
    "actor-is-not-rented": SourceUnavailable,
}


def actor_input(platform: str, handle: str, limit: int) -> dict[str, object]:
    """The documented input of each default actor for one profile's newest `limit` posts."""
    if platform == "tiktok":
        return {
            "profiles": [handle], "resultsPerPage": limit, "profileSorting": "latest",
            "excludePinnedPosts": False, "shouldDownloadVideos": False,
            "shouldDownloadCovers": False, "shouldDownloadSubtitles": False,
            "shouldDownloadSlideshowImages": False,
        }
    if platform == "instagram":
        # `details`: the profile (followers, bio) with its latest posts, in one run.
        return {"directUrls": [urls.profile_url("instagram", handle)], "resultsType": "details",
                "resultsLimit": limit}
    return {"startUrls": [{"url": urls.profile_url("youtube", handle)}], "maxResults": limit,
            "maxResultsShorts": limit, "maxResultStreams": 0}


COMMENT_ACTOR_SETTING = {
    "tiktok": "SORS_APIFY_TIKTOK_COMMENTS_ACTOR",
    "instagram": "SORS_APIFY_INSTAGRAM_COMMENTS_ACTOR",
}


def comment_actor_input(platform: str, post_url: str, limit: int) -> dict[str, object]:
    """The documented input of each default comment actor for one post's first `limit`
    comments (replies are fetched as far as the actor lists them on Instagram; TikTok's
    actor is asked for top-level comments only, as its recorded runs were)."""
    if platform == "tiktok":
        return {"postURLs": [post_url], "commentsPerPost": limit, "maxRepliesPerComment": 0}
    return {"directUrls": [post_url], "resultsLimit": limit}


class ApifyClient:
    """The few calls of Apify's API v2 that a crawl needs, with failures typed."""

    def __init__(self, http: httpx.AsyncClient, *, token: str | None, base_url: str,
                 run_timeout: float) -> None:
        self._http = http
        self._token = token
        self._base = base_url.rstrip("/") + "/v2"
        self._run_timeout = run_timeout

    def _headers(self) -> dict[str, str]:
        if not self._token:
            raise SourceUnavailable("the Apify source needs SORS_APIFY_TOKEN (an Apify API token)")
        return {"Authorization": f"Bearer {self._token}"}

    async def _call(self, method: str, path: str, *, setting: str = "SORS_APIFY_TOKEN",
                    **kwargs: Any) -> Any:
        try:
            response = await self._http.request(
                method, self._base + path, headers=self._headers(), **kwargs
            )
        except httpx.HTTPError as exc:
            raise TransientError(f"Apify could not be reached: {type(exc).__name__}") from exc
        kind = _API_ERRORS.get(_error_type(response)) if response.status_code >= 400 else None
        if kind is RateLimited or (kind is None and response.status_code == 429):
            raise RateLimited("Apify asked us to slow down",
                              retry_after=parse_retry_after(response.headers.get("Retry-After")))
        if kind is SourceUnavailable:
            raise SourceUnavailable(
                f"Apify refused the run ({_error_type(response)}): check the Apify account's "
                f"plan and {setting}")
        if response.status_code in (401, 403):
            raise SourceUnavailable(
                f"Apify refused the token (HTTP {response.status_code}): check SORS_APIFY_TOKEN"
            )
        if response.status_code == 404:
            raise SourceUnavailable(f"Apify has no such actor or run (HTTP 404): check {setting}")
        if response.status_code >= 400:
            raise TransientError(f"Apify answered HTTP {response.status_code}")
        try:
            return response.json()
        except ValueError as exc:
            raise TransientError("Apify answered with something that is not JSON") from exc

    async def me(self) -> Mapping[str, Any]:
        """The token's user (`GET /v2/users/me`): free, so `sors doctor --live` uses it."""
        body = await self._call("GET", "/users/me")
        return body.get("data") or {}

    async def run(self, actor: str, actor_input: Mapping[str, Any], *, setting: str
                  ) -> tuple[list[Mapping[str, Any]], SourceRun]:
        """Run `actor` and return its dataset items with the run; a run that does not
        succeed raises TransientError (retryable) carrying the run and its cost."""
        path = "/acts/" + actor.replace("/", "~")
        timeout = int(self._run_timeout)
        body = await self._call("POST", f"{path}/runs", setting=setting, json=dict(actor_input),
                                params={"waitForFinish": min(60, timeout), "timeout": timeout})
        run = body.get("data") or {}
        deadline = time.monotonic() + self._run_timeout + 30
        while run.get("status") not in TERMINAL:
            if time.monotonic() > deadline:
                raise TransientError(f"Apify run {run.get('id')} did not finish in time",
                                     source_run=_source_run(run))
            body = await self._call("GET", f"/actor-runs/{run.get('id')}",
                                    params={"waitForFinish": 60})
            run = body.get("data") or {}
            if run.get("status") not in TERMINAL:
                await asyncio.sleep(1.0)
        if run.get("status") != "SUCCEEDED":
            raise TransientError(
                f"Apify run {run.get('id')} of {actor} ended {run.get('status')}",
                source_run=_source_run(run),
            )
        items = await self._call("GET", f"/datasets/{run.get('defaultDatasetId')}/items",
                                 params={"clean": "true", "format": "json"})
        if not isinstance(items, list):
            raise TransientError("Apify's dataset answer is not a list",
                                 source_run=_source_run(run))
        return items, _source_run(run, len(items))


def _error_type(response: httpx.Response) -> str | None:
    """`error.type` of an Apify API error answer (`{"error": {"type", "message"}}`)."""
    try:
        body = response.json()
    except ValueError:
        return None
    error = body.get("error") if isinstance(body, Mapping) else None
    kind = error.get("type") if isinstance(error, Mapping) else None
    return kind if isinstance(kind, str) else None


def _source_run(run: Mapping[str, Any], items: int = 0) -> SourceRun:
    cost = run.get("usageTotalUsd")
    return SourceRun(
        provider="apify",
        run_id=str(run.get("id") or ""),
        cost_usd=float(cost) if isinstance(cost, (int, float)) else None,
        status=str(run.get("status") or "UNKNOWN"),
        items=items,
    )


class ApifySource:
    """`fetch_profile` for one platform through its actor (`SORS_APIFY_<PLATFORM>_ACTOR`)."""

    def __init__(self, client: ApifyClient, platform: str, actor: str, *, limit: int) -> None:
        self._client = client
        self.platform = platform
        self._actor = actor
        self._limit = limit

    async def fetch_profile(self, handle: str, *, now: datetime) -> CrawlSnapshot:
        items, run = await self._client.run(
            self._actor, actor_input(self.platform, handle, self._limit),
            setting=ACTOR_SETTING[self.platform],
        )
        try:
            return snapshot_from_items(self.platform, handle, items, now=now, run=run)
        except PlatformError as exc:
            exc.source_run = run
            raise


def snapshot_from_items(
    platform: str, handle: str, items: Sequence[Mapping[str, Any]], *, now: datetime,
    run: SourceRun | None = None,
) -> CrawlSnapshot:
    """One profile's crawl from an actor's items. An actor's error item for the profile is
    read by its code (ITEM_ERRORS); an empty answer is an error, never "0 posts" (blocked
    scrapers answer empty)."""
    errors = [i for i in items if isinstance(i, Mapping) and apify_map.item_error(i)]
    grouped = apify_map.groups(platform_of(platform), items)
    found = [g for g in grouped if g.profile.handle == handle]
    if not found:
        if errors:
            raise item_failure(platform, handle, errors[0])
        raise EmptyAnswer(
            f"Apify returned no posts of @{handle} ({len(items)} items); an empty answer "
            "is an error (a blocked or changed scraper), not a profile with no posts"
        )
    posts = found[0].posts  # in the actor's order: newest first, pinned posts on top
    # YouTube's actor lists videos, then Shorts, each cut at the limit: no single range is
    # known complete, so nothing is judged deleted from it.
    complete = platform != "youtube" and listing_is_complete(posts)
    return CrawlSnapshot(
        profile=found[0].profile, posts=posts, fetched_at=now, listing_complete=complete,
        source="apify", source_run=run,
    )


# A comment actor's error item that says the post is gone (by its code, or its words when
# the actor gives no code).
_POST_GONE = ("not found", "not_found", "doesn't exist", "does not exist", "no such",
              "private", "unavailable", "couldn't find", "could not find", "isn't available")


class ApifyComments:
    """`fetch_comments` for TikTok and Instagram posts through their comment actors
    (`SORS_APIFY_<PLATFORM>_COMMENTS_ACTOR`); the run's cost travels as with crawls."""

    def __init__(self, client: ApifyClient, actors: Mapping[str, str]) -> None:
        self._client = client
        self._actors = actors

    async def fetch_comments(self, platform: str, post_id: str, post_url: str, *,
                             limit: int, now: datetime) -> CommentsSnapshot:
        actor = self._actors.get(platform)
        if actor is None:
            raise CommentsUnsupported(f"Apify has no comment actor configured for {platform}")
        items, run = await self._client.run(
            actor, comment_actor_input(platform, post_url, limit),
            setting=COMMENT_ACTOR_SETTING[platform])
        found = [c for c in apify_comments.comments_of(
            i for i in items if isinstance(i, Mapping)) if c.platform_post_id == post_id]
        errors = [e for e in (apify_map.item_error(i) for i in items if isinstance(i, Mapping))
                  if e]
        if not found and errors:
            failure = (PostNotFound if any(w in e.lower() for e in errors for w in _POST_GONE)
                       else TransientError)
            raise failure(f"Apify found no comments of {post_url}: {errors[0]}", source_run=run)
        # No comment at all is an answer here: many posts have none.
        return CommentsSnapshot(comments=found[:limit], fetched_at=now, source="apify",
                                source_run=run)
def item_failure(platform: str, handle: str, item: Mapping[str, Any]) -> PlatformError:
    """The typed failure of an actor's error item, by its code (ITEM_ERRORS)."""
    detail = apify_map.item_error(item)
    kind = ITEM_ERRORS.get(str(item.get("error") or ""), TransientError)
    if kind is ProfileNotFound:
        return ProfileNotFound(f"No {platform} profile @{handle}: {detail}")
    if kind is ProfilePrivate:
        return ProfilePrivate(f"@{handle} on {platform} shows nothing publicly: {detail}")
    return kind(f"Apify's actor failed for @{handle} ({detail}); retried")

"""X-Dry-Run quotes, walking the price list: for every billable skill the quote equals what
the real call then charges, and a quote changes nothing at all (every table's row count,
balance, ledger, jobs)."""

from __future__ import annotations

from typing import Any

import httpx
from sqlalchemy import text

from sors.billing.pricing import get_pricing
from sors.kit.db import Base, Database
from tests.agents.walk import make_targets
from tests.factories import auth, create_account
from tests.factories.jobs import run_jobs_until_idle

DRY = {"X-Dry-Run": "true"}
# The simulated clock's row, made by the first request of any kind (not by a skill).
SIM_PLUMBING = {"sim_state"}


async def _state(db: Database, account_id: str) -> dict[str, Any]:
    """Everything a call could change: every table's row count, and the balance."""
    async with db.session() as s:
        counts = {t.name: (await s.execute(text(f'SELECT count(*) FROM "{t.name}"'))).scalar_one()
                  for t in Base.metadata.sorted_tables if t.name not in SIM_PLUMBING}
        counts["balance"] = (await s.execute(text("SELECT balance FROM accounts WHERE id = :a"),
                                             {"a": account_id})).scalar_one()
    return counts


async def _request(client: httpx.AsyncClient, key: str, skill: str, args: dict[str, Any],
                   extra: dict[str, str] | None = None) -> httpx.Response:
    s = get_pricing().skills[skill]
    path, args = s.path, dict(args)
    for name in [p[1:-1] for p in path.split("/") if p.startswith("{")]:
        path = path.replace("{" + name + "}", str(args.pop(name)))
    headers = {**auth(key), **(extra or {})}
    if s.method == "GET":
        return await client.get(path, params=args, headers=headers)
    return await client.request(s.method, path, json=args, headers=headers)


async def test_quotes_walk_the_price_list(client: httpx.AsyncClient, db: Database,
                                          runtime) -> None:
    account_id, key = await create_account(db, credits=10_000)
    t = await make_targets(db, "d")
    calls: list[tuple[str, dict[str, Any], int]] = [
        # (skill, arguments, what the real call must charge)
        ("download_post_media", {"postId": t.post_id}, 3),  # not stored: a fetch job
        ("run_jobs", {}, 0),
        ("download_post_media", {"postId": t.post_id}, 0),  # first call after the fetch
        ("download_post_media", {"postId": t.post_id}, 3),
        ("crawl_profile", {"platform": "tiktok", "handle": "walk.d"}, 1),  # already tracked
        ("crawl_profile", {"platform": "instagram", "handle": t.new_handle}, 40),
        ("search_outliers", {"pageSize": 3}, 1),
        ("search_profiles", {"query": "walk"}, 1),
        ("get_post", {"postId": t.post_id}, 1),
        ("get_post_history", {"postId": t.post_id}, 1),
        ("get_profile", {"profileId": t.profile_ids[0]}, 1),
        ("resolve_post_url", {"url": t.post_url}, 1),
        ("compare_profiles", {"profileIds": t.profile_ids}, 2),
        ("niche_trends", {"query": "fitness"}, 2),
        ("find_breakouts", {"timeFrame": "all_time"}, 2),
        ("find_rising_posts", {"maxAgeHours": 168}, 2),
        ("find_trending_sounds", {"timeFrame": "one_month"}, 1),
        ("get_sound", {"soundId": t.sound_id}, 1),
        ("find_trending_hashtags", {"categoryId": "fitness"}, 1),
        ("request_transcript", {"postId": t.post_id}, 10),
        ("request_transcript", {"postId": t.post_id}, 0),  # this account's pending one
        ("remix_post", {"postId": t.post_id, "targetNiche": "home baking"}, 20),
        ("analyze_post", {"postId": t.post_id}, 15),
        ("search_hooks", {"hookTypes": ["question"]}, 1),
        ("fetch_comments", {"postId": t.post_id, "limit": 250}, 15),  # 3 started hundreds
        ("search_demand", {"timeFrame": "all_time"}, 2),
    ]
    billable = {k for k, s in get_pricing().skills.items() if s.credits > 0}
    walked = {skill for skill, _, _ in calls}
    assert billable <= walked, f"billable skills without a quote test: {billable - walked}"

    for skill, args, cost in calls:
        if skill == "run_jobs":
            assert await run_jobs_until_idle(runtime, timeout=300) >= 1
            continue
        before = await _state(db, account_id)
        quote = await _request(client, key, skill, args, DRY)
        assert quote.status_code == 200, (skill, quote.text)
        body = quote.json()
        assert body == {"dryRun": True, "skill": skill, "credits": cost,
                        "balance": before["balance"], "balanceAfter": before["balance"] - cost,
                        "queuesJob": body["queuesJob"], "keyCapRemaining": None}, skill
        assert quote.headers["x-credits-charged"] == "0"
        assert await _state(db, account_id) == before, f"the quote of {skill} changed something"

        real = await _request(client, key, skill, args)
        assert real.status_code == 200, (skill, real.text)
        assert int(real.headers["x-credits-charged"]) == body["credits"], skill
        after = await _state(db, account_id)
        assert after["balance"] == before["balance"] - cost
        assert (after["jobs"] > before["jobs"]) == body["queuesJob"], skill


async def test_quote_never_402_and_validates_like_the_real_call(
    client: httpx.AsyncClient, db: Database
) -> None:
    account_id, key = await create_account(db, credits=5)
    t = await make_targets(db, "v")
    remix = {"postId": t.post_id, "targetNiche": "home baking"}
    quote = await _request(client, key, "remix_post", remix, DRY)
    assert quote.status_code == 200
    assert quote.json()["balanceAfter"] == -15 and quote.json()["queuesJob"] is True
    assert (await _request(client, key, "remix_post", remix)).status_code == 402

    account_id, key = await create_account(db, credits=100, email="rich@example.com")
    before = await _state(db, account_id)
    for args in ({"postId": t.post_id, "targetNiche": "x"}, {"postId": "pst_missing",
                                                              "targetNiche": "home baking"}):
        fake = await _request(client, key, "remix_post", args, DRY)
        real = await _request(client, key, "remix_post", args)
        assert fake.status_code == real.status_code >= 400
        assert fake.json()["code"] == real.json()["code"]
    assert await _state(db, account_id) == before

    free = await _request(client, key, "get_credit_balance", {}, DRY)
    assert free.status_code == 422 and free.json()["errors"][0]["field"] == "X-Dry-Run"
    bad = await _request(client, key, "get_post", {"postId": t.post_id}, {"X-Dry-Run": "maybe"})
    assert bad.status_code == 422


async def test_quote_does_not_claim_the_idempotency_key(
    client: httpx.AsyncClient, db: Database
) -> None:
    _, key = await create_account(db, credits=100)
    once = {"Idempotency-Key": "quote-then-buy"}
    quote = await _request(client, key, "search_outliers", {}, {**DRY, **once})
    assert quote.json()["dryRun"] is True
    real = await _request(client, key, "search_outliers", {}, once)
    assert "results" in real.json() and real.headers["x-credits-charged"] == "1"
    assert "idempotent-replayed" not in real.headers

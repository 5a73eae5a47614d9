"""The console's Sounds page: trending sounds of a niche (one paid call per search), and a
sound's page with its uses per day."""

from __future__ import annotations

import httpx

from sors.billing.pricing import get_pricing
from tests.console.conftest import sign_in
from tests.factories import balance_and_ledger_sum, create_account
from tests.sounds.conftest import NICHE, Niche


async def test_the_sounds_page_lists_a_niches_sounds_and_opens_one(niche: Niche, app) -> None:
    account_id, key = await create_account(niche.db, credits=100, email="sounds@example.com")
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 5604))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        await sign_in(c, key)
        empty = await c.get("/app/sounds")
        assert empty.status_code == 200 and "Find sounds" in empty.text
        assert await balance_and_ledger_sum(niche.db, account_id) == (100, 100)
        r = await c.get("/app/sounds", params={"go": "1", "categoryId": NICHE,
                                               "timeFrame": "two_weeks"})
        assert r.status_code == 200, r.text
        api = await niche.client.post("/api/v1/trends/sounds", headers=niche.headers,
                                      json={"categoryId": NICHE, "timeFrame": "two_weeks"})
        found = api.json()["sounds"]
        assert found
        for s in found:
            assert f'id="sound-{s["soundId"]}"' in r.text
        one = await c.get(f"/app/sounds/{found[0]['soundId']}")
        assert one.status_code == 200, one.text
        assert 'id="sound-usage"' in one.text and found[0]["title"] in one.text
        missing = await c.get("/app/sounds/snd_nope")
        assert missing.status_code == 404
    prices = get_pricing()
    spent = prices.cost("find_trending_sounds") + prices.cost("get_sound")
    assert await balance_and_ledger_sum(niche.db, account_id) == (100 - spent, 100 - spent)

"""The console's Demand page: the same POST /demand/search a client sends, charged the same,
drawn as a table of what the audience asks with what no post answers marked."""

from __future__ import annotations

import re

import httpx
import pytest

from sors.platforms.sim.comments import planted
from tests.demand.world import NICHE, seed_niche
from tests.factories import balance_and_ledger_sum, create_account

pytestmark = pytest.mark.usefixtures("clean")


async def test_the_demand_page_shows_the_clusters_and_the_unanswered_question(
    client: httpx.AsyncClient, db, settings
) -> None:
    await seed_niche(db, settings)
    account_id, key = await create_account(db, credits=10)
    signed = await client.post("/app/signin", data={"api_key": key, "next": "/app/demand"})
    assert signed.status_code in (302, 303), signed.text
    empty = await client.get("/app/demand")
    assert empty.status_code == 200 and 'id="demand-cost">costs 2 credits<' in empty.text
    assert 'href="/app/demand" aria-current="page"' in empty.text
    assert await balance_and_ledger_sum(db, account_id) == (10, 10)  # a form costs nothing

    page = await client.get("/app/demand", params={
        "categoryId": NICHE, "timeFrame": "all_time", "sortBy": "unanswered"})
    assert page.status_code == 200, page.text
    assert await balance_and_ledger_sum(db, account_id) == (8, 8)
    assert re.search(r'data-charged="2"', page.text)
    answered, unanswered = planted(NICHE)
    rows = re.findall(r'<tr data-comment="[^"]+" data-covered="(\w+)">\s*<td><q>([^<]+)</q>',
                      page.text)
    assert rows and rows[0][0] == "false"  # unanswered first
    assert ("false", unanswered.replace("'", "&#39;")) in rows
    assert ("true", answered) in rows
    assert "<strong>unanswered</strong>" in page.text and "answered by <a" in page.text

    bad = await client.get("/app/demand", params={"minSize": "0"})
    assert bad.status_code == 422 and "minSize" in bad.text
    assert await balance_and_ledger_sum(db, account_id) == (8, 8)

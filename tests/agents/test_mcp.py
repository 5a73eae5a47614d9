"""The MCP door against a real `sors serve`: the official client over Streamable HTTP (and
`sors mcp` over stdio) sees one tool per priced skill, every tool works, and a set of tool
calls leaves exactly the ledger the same set of HTTP calls leaves."""

from __future__ import annotations

import os
import sys
from typing import Any

import httpx
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from sqlalchemy import text

from sors.kit.db import Database
from tests.agents.conftest import mcp_session
from tests.agents.walk import make_targets, missing_from_walk, walk
from tests.factories import auth, create_account, create_member_key


async def _charges(db: Database, account_id: str) -> list[tuple[str, int]]:
    async with db.session() as s:
        rows = await s.execute(text(
            "SELECT skill, -delta, request_id FROM ledger_entries WHERE account_id = :a "
            "AND kind = 'charge' ORDER BY balance_after DESC"), {"a": account_id})
        out = []
        for skill, credits, request_id in rows:
            assert request_id, "every charge names its request"
            out.append((skill, credits))
        return out


async def test_tools_are_the_price_list(sors_serve: str, db: Database) -> None:
    _, key = await create_account(db, credits=10)
    skills = httpx.get(sors_serve + "/api/v1/pricing").json()["skills"]
    async with mcp_session(sors_serve, key) as session:
        tools = (await session.list_tools()).tools
    assert [t.name for t in tools] == [s["key"] for s in skills]
    by_name = {t.name: t for t in tools}
    for s in skills:
        tool = by_name[s["key"]]
        assert tool.title == s["title"] and tool.annotations and tool.annotations.title
        assert tool.input_schema["type"] == "object" and tool.output_schema
        cost = "free (0 credits)" if s["credits"] == 0 else f"Cost: {s['credits']} credit"
        assert cost in (tool.description or ""), s["key"]
        assert ("dryRun" in tool.input_schema["properties"]) == (s["credits"] > 0)
        if s["method"] == "DELETE":
            assert tool.annotations.destructive_hint is True
    assert by_name["search_outliers"].annotations.read_only_hint is True
    assert by_name["crawl_profile"].annotations.read_only_hint is False
    assert "page" in by_name["search_outliers"].input_schema["properties"]
    assert by_name["get_post"].input_schema["required"] == ["postId"]


async def test_mcp_and_http_leave_the_same_ledger(sors_serve: str, db: Database) -> None:
    mcp_account, mcp_key = await create_account(db, credits=10_000, email="mcp@example.com")
    http_account, http_key = await create_account(db, credits=10_000, email="http@example.com")
    mcp_targets, http_targets = await make_targets(db, "m"), await make_targets(db, "h")
    skills = [s["key"] for s in httpx.get(sors_serve + "/api/v1/pricing").json()["skills"]]
    mcp_charged: list[int] = []
    http_charged: list[int] = []

    async with mcp_session(sors_serve, mcp_key) as session:
        async def over_mcp(name: str, args: dict[str, Any]) -> dict[str, Any]:
            result = await session.call_tool(name, args)
            assert not result.is_error, (name, result.content)
            assert isinstance(result.structured_content, dict), name
            assert result.content and result.content[0].type == "text"
            assert result.meta is not None and "creditsCharged" in result.meta, name
            mcp_charged.append(result.meta["creditsCharged"])
            return result.structured_content

        walked = await walk(over_mcp, mcp_targets)
    assert not missing_from_walk(skills, walked), (
        f"skills without a call in tests/agents/walk.py: {missing_from_walk(skills, walked)}")

    async with httpx.AsyncClient(base_url=sors_serve, headers=auth(http_key), timeout=60) as http:
        price_list = {s["key"]: s for s in (await http.get("/api/v1/pricing")).json()["skills"]}

        async def over_http(name: str, args: dict[str, Any]) -> dict[str, Any]:
            skill, args = price_list[name], dict(args)
            path = skill["path"]
            for part in [p[1:-1] for p in path.split("/") if p.startswith("{")]:
                path = path.replace("{" + part + "}", str(args.pop(part)))
            if skill["method"] == "GET" or name == "untrack_profile":
                r = await http.request(skill["method"], path, params=args)
            else:
                r = await http.request(skill["method"], path, json=args)
            assert r.status_code == 200, (name, r.text)
            http_charged.append(int(r.headers.get("x-credits-charged", 0)))
            return r.json()

        await walk(over_http, http_targets)

    assert mcp_charged == http_charged
    mcp_ledger, http_ledger = await _charges(db, mcp_account), await _charges(db, http_account)
    assert mcp_ledger == http_ledger
    assert sum(c for _, c in mcp_ledger) == sum(mcp_charged) > 0


async def test_failures_are_tool_errors(sors_serve: str, db: Database) -> None:
    _, key = await create_account(db, credits=1)
    targets = await make_targets(db, "e")
    async with mcp_session(sors_serve, key) as session:
        bad = await session.call_tool("search_outliers", {"minOutlierScore": -1})
        assert bad.is_error and bad.meta["code"] == "validation_error"
        assert bad.structured_content["errors"][0]["field"]
        missing = await session.call_tool("get_post", {"postId": "pst_nope"})
        assert missing.is_error and missing.meta["code"] == "post_not_found"
        quote = await session.call_tool("get_post", {"postId": targets.post_id, "dryRun": True})
        assert not quote.is_error and quote.meta["creditsCharged"] == 0
        assert quote.structured_content == {"dryRun": True, "skill": "get_post", "credits": 1,
                                            "balance": 1, "balanceAfter": 0, "queuesJob": False,
                                            "keyCapRemaining": None}
        ok = await session.call_tool("get_post", {"postId": targets.post_id})
        assert not ok.is_error and ok.meta["creditsCharged"] == 1 and ok.meta["balance"] == 0
        broke = await session.call_tool("compare_profiles", {"profileIds": targets.profile_ids})
        assert broke.is_error and broke.meta["code"] == "insufficient_credits"
        assert broke.structured_content["required"] == 2
        assert broke.structured_content["balance"] == 0
        assert "create_topup_link" in broke.content[0].text
        assert broke.meta["creditsCharged"] == 0 and broke.meta["balance"] == 0
        unknown = await session.call_tool("no_such_skill", {})
        assert unknown.is_error and unknown.meta["code"] == "unknown_tool"


async def test_next_page_hint(sors_serve: str, db: Database) -> None:
    _, key = await create_account(db, credits=10)
    await make_targets(db, "p")
    async with mcp_session(sors_serve, key) as session:
        first = await session.call_tool("search_outliers", {"pageSize": 2})
        assert first.structured_content["hasMore"] is True
        following = first.meta["nextCall"]
        assert following == {"name": "search_outliers", "arguments": {"pageSize": 2, "page": 2}}
        second = await session.call_tool(following["name"], following["arguments"])
        assert second.structured_content["page"] == 2
        ids = {r["id"] for r in first.structured_content["results"]}
        assert ids.isdisjoint(r["id"] for r in second.structured_content["results"])


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer sors_not_a_real_key_at_all"}])
def test_no_key_is_401_before_any_session(sors_serve: str, headers: dict[str, str]) -> None:
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}}
    r = httpx.post(sors_serve + "/mcp", json=init, headers={
        **headers, "Accept": "application/json, text/event-stream"})
    assert r.status_code == 401
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["code"] == "unauthorized"
    assert "mcp-session-id" not in r.headers


async def test_sors_mcp_over_stdio(sors_serve: str, db: Database) -> None:
    _, key = await create_account(db, credits=10)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "sors.cli.main", "mcp"],
        env={"SORS_API_URL": sors_serve, "SORS_API_KEY": key,
             "PATH": os.environ.get("PATH", "")},
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        names = [t.name for t in (await session.list_tools()).tools]
        assert "search_outliers" in names and "get_credit_balance" in names
        result = await session.call_tool("get_credit_balance", {})
        assert not result.is_error
        assert result.structured_content["balance"] == 10
        assert result.meta["balance"] == 10


async def test_a_viewers_key_reads_free_tools_only(sors_serve: str, db: Database) -> None:
    account_id, _ = await create_account(db, credits=100, email="team@example.com")
    _, viewer = await create_member_key(db, account_id, role="viewer")
    targets = await make_targets(db, "v")
    async with mcp_session(sors_serve, viewer) as session:
        free = await session.call_tool("get_credit_balance", {})
        assert not free.is_error and free.structured_content["balance"] == 100
        paid = await session.call_tool("get_post", {"postId": targets.post_id})
        assert paid.is_error and paid.meta["code"] == "role_forbidden"
        change = await session.call_tool("track_profile", {"profileId": targets.profile_ids[0]})
        assert change.is_error and change.meta["code"] == "role_forbidden"
    assert await _charges(db, account_id) == []


async def test_a_capped_key_cannot_change_billing_or_invite_over_mcp(
    sors_serve: str, db: Database
) -> None:
    """The authorisation table holds on the MCP door too (it calls the API in process)."""
    from sors.accounts import service as accounts

    account_id, _ = await create_account(db, credits=100, email="agentcap@example.com")
    async with db.transaction() as s:
        capped = await accounts.create_key(s, account_id, name="agent", daily_credit_cap=10)
    async with mcp_session(sors_serve, capped) as session:
        billing = await session.call_tool("cancel_subscription", {})
        assert billing.is_error and billing.meta["code"] == "capped_key_forbidden"
        plan = await session.call_tool("change_subscription",
                                       {"planId": "pro", "interval": "month"})
        assert plan.is_error and plan.meta["code"] == "capped_key_forbidden"
        free = await session.call_tool("get_credit_balance", {})
        assert not free.is_error
    assert await _charges(db, account_id) == []

"""Workspace members through HTTP: seats from the plan, an invitation by signed link and
email, accepting it (a key shown once), roles enforced (a member spends the shared balance
and the ledger names them; a viewer reads free resources only, on the API and in the
console), and removal revoking every key of the member at once."""

from __future__ import annotations

import email
import email.policy
import re
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlparse

import httpx
import pytest

from tests.console.conftest import sign_in
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.world import (  # noqa: F401 - sim_time_restored is a fixture
    seed_profile,
    set_time,
    sim_time_restored,
)
from tests.subscriptions.test_local import outbox_subjects, subscribe

pytestmark = pytest.mark.usefixtures("sim_time_restored")

T0 = datetime(2026, 8, 3, 9, 0, tzinfo=UTC)


async def invite(client: httpx.AsyncClient, key: str, email: str, role: str) -> httpx.Response:
    return await client.post(
        "/api/v1/members", json={"email": email, "role": role}, headers=auth(key)
    )


async def accept(client: httpx.AsyncClient, invite_url: str) -> httpx.Response:
    token = parse_qs(urlparse(invite_url).query)["token"][0]
    page = await client.get("/members/accept", params={"token": token})
    assert page.status_code == 200 and 'method="post"' in page.text
    return await client.post("/members/accept", data={"token": token})


def invite_link(settings, address: str) -> str:
    """The invitation link, from the email sent to `address` (only there: the API answer
    does not hold it)."""
    for path in sorted(settings.outbox_dir.glob("*.eml")):
        msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        if str(msg["To"]) == address and "invited" in str(msg["Subject"]):
            found = re.search(r"https?://\S+/members/accept\?token=[\w.\-]+",
                              msg.get_body(("plain",)).get_content())
            assert found, msg
            return found.group(0)
    raise AssertionError(f"no invitation to {address} in the outbox")


def key_on(page: str) -> str:
    found = re.search(r"<code>(sors_[^<]+)</code>", page)
    assert found, page
    return found.group(1)


async def test_members_share_the_balance_by_role_and_removal_revokes_their_keys(
    client: httpx.AsyncClient, db, app, settings
) -> None:
    await set_time(db, T0)
    owner_id, owner = await create_account(db, credits=1000, email="owner@example.com")
    pid = await seed_profile(db, "tiktok", "team.one", T0)

    # Without a plan the owner is the only seat.
    r = await invite(client, owner, "ana@example.com", "member")
    assert r.status_code == 403 and (r.json()["code"], r.json()["limit"]) == (
        "plan_limit_reached", "seats"
    )
    assert r.json()["upgradePlanId"] == "pro"
    await subscribe(client, owner, "agency")
    settings.outbox_dir.mkdir(parents=True, exist_ok=True)
    before = set(settings.outbox_dir.glob("*.eml"))
    ana = await invite(client, owner, "Ana@Example.com", "member")
    assert ana.status_code == 200, ana.text
    assert (ana.json()["email"], ana.json()["status"]) == ("ana@example.com", "invited")
    assert outbox_subjects(settings, before) == ["You are invited to a sors workspace"]
    assert (await invite(client, owner, "ana@example.com", "viewer")).status_code == 409
    vic = await invite(client, owner, "vic@example.com", "viewer")
    assert vic.status_code == 200

    # Accepting shows the member's own key once.
    assert "inviteUrl" not in ana.json()  # the link goes to the address only
    done = await accept(client, invite_link(settings, "ana@example.com"))
    assert done.status_code == 200
    ana_key = key_on(done.text)
    token = parse_qs(urlparse(invite_link(settings, "ana@example.com")).query)["token"][0]
    again = await client.post("/members/accept", data={"token": token})
    assert again.status_code == 410 and "sors_" not in again.text
    assert (await client.get("/members/accept", params={"token": "x" * 40})).status_code == 410

    # A member spends the shared balance; the ledger names the member.
    r = await client.get(f"/api/v1/profiles/{pid}", headers=auth(ana_key))
    assert r.status_code == 200 and r.headers["x-credits-charged"] == "1"
    assert await balance_and_ledger_sum(db, owner_id) == (999, 999)
    ledger = (await client.get("/api/v1/credits/ledger", headers=auth(owner))).json()["results"]
    charge = next(e for e in ledger if e["kind"] == "charge")
    assert (charge["skill"], charge["memberId"]) == ("get_profile", ana.json()["memberId"])
    # Members do not manage the workspace; their keys are their own.
    r = await invite(client, ana_key, "eve@example.com", "member")
    assert r.status_code == 403 and r.json()["code"] == "role_forbidden"
    made = await client.post("/api/v1/keys", json={"name": "ana's agent"}, headers=auth(ana_key))
    assert made.status_code == 201
    theirs = (await client.get("/api/v1/keys", headers=auth(ana_key))).json()["results"]
    assert len(theirs) == 2
    assert len((await client.get("/api/v1/keys", headers=auth(owner))).json()["results"]) == 3

    # A viewer reads free resources only: no paid call, no change — on the API and in the
    # console (which calls the API in process).
    vic_key = key_on((await accept(client, invite_link(settings, "vic@example.com"))).text)
    assert (await client.get("/api/v1/credits", headers=auth(vic_key))).status_code == 200
    assert (await client.get("/api/v1/subscriptions", headers=auth(vic_key))).status_code == 200
    r = await client.get(f"/api/v1/profiles/{pid}", headers=auth(vic_key))
    assert r.status_code == 403 and r.json()["code"] == "role_forbidden"
    r = await client.post(
        "/api/v1/tracking", json={"profileId": pid}, headers=auth(vic_key)
    )
    assert r.status_code == 403
    assert await balance_and_ledger_sum(db, owner_id) == (999, 999)
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 5557))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as console:
        await sign_in(console, vic_key)
        assert (await console.get("/app/credits")).status_code == 200
        shown = await console.get(f"/app/profiles/{pid}")
        assert "viewer of the workspace" in shown.text
    assert await balance_and_ledger_sum(db, owner_id) == (999, 999)

    # Removing a member revokes every one of their keys at once.
    r = await client.delete(f"/api/v1/members/{ana.json()['memberId']}", headers=auth(owner))
    assert r.status_code == 200 and r.json()["keysRevoked"] == 2
    assert (await client.get("/api/v1/credits", headers=auth(ana_key))).status_code == 401
    listed = (await client.get("/api/v1/members", headers=auth(owner))).json()["results"]
    assert [m["email"] for m in listed] == ["vic@example.com"]
    assert (await client.delete("/api/v1/members/mem_nope", headers=auth(owner))).status_code == 404

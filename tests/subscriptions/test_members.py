"""Workspace members through HTTP: seats from the plan, an invitation by signed link and
email, accepting it (a key shown once), roles enforced (a member spends the shared balance
and the ledger names them; a viewer reads free resources only, on the API and in the
console), and removal revoking every key of the member at once: one test per step, each on
a fresh workspace brought to that step by the steps before it."""

from __future__ import annotations

import email
import email.policy
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
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
    does not hold it): the newest one sent there."""
    newest_first = sorted(settings.outbox_dir.glob("*.eml"), key=lambda p: p.stat().st_mtime_ns,
                          reverse=True)
    for path in newest_first:
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


@dataclass
class Workspace:
    """An owner with 1,000 credits and a profile in the catalog, and what the steps so far
    did: Ana's (member) and Vic's (viewer) invitations and the keys they accepted."""

    client: httpx.AsyncClient
    db: Any
    settings: Any
    owner_id: str
    owner: str  # the owner's key
    pid: str
    ana: dict[str, Any] = field(default_factory=dict)
    vic: dict[str, Any] = field(default_factory=dict)
    ana_key: str = ""
    vic_key: str = ""

    async def before(self, step: Callable[[Workspace], Awaitable[Any]] | None = None) -> None:
        """Run the steps before `step` (all of them without one); their own tests check
        them."""
        for earlier in STEPS[: STEPS.index(step) if step else len(STEPS)]:
            await earlier(self)


@pytest.fixture
async def workspace(client: httpx.AsyncClient, db, settings) -> Workspace:
    await set_time(db, T0)
    owner_id, owner = await create_account(db, credits=1000, email="owner@example.com")
    pid = await seed_profile(db, "tiktok", "team.one", T0)
    return Workspace(client, db, settings, owner_id, owner, pid)


# ---- the steps, in order: each does what the scenario does and returns what it saw


async def invite_both(
    w: Workspace,
) -> tuple[httpx.Response, list[str], httpx.Response, httpx.Response]:
    """On the agency plan, the owner invites Ana as a member (the email it sent), Ana again
    as a viewer, and Vic as a viewer."""
    await subscribe(w.client, w.owner, "agency")
    w.settings.outbox_dir.mkdir(parents=True, exist_ok=True)
    before = set(w.settings.outbox_dir.glob("*.eml"))
    ana = await invite(w.client, w.owner, "Ana@Example.com", "member")
    emailed = outbox_subjects(w.settings, before)
    again = await invite(w.client, w.owner, "ana@example.com", "viewer")
    vic = await invite(w.client, w.owner, "vic@example.com", "viewer")
    w.ana, w.vic = ana.json(), vic.json()
    return ana, emailed, again, vic


async def accept_ana(w: Workspace) -> tuple[httpx.Response, httpx.Response, httpx.Response]:
    """Ana accepts (the page shows her key), then her link and a made-up one are tried."""
    assert "inviteUrl" not in w.ana  # the link goes to the address only
    done = await accept(w.client, invite_link(w.settings, "ana@example.com"))
    w.ana_key = key_on(done.text)
    token = parse_qs(urlparse(invite_link(w.settings, "ana@example.com")).query)["token"][0]
    again = await w.client.post("/members/accept", data={"token": token})
    made_up = await w.client.get("/members/accept", params={"token": "x" * 40})
    return done, again, made_up


async def ana_reads_a_profile(w: Workspace) -> httpx.Response:
    return await w.client.get(f"/api/v1/profiles/{w.pid}", headers=auth(w.ana_key))


async def ana_invites_and_makes_a_key(w: Workspace) -> tuple[httpx.Response, httpx.Response]:
    invited = await invite(w.client, w.ana_key, "eve@example.com", "member")
    made = await w.client.post(
        "/api/v1/keys", json={"name": "ana's agent"}, headers=auth(w.ana_key))
    return invited, made


async def vic_accepts(w: Workspace) -> None:
    w.vic_key = key_on((await accept(w.client, invite_link(w.settings, "vic@example.com"))).text)


STEPS: tuple[Callable[[Workspace], Awaitable[Any]], ...] = (
    invite_both, accept_ana, ana_reads_a_profile, ana_invites_and_makes_a_key, vic_accepts,
)


# ---- one test per step


async def test_without_a_plan_the_owner_is_the_only_seat(workspace: Workspace) -> None:
    w = workspace
    r = await invite(w.client, w.owner, "ana@example.com", "member")
    assert r.status_code == 403 and (r.json()["code"], r.json()["limit"]) == (
        "plan_limit_reached", "seats"
    )
    assert r.json()["upgradePlanId"] == "pro"


async def test_an_invitation_is_emailed_once_per_address(workspace: Workspace) -> None:
    ana, emailed, again, vic = await invite_both(workspace)
    assert ana.status_code == 200, ana.text
    assert (ana.json()["email"], ana.json()["status"]) == ("ana@example.com", "invited")
    assert emailed == ["You are invited to a sors workspace"]
    assert again.status_code == 409
    assert vic.status_code == 200


async def test_accepting_shows_the_members_own_key_once(workspace: Workspace) -> None:
    await workspace.before(accept_ana)
    done, again, made_up = await accept_ana(workspace)
    assert done.status_code == 200
    assert again.status_code == 410 and "sors_" not in again.text
    assert made_up.status_code == 410


async def test_a_member_spends_the_shared_balance_and_the_ledger_names_them(
    workspace: Workspace,
) -> None:
    w = workspace
    await w.before(ana_reads_a_profile)
    r = await ana_reads_a_profile(w)
    assert r.status_code == 200 and r.headers["x-credits-charged"] == "1"
    assert await balance_and_ledger_sum(w.db, w.owner_id) == (999, 999)
    ledger = (await w.client.get("/api/v1/credits/ledger", headers=auth(w.owner))).json()
    charge = next(e for e in ledger["results"] if e["kind"] == "charge")
    assert (charge["skill"], charge["memberId"]) == ("get_profile", w.ana["memberId"])


async def test_a_member_does_not_manage_the_workspace_and_keeps_their_own_keys(
    workspace: Workspace,
) -> None:
    w = workspace
    await w.before(ana_invites_and_makes_a_key)
    r, made = await ana_invites_and_makes_a_key(w)
    assert r.status_code == 403 and r.json()["code"] == "role_forbidden"
    assert made.status_code == 201
    theirs = (await w.client.get("/api/v1/keys", headers=auth(w.ana_key))).json()["results"]
    assert len(theirs) == 2
    assert len((await w.client.get("/api/v1/keys", headers=auth(w.owner))).json()["results"]) == 3


async def test_a_viewer_reads_free_resources_only_on_the_api_and_in_the_console(
    workspace: Workspace, app
) -> None:
    # No paid call, no change — on the API and in the console (which calls the API in
    # process).
    w = workspace
    await w.before(vic_accepts)
    await vic_accepts(w)
    client, vic_key, pid = w.client, w.vic_key, w.pid
    assert (await client.get("/api/v1/credits", headers=auth(vic_key))).status_code == 200
    assert (await client.get("/api/v1/subscriptions", headers=auth(vic_key))).status_code == 200
    r = await client.get(f"/api/v1/profiles/{pid}", headers=auth(vic_key))
    assert r.status_code == 403 and r.json()["code"] == "role_forbidden"
    r = await client.post(
        "/api/v1/tracking", json={"profileId": pid}, headers=auth(vic_key)
    )
    assert r.status_code == 403
    assert await balance_and_ledger_sum(w.db, w.owner_id) == (999, 999)
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 5557))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as console:
        await sign_in(console, vic_key)
        assert (await console.get("/app/credits")).status_code == 200
        shown = await console.get(f"/app/profiles/{pid}")
        assert "viewer of the workspace" in shown.text
    assert await balance_and_ledger_sum(w.db, w.owner_id) == (999, 999)


async def test_removing_a_member_revokes_every_one_of_their_keys_at_once(
    workspace: Workspace,
) -> None:
    w = workspace
    await w.before()
    client, owner = w.client, w.owner
    r = await client.delete(f"/api/v1/members/{w.ana['memberId']}", headers=auth(owner))
    assert r.status_code == 200 and r.json()["keysRevoked"] == 2
    assert (await client.get("/api/v1/credits", headers=auth(w.ana_key))).status_code == 401
    listed = (await client.get("/api/v1/members", headers=auth(owner))).json()["results"]
    assert [m["email"] for m in listed] == ["vic@example.com"]
    assert (await client.delete("/api/v1/members/mem_nope", headers=auth(owner))).status_code == 404

"""The authorisation table (docs/API.md, "Authorisation"), row by row through HTTP: which
roles may spend, use the workspace, top up, manage keys, webhooks, members and billing, and
what a key with a daily cap may not do — nothing that could lift its cap."""

from __future__ import annotations

from dataclasses import dataclass

import httpx
import pytest
from sqlalchemy import text

from sors.accounts import service as accounts
from sors.accounts.permissions import RULES, Action
from tests.factories import auth, create_account, create_member_key


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    json: dict | None = None


# One representative call per action; each one is refused before it changes anything when
# the caller may not, and gets past the rule (any answer but 403) when it may.
CALLS: dict[Action, Call] = {
    Action.READ: Call("GET", "/api/v1/credits"),
    Action.SPEND: Call("POST", "/api/v1/search/content", {"pageSize": 1}),
    Action.USE: Call("POST", "/api/v1/boards", {"name": "ideas"}),
    Action.TOP_UP: Call("POST", "/api/v1/credits/topup", {"packId": "pack_s"}),
    Action.MANAGE_KEYS: Call("POST", "/api/v1/keys", {"name": "another"}),
    Action.MANAGE_WEBHOOKS: Call("PUT", "/api/v1/webhooks/settings", {"creditsLowThreshold": 5}),
    Action.MANAGE_MEMBERS: Call("POST", "/api/v1/members",
                                {"email": "new@example.com", "role": "member"}),
    Action.MANAGE_BILLING: Call("POST", "/api/v1/subscriptions/cancel"),
}
REFUSALS = {"role_forbidden", "capped_key_forbidden", "capped_key_cannot_manage_keys"}
HOLDERS = [("owner", False), ("owner", True), ("member", False), ("member", True),
           ("viewer", False)]


async def _key(db, account_id: str, role: str, capped: bool) -> str:
    member_id = None
    if role != "owner":
        member_id, _ = await create_member_key(db, account_id, role=role,
                                               email=f"{role}{int(capped)}@example.com")
    async with db.transaction() as s:
        return await accounts.create_key(s, account_id, name=f"{role} key",
                                         daily_credit_cap=10 if capped else None,
                                         member_id=member_id)


def test_every_action_has_a_rule_and_a_call() -> None:
    assert set(RULES) == set(Action) == set(CALLS)


@pytest.mark.parametrize(("role", "capped"), HOLDERS)
async def test_the_table_holds_for_every_role_and_cap(
    client: httpx.AsyncClient, db, role: str, capped: bool
) -> None:
    account_id, _ = await create_account(db, credits=1000, email="team@example.com")
    key = await _key(db, account_id, role, capped)
    for action, call in CALLS.items():
        rule = RULES[action]
        r = await client.request(call.method, call.path, json=call.json, headers=auth(key))
        may = role in rule.roles and (rule.capped or not capped)
        if may:  # past the rule: whatever else may refuse it (seats, a plan), not the rule
            refused = r.status_code == 403 and r.json()["code"] in REFUSALS
            assert not refused, (role, capped, action, r.text)
        else:
            assert r.status_code == 403, (role, capped, action, r.text)
            expected = ("role_forbidden" if role not in rule.roles else
                        "capped_key_cannot_manage_keys" if action is Action.MANAGE_KEYS
                        else "capped_key_forbidden")
            assert r.json()["code"] == expected, (role, capped, action, r.text)
            assert r.headers.get("x-credits-charged") in (None, "0")


async def test_a_capped_owner_key_cannot_invite_itself_an_uncapped_key(
    client: httpx.AsyncClient, db
) -> None:
    account_id, _ = await create_account(db, credits=100, email="boss@example.com")
    capped = await _key(db, account_id, "owner", True)
    r = await client.post("/api/v1/members", json={"email": "agent@example.com",
                                                   "role": "owner"}, headers=auth(capped))
    assert r.status_code == 403 and r.json()["code"] == "capped_key_forbidden"
    async with db.session() as s:
        invited = (await s.execute(text("SELECT count(*) FROM members"))).scalar()
    assert invited == 0
    for path in ("/api/v1/subscriptions/change", "/api/v1/subscriptions/checkout"):
        r = await client.post(path, json={"planId": "pro", "interval": "month"},
                              headers=auth(capped))
        assert r.status_code == 403 and r.json()["code"] == "capped_key_forbidden", r.text
    for path in ("/api/v1/subscriptions/resume", "/api/v1/subscriptions/portal"):
        r = await client.post(path, headers=auth(capped))
        assert r.status_code == 403 and r.json()["code"] == "capped_key_forbidden", r.text
    r = await client.post("/api/v1/keys", json={"name": "escape"}, headers=auth(capped))
    assert r.status_code == 403 and r.json()["code"] == "capped_key_cannot_manage_keys"


async def test_a_cap_set_a_moment_ago_already_counts(client: httpx.AsyncClient, db) -> None:
    """Management actions read the key afresh: the key cache's second does not let a key
    whose cap was just set mint another."""
    account_id, owner = await create_account(db, credits=100, email="fresh@example.com")
    assert (await client.get("/api/v1/keys", headers=auth(owner))).status_code == 200  # cached
    async with db.transaction() as s:
        await s.execute(text("UPDATE api_keys SET daily_credit_cap = 5 WHERE account_id = :a"),
                        {"a": account_id})
    r = await client.post("/api/v1/keys", json={"name": "x"}, headers=auth(owner))
    assert r.status_code == 403 and r.json()["code"] == "capped_key_cannot_manage_keys"


async def test_a_removed_members_racing_key_stops_working(client: httpx.AsyncClient, db) -> None:
    account_id, owner = await create_account(db, credits=100, email="lead@example.com")
    member_id, member = await create_member_key(db, account_id, role="member")
    # The member mints a key, the owner removes the member: both keys stop at once.
    made = await client.post("/api/v1/keys", json={"name": "mine"}, headers=auth(member))
    assert made.status_code == 201
    second = made.json()["apiKey"]
    removed = await client.delete(f"/api/v1/members/{member_id}", headers=auth(owner))
    assert removed.status_code == 200 and removed.json()["keysRevoked"] == 2
    # A key that a creation racing the removal committed after it (the removal's UPDATE did
    # not see it): the key holder's lookup refuses a removed member's key all the same.
    async with db.transaction() as s:
        raced = await accounts.create_key(s, account_id, name="raced", member_id=member_id)
    for key in (member, second, raced):
        r = await client.get("/api/v1/credits", headers=auth(key))
        assert r.status_code == 401, r.text
    # And a creation that comes after the removal is refused by the member row's lock.
    async with db.transaction() as s:
        status = (await s.execute(text("SELECT status FROM members WHERE id = :m"),
                                  {"m": member_id})).scalar()
    assert status == "removed"


async def test_removal_and_key_creation_are_serialised(db) -> None:
    """keys.create locks the member row and checks it is active: a creation that waited on
    the removal's lock is refused, so no key of a removed member is ever made after it."""
    from sors.accounts import keys
    from sors.accounts.errors import RoleForbidden
    from sors.kit.principal import Principal

    account_id, _ = await create_account(db, email="lock@example.com")
    member_id, _ = await create_member_key(db, account_id, role="member")
    async with db.transaction() as s:
        await s.execute(text("UPDATE members SET status = 'removed' WHERE id = :m"),
                        {"m": member_id})
    caller = Principal(account_id, "key_x", role="member", member_id=member_id)
    async with db.transaction() as s:
        with pytest.raises(RoleForbidden):
            await keys.create(s, caller, name="late", daily_credit_cap=None)


async def test_idempotency_is_the_keys_own_and_keeps_no_secret(
    client: httpx.AsyncClient, db
) -> None:
    account_id, owner = await create_account(db, credits=100, email="idem@example.com")
    _, other = await create_member_key(db, account_id, role="member")
    headers = {**auth(owner), "Idempotency-Key": "make-a-key"}
    first = await client.post("/api/v1/keys", json={"name": "ci"}, headers=headers)
    assert first.status_code == 201
    secret, key_id = first.json()["apiKey"], first.json()["keyId"]
    # Another key of the account reusing the Idempotency-Key and body runs its own request.
    theirs = await client.post("/api/v1/keys", json={"name": "ci"},
                               headers={**auth(other), "Idempotency-Key": "make-a-key"})
    assert theirs.status_code == 201 and theirs.headers.get("idempotent-replayed") is None
    assert theirs.json()["keyId"] != key_id and theirs.json()["apiKey"] != secret
    # The sender's own retry names the key it made, never its secret.
    again = await client.post("/api/v1/keys", json={"name": "ci"}, headers=headers)
    assert again.status_code == 409 and again.json()["code"] == "already_created"
    assert again.json()["resourceId"] == key_id and secret not in again.text
    assert again.headers["idempotent-replayed"] == "true"
    async with db.session() as s:
        bodies = (await s.execute(text("SELECT body FROM idempotency_keys"))).scalars().all()
    assert bodies and not any(b and secret.encode() in b for b in bodies)
    assert not any(b and b"sors_" in b for b in bodies)

"""Viral alert emails over HTTP and through the scheduler: addresses and their
confirmation, the keyless stop and confirm pages, unfunded digests and real SMTP delivery."""

from __future__ import annotations

import email
import email.policy
from collections.abc import Iterator
from datetime import timedelta

import httpx
import pytest

from sors.billing import service as billing
from tests.alerts.helpers import (
    OWNER,
    T0,
    alert_with_a_hit,
    alerts_of,
    bare_profiles,
    link_in,
    outbox_files,
    outlier_profile,
    read_new,
    recrawl,
    text_of,
    tick,
)
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.accounts import sim_now
from tests.factories.smtp import Inbox, free_port, smtp_on_loopback
from tests.factories.world import rows, scalar, set_time

pytestmark = pytest.mark.usefixtures("sim_time_restored")

# ---- addresses: confirmation, unconfirmed limit, hits collected but not sent -------------


async def test_unconfirmed_address_collects_hits_and_sends_after_confirmation(
    client: httpx.AsyncClient, db, runtime, app, settings
) -> None:
    await set_time(db, T0)
    pid = await outlier_profile(db, "alert.friend")
    other_pids = await bare_profiles(db, 4, "unc")
    account_id, key = await create_account(db, credits=100, email=OWNER)
    h = auth(key)
    seen = outbox_files(settings)

    r = await client.post(
        "/api/v1/alerts",
        json={"email": "Friend@Example.org", "profileId": pid, "sendHour": 0},
        headers=h,
    )
    alert = r.json()["alert"]
    assert (
        alert["addressStatus"] == "pending_confirmation" and alert["email"] == "friend@example.org"
    )
    [confirm] = read_new(settings, seen)
    assert confirm["To"] == "friend@example.org" and "@alert.friend" in confirm["Subject"]
    confirm_path = link_in(text_of(confirm), "/alerts/confirm/")

    # The same address again: no second confirmation email.
    await client.post(
        "/api/v1/alerts",
        json={"email": "friend@example.org", "profileId": other_pids[0]},
        headers=h,
    )
    assert read_new(settings, seen) == []
    # Two more unconfirmed addresses are fine; a fourth is refused; the own address never counts.
    for addr, p in (("b@example.net", other_pids[1]), ("c@example.net", other_pids[2])):
        assert (
            await client.post("/api/v1/alerts", json={"email": addr, "profileId": p}, headers=h)
        ).status_code == 200
    r = await client.post(
        "/api/v1/alerts", json={"email": "d@example.net", "profileId": other_pids[3]}, headers=h
    )
    assert r.status_code == 409 and r.json()["code"] == "unconfirmed_address_limit"
    assert (
        await client.post(
            "/api/v1/alerts", json={"email": OWNER, "profileId": other_pids[3]}, headers=h
        )
    ).status_code == 200
    assert len(read_new(settings, seen)) == 2  # b@ and c@ got their confirmation

    # A completed crawl brings a hit; the unconfirmed address is sent nothing.
    await recrawl(db, "alert.friend", T0 + timedelta(hours=1))
    await set_time(db, T0 + timedelta(hours=1))
    done = await tick(runtime)
    assert done["alerts.detect"] == 1 and done["alerts.digests"] == 0
    assert (await alerts_of(client, key))[alert["alertId"]]["pendingHits"] == 1
    assert read_new(settings, seen) == []

    # GET on the confirmation link only shows a button; a bad or cross-purpose token is refused.
    page = await client.get(confirm_path)
    assert (
        page.status_code == 200
        and 'method="post"' in page.text
        and "friend@example.org" in page.text
    )
    assert (await alerts_of(client, key))[alert["alertId"]][
        "addressStatus"
    ] == "pending_confirmation"
    assert (await client.post(confirm_path[:-3] + "xyz")).status_code == 400
    stop_token = confirm_path.rsplit("/", 1)[1]
    assert (await client.post(f"/alerts/stop/{stop_token}")).status_code == 400

    r = await client.post(confirm_path)  # no API key needed
    assert r.status_code == 200 and "confirmed" in r.text.lower()
    assert (await alerts_of(client, key))[alert["alertId"]]["addressStatus"] == "confirmed"

    done = await tick(runtime)
    assert done["alerts.digests"] == 1
    [digest] = read_new(settings, seen)
    assert digest["To"] == "friend@example.org"
    # Simulated posts have no platform page: the link leads to the demo's own page for it.
    post_id = await scalar(db, "SELECT id FROM posts WHERE views = 20000")
    assert f"http://testserver/sim/posts/{post_id}" in text_of(digest)
    assert await balance_and_ledger_sum(db, account_id) == (95, 95)
    assert (await alerts_of(client, key))[alert["alertId"]]["pendingHits"] == 0


# ---- stop links -------------------------------------------------------------------------


async def test_one_click_unsubscribe_stops_without_a_key(
    client: httpx.AsyncClient, db, runtime, app, settings
) -> None:
    seen = outbox_files(settings)
    _, key, alert = await alert_with_a_hit(client, db, "alert.stop", 50, timedelta(hours=2))
    h = auth(key)
    assert (await tick(runtime))["alerts.digests"] == 1
    [digest] = read_new(settings, seen)
    unsubscribe = digest["List-Unsubscribe"].strip("<> ").removeprefix("http://testserver")

    page = await client.get(unsubscribe)  # what a link scanner does: nothing changes
    assert page.status_code == 200 and "@alert.stop" in page.text
    assert (await alerts_of(client, key))[alert["alertId"]]["status"] == "active"

    r = await client.post(
        unsubscribe,
        content=b"List-Unsubscribe=One-Click",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert r.status_code == 200
    now = (await alerts_of(client, key))[alert["alertId"]]
    assert (now["status"], now["endedReason"]) == ("ended", "stopped")
    assert (await client.get("/api/v1/tracking", headers=h)).json()["results"] == []
    again = await client.post(unsubscribe)
    assert again.status_code == 200 and "already" in again.text


# ---- digests that cannot be paid, and real SMTP delivery ---------------------------------


async def test_unfunded_digest_keeps_hits_and_retries_three_hours_later(
    client: httpx.AsyncClient, db, runtime, app, settings
) -> None:
    seen = outbox_files(settings)
    account_id, key, alert = await alert_with_a_hit(
        client, db, "alert.broke", 4, timedelta(hours=1)
    )
    assert (await tick(runtime))["alerts.digests"] == 0
    assert read_new(settings, seen) == []
    assert (await alerts_of(client, key))[alert["alertId"]]["pendingHits"] == 1
    assert await balance_and_ledger_sum(db, account_id) == (4, 4)

    async with db.transaction() as s:
        await billing.grant(s, account_id, 6, reason="top-up", now=await sim_now(db))
    await set_time(db, T0 + timedelta(hours=3, minutes=59))
    assert (await tick(runtime))["alerts.digests"] == 0  # not before the retry time
    await set_time(db, T0 + timedelta(hours=4))
    assert (await tick(runtime))["alerts.digests"] == 1
    assert len(read_new(settings, seen)) == 1
    assert await balance_and_ledger_sum(db, account_id) == (5, 5)
    a = (await alerts_of(client, key))[alert["alertId"]]
    assert a["pendingHits"] == 0 and a["emailsSent"] == 1


@pytest.fixture
def smtp_server() -> Iterator[tuple[Inbox, int]]:
    with smtp_on_loopback() as running:
        yield running


def _smtp(settings, *, port: int, timeout: float):
    """The test settings with email sent over SMTP to 127.0.0.1:`port`."""
    smtp = settings.email.model_copy(
        update={"backend": "smtp", "smtp_port": port, "smtp_timeout": timeout}
    )
    return settings.model_copy(update={"email": smtp})


async def test_digest_over_smtp_and_a_failed_delivery_is_undone(
    client: httpx.AsyncClient, db, runtime, settings, smtp_server
) -> None:
    inbox, port = smtp_server
    account_id, key, alert = await alert_with_a_hit(
        client, db, "alert.smtp", 20, timedelta(hours=1)
    )

    closed = free_port()  # nothing listens there
    try:
        runtime.settings = _smtp(settings, port=closed, timeout=3.0)
        assert (await tick(runtime))["alerts.digests"] == 0
        # Nothing was delivered: the charge is refunded, the hit and the day's key are free.
        a = (await alerts_of(client, key))[alert["alertId"]]
        assert a["pendingHits"] == 1 and a["emailsSent"] == 0
        assert await balance_and_ledger_sum(db, account_id) == (20, 20)
        assert [
            r["kind"]
            for r in await rows(
                db,
                "SELECT kind FROM ledger_entries WHERE account_id = :a ORDER BY id",
                a=account_id,
            )
        ] == ["grant", "charge", "refund"]
        assert (
            await scalar(db, "SELECT status FROM email_outbox WHERE kind = 'alert_digest'")
            == "failed"
        )

        runtime.settings = _smtp(settings, port=port, timeout=5.0)
        await set_time(db, T0 + timedelta(minutes=119))
        assert (await tick(runtime))["alerts.digests"] == 0  # retried an hour later
        await set_time(db, T0 + timedelta(hours=2))
        assert (await tick(runtime))["alerts.digests"] == 1
    finally:
        runtime.settings = settings
    [(rcpts, raw)] = [(m.to, m.raw) for m in inbox.messages]
    assert rcpts == [OWNER]
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert msg["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert "@alert.smtp" in text_of(msg)
    assert await balance_and_ledger_sum(db, account_id) == (15, 15)
    statuses = sorted(
        r["status"]
        for r in await rows(db, "SELECT status FROM email_outbox WHERE kind = 'alert_digest'")
    )
    assert statuses == ["failed", "sent"]

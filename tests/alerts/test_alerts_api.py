"""Viral alerts over HTTP and through the scheduler: validation, limits, addresses and their
confirmation, the keyless stop and confirm pages, ending alerts (and the monitoring they
started), expiry, unfunded digests and real SMTP delivery."""

from __future__ import annotations

import email
import email.policy
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from aiosmtpd.controller import Controller

from sors.billing import service as billing
from sors.config import get_settings, set_settings
from sors.jobs.scheduler import Scheduler
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.world import (
    hand_crawl,
    ingest,
    outlier_posts,
    rows,
    scalar,
    set_time,
)

pytestmark = pytest.mark.usefixtures("sim_time_restored")

T0 = datetime(2026, 7, 6, 10, 0, tzinfo=UTC)
OWNER = "owner@example.com"


async def outlier_profile(db, handle: str) -> str:
    return await ingest(db, hand_crawl(handle, outlier_posts(handle, T0), T0))


async def recrawl(db, handle: str, at: datetime) -> None:
    """Another completed crawl of the profile (its outlier is still there)."""
    await ingest(db, hand_crawl(handle, outlier_posts(handle, T0), at))


async def tick(db, settings) -> dict[str, int]:
    return await Scheduler(db, settings).tick()


def outbox_files(settings) -> set[Path]:
    settings.outbox_dir.mkdir(parents=True, exist_ok=True)
    return set(settings.outbox_dir.glob("*.eml"))


def read_new(settings, before: set[Path]) -> list[email.message.EmailMessage]:
    files = sorted(outbox_files(settings) - before)
    before.update(files)
    return [email.message_from_bytes(f.read_bytes(), policy=email.policy.default) for f in files]


def text_of(msg) -> str:
    return msg.get_body(("plain",)).get_content()


def link_in(text: str, marker: str) -> str:
    line = next(ln for ln in text.splitlines() if marker in ln)
    url = next(w for w in line.split() if w.startswith("http"))
    return url.removeprefix("http://testserver")


async def alerts_of(client, key) -> dict[str, dict]:
    r = await client.get("/api/v1/alerts", headers=auth(key))
    assert r.status_code == 200
    return {a["alertId"]: a for a in r.json()["results"]}


# ---- validation, defaults, update in place -------------------------------------------------


async def test_validation_defaults_and_update_in_place(client: httpx.AsyncClient, db, app) -> None:
    await set_time(db, T0, app)
    pid = await outlier_profile(db, "alert.valid")
    _, key = await create_account(db, email=OWNER)
    h = auth(key)
    ok = {"email": OWNER, "profileId": pid}
    bad = [
        ({"profileId": pid}, "email"),
        ({**ok, "email": "not-an-address"}, "email"),
        ({**ok, "email": "a@b"}, "email"),
        ({**ok, "minOutlierScore": 1.4}, "minOutlierScore"),
        ({**ok, "minOutlierScore": "3"}, "minOutlierScore"),
        ({**ok, "postAgeDays": 0}, "postAgeDays"),
        ({**ok, "postAgeDays": 31}, "postAgeDays"),
        ({**ok, "postAgeDays": 7.5}, "postAgeDays"),
        ({**ok, "expiresInDays": 0}, "expiresInDays"),
        ({**ok, "expiresInDays": 91}, "expiresInDays"),
        ({**ok, "sendHour": -1}, "sendHour"),
        ({**ok, "sendHour": 24}, "sendHour"),
        ({**ok, "timezone": "Mars/Olympus_Mons"}, "timezone"),
        ({**ok, "timezone": "../../etc/passwd"}, "timezone"),
        ({**ok, "scoreWindow": "one_day"}, "scoreWindow"),
        ({**ok, "frequency": "hourly"}, "frequency"),
        ({"email": OWNER}, "profileId"),
    ]
    for body, fld in bad:
        r = await client.post("/api/v1/alerts", json=body, headers=h)
        assert r.status_code == 422, (body, r.text)
        problem = r.json()
        assert problem["code"] == "validation_error" and problem["errors"][0]["field"] == fld, (
            problem
        )
    r = await client.post(
        "/api/v1/alerts", json={"email": OWNER, "profileId": "prf_unknown"}, headers=h
    )
    assert r.status_code == 404 and r.json()["code"] == "profile_not_found"
    assert (await client.post("/api/v1/alerts", json=ok)).status_code == 401
    assert await scalar(db, "SELECT count(*) FROM alerts") == 0

    r = await client.post("/api/v1/alerts", json=ok, headers=h)
    assert r.status_code == 200 and r.headers["x-credits-charged"] == "0"
    body = r.json()
    assert body["created"] is True
    a = body["alert"]
    assert a["alertId"].startswith("alr_") and a["email"] == OWNER and a["profileId"] == pid
    assert (a["platform"], a["handle"]) == ("tiktok", "alert.valid")
    assert {
        k: a[k]
        for k in (
            "minOutlierScore",
            "scoreWindow",
            "postAgeDays",
            "expiresInDays",
            "sendHour",
            "timezone",
            "frequency",
        )
    } == {
        "minOutlierScore": 3.0,
        "scoreWindow": "three_months",
        "postAgeDays": 7,
        "expiresInDays": 30,
        "sendHour": 9,
        "timezone": "UTC",
        "frequency": "daily",
    }
    assert a["status"] == "active" and a["endedReason"] is None and a["emailsSent"] == 0
    assert a["pendingHits"] == 0 and a["startedTracking"] is True
    assert a["addressStatus"] == "confirmed"
    assert a["expiresAt"] == "2026-08-05T10:00:00Z" and a["createdAt"] == "2026-07-06T10:00:00Z"

    # Same account, profile and address: updated in place; unsent settings keep their values.
    r = await client.post(
        "/api/v1/alerts",
        json={
            **ok,
            "email": "OWNER@example.com",
            "sendHour": 18,
            "timezone": "Europe/Berlin",
            "expiresInDays": 2,
        },
        headers=h,
    )
    body = r.json()
    assert body["created"] is False and body["alert"]["alertId"] == a["alertId"]
    b = body["alert"]
    assert (b["sendHour"], b["timezone"], b["minOutlierScore"]) == (18, "Europe/Berlin", 3.0)
    assert b["expiresAt"] == "2026-07-08T10:00:00Z"
    assert list(await alerts_of(client, key)) == [a["alertId"]]


# ---- limits -----------------------------------------------------------------------------


async def _bare_profiles(db, n: int, prefix: str) -> list[str]:
    ids = [f"prf_{prefix}{i:03d}" for i in range(n)]
    async with db.transaction() as s:
        from sqlalchemy import text

        for i, pid in enumerate(ids):
            await s.execute(
                text(
                    "INSERT INTO profiles (id, platform, handle, last_crawled_at) VALUES (:i, 'tiktok', :h, :t)"
                ),
                {"i": pid, "h": f"{prefix}.{i}", "t": T0},
            )
    return ids


async def test_25_active_alerts_per_account(client: httpx.AsyncClient, db, app) -> None:
    await set_time(db, T0, app)
    pids = await _bare_profiles(db, 26, "lim")
    _, key = await create_account(db, email=OWNER)
    _, other = await create_account(db, email="other@example.com")
    h = auth(key)
    ids = []
    for pid in pids[:25]:
        r = await client.post("/api/v1/alerts", json={"email": OWNER, "profileId": pid}, headers=h)
        assert r.status_code == 200, r.text
        ids.append(r.json()["alert"]["alertId"])
    r = await client.post("/api/v1/alerts", json={"email": OWNER, "profileId": pids[25]}, headers=h)
    assert r.status_code == 409 and r.json()["code"] == "alert_limit_reached"
    # Updating one of the 25 is not a 26th.
    r = await client.post(
        "/api/v1/alerts", json={"email": OWNER, "profileId": pids[0], "sendHour": 7}, headers=h
    )
    assert r.status_code == 200 and r.json()["created"] is False

    # Another account cannot see or delete them.
    r = await client.delete(f"/api/v1/alerts/{ids[0]}", headers=auth(other))
    assert r.status_code == 404 and r.json()["code"] == "alert_not_found"
    assert (await client.delete("/api/v1/alerts/alr_nope", headers=h)).status_code == 404
    r = await client.delete(f"/api/v1/alerts/{ids[0]}", headers=h)
    assert r.status_code == 200
    assert (r.json()["status"], r.json()["endedReason"]) == ("ended", "deleted")
    r = await client.post("/api/v1/alerts", json={"email": OWNER, "profileId": pids[25]}, headers=h)
    assert r.status_code == 200 and r.json()["created"] is True
    listed = await alerts_of(client, key)
    assert len(listed) == 26 and sum(a["status"] == "active" for a in listed.values()) == 25


# ---- addresses: confirmation, unconfirmed limit, hits collected but not sent -------------


async def test_unconfirmed_address_collects_hits_and_sends_after_confirmation(
    client: httpx.AsyncClient, db, app, settings
) -> None:
    await set_time(db, T0, app)
    pid = await outlier_profile(db, "alert.friend")
    other_pids = await _bare_profiles(db, 4, "unc")
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
    await set_time(db, T0 + timedelta(hours=1), app)
    done = await tick(db, settings)
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

    done = await tick(db, settings)
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
    client: httpx.AsyncClient, db, app, settings
) -> None:
    await set_time(db, T0, app)
    await outlier_profile(db, "alert.stop")
    _, key = await create_account(db, credits=50, email=OWNER)
    h = auth(key)
    seen = outbox_files(settings)
    alert = (
        await client.post(
            "/api/v1/alerts",
            json={"email": OWNER, "platform": "tiktok", "handle": "alert.stop", "sendHour": 0},
            headers=h,
        )
    ).json()["alert"]
    await recrawl(db, "alert.stop", T0 + timedelta(hours=2))
    await set_time(db, T0 + timedelta(hours=2), app)
    assert (await tick(db, settings))["alerts.digests"] == 1
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


# ---- ending and the monitoring alerts started ----------------------------------------------


async def test_ending_alerts_stops_only_monitoring_nothing_else_needs(
    client: httpx.AsyncClient, db, app
) -> None:
    await set_time(db, T0, app)
    p_user, p_alerts = await _bare_profiles(db, 2, "end")
    _, key = await create_account(db, email=OWNER)
    h = auth(key)

    # Monitoring the user asked for is kept when the alert on it ends.
    await client.post("/api/v1/tracking", json={"profileId": p_user}, headers=h)
    a0 = (
        await client.post("/api/v1/alerts", json={"email": OWNER, "profileId": p_user}, headers=h)
    ).json()["alert"]
    assert a0["startedTracking"] is False
    await client.delete(f"/api/v1/alerts/{a0['alertId']}", headers=h)

    # Two alerts on one profile: the monitoring they started lasts until both have ended.
    a1 = (
        await client.post(
            "/api/v1/alerts",
            json={"email": OWNER, "profileId": p_alerts, "frequency": "every_3_days"},
            headers=h,
        )
    ).json()["alert"]
    a2 = (
        await client.post(
            "/api/v1/alerts", json={"email": "second@example.com", "profileId": p_alerts}, headers=h
        )
    ).json()["alert"]
    assert a1["startedTracking"] is True and a2["startedTracking"] is False

    async def tracked() -> dict[str, dict]:
        return {
            e["profileId"]: e
            for e in (await client.get("/api/v1/tracking", headers=h)).json()["results"]
        }

    t = await tracked()
    assert t[p_user]["startedBy"] == "user" and t[p_alerts]["startedBy"] == "alert"
    assert t[p_alerts]["frequency"] == "every_3_days"
    await client.delete(f"/api/v1/alerts/{a1['alertId']}", headers=h)
    assert set(await tracked()) == {p_user, p_alerts}
    await client.delete(f"/api/v1/alerts/{a2['alertId']}", headers=h)
    assert set(await tracked()) == {p_user}
    # Deleting an ended alert changes nothing.
    r = await client.delete(f"/api/v1/alerts/{a1['alertId']}", headers=h)
    assert r.status_code == 200 and r.json()["endedReason"] == "deleted"

    # Tracking a profile an alert monitors makes it the user's: it outlives the alert.
    a3 = (
        await client.post("/api/v1/alerts", json={"email": OWNER, "profileId": p_alerts}, headers=h)
    ).json()["alert"]
    r = await client.post(
        "/api/v1/tracking", json={"profileId": p_alerts, "frequency": "weekly"}, headers=h
    )
    assert r.json()["startedBy"] == "user"
    await client.delete(f"/api/v1/alerts/{a3['alertId']}", headers=h)
    assert set(await tracked()) == {p_user, p_alerts}


async def test_expiry_ends_the_alert_and_its_monitoring(
    client: httpx.AsyncClient, db, app, settings
) -> None:
    await set_time(db, T0, app)
    [pid] = await _bare_profiles(db, 1, "exp")
    _, key = await create_account(db, email=OWNER)
    h = auth(key)
    alert = (
        await client.post(
            "/api/v1/alerts",
            json={"email": OWNER, "profileId": pid, "expiresInDays": 1, "frequency": "weekly"},
            headers=h,
        )
    ).json()["alert"]
    await set_time(db, T0 + timedelta(hours=23), app)
    assert (await tick(db, settings))["alerts.end"] == 0
    await set_time(db, T0 + timedelta(days=1), app)
    assert (await tick(db, settings))["alerts.end"] == 1
    a = (await alerts_of(client, key))[alert["alertId"]]
    assert (a["status"], a["endedReason"]) == ("ended", "expired") and a[
        "endedAt"
    ] == "2026-07-07T10:00:00Z"
    assert (await client.get("/api/v1/tracking", headers=h)).json()["results"] == []


# ---- digests that cannot be paid, and real SMTP delivery ---------------------------------


async def test_unfunded_digest_keeps_hits_and_retries_three_hours_later(
    client: httpx.AsyncClient, db, app, settings
) -> None:
    await set_time(db, T0, app)
    await outlier_profile(db, "alert.broke")
    account_id, key = await create_account(db, credits=4, email=OWNER)
    h = auth(key)
    seen = outbox_files(settings)
    alert = (
        await client.post(
            "/api/v1/alerts",
            json={"email": OWNER, "platform": "tiktok", "handle": "alert.broke", "sendHour": 0},
            headers=h,
        )
    ).json()["alert"]
    await recrawl(db, "alert.broke", T0 + timedelta(hours=1))
    await set_time(db, T0 + timedelta(hours=1), app)
    assert (await tick(db, settings))["alerts.digests"] == 0
    assert read_new(settings, seen) == []
    assert (await alerts_of(client, key))[alert["alertId"]]["pendingHits"] == 1
    assert await balance_and_ledger_sum(db, account_id) == (4, 4)

    async with db.transaction() as s:
        await billing.grant(s, account_id, 6, reason="top-up")
    await set_time(db, T0 + timedelta(hours=3, minutes=59), app)
    assert (await tick(db, settings))["alerts.digests"] == 0  # not before the retry time
    await set_time(db, T0 + timedelta(hours=4), app)
    assert (await tick(db, settings))["alerts.digests"] == 1
    assert len(read_new(settings, seen)) == 1
    assert await balance_and_ledger_sum(db, account_id) == (5, 5)
    a = (await alerts_of(client, key))[alert["alertId"]]
    assert a["pendingHits"] == 0 and a["emailsSent"] == 1


@dataclass
class Inbox:
    messages: list = field(default_factory=list)

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(
            (list(envelope.rcpt_tos), bytes(envelope.original_content or envelope.content))
        )
        return "250 Message accepted for delivery"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def smtp_server() -> Iterator[tuple[Inbox, int]]:
    inbox, port = Inbox(), _free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


async def test_digest_over_smtp_and_a_failed_delivery_is_undone(
    client: httpx.AsyncClient, db, app, settings, smtp_server
) -> None:
    inbox, port = smtp_server
    await set_time(db, T0, app)
    await outlier_profile(db, "alert.smtp")
    account_id, key = await create_account(db, credits=20, email=OWNER)
    h = auth(key)
    alert = (
        await client.post(
            "/api/v1/alerts",
            json={"email": OWNER, "platform": "tiktok", "handle": "alert.smtp", "sendHour": 0},
            headers=h,
        )
    ).json()["alert"]
    await recrawl(db, "alert.smtp", T0 + timedelta(hours=1))
    await set_time(db, T0 + timedelta(hours=1), app)

    original = get_settings()
    closed = _free_port()  # nothing listens there
    try:
        set_settings(
            settings.model_copy(
                update={"email_backend": "smtp", "smtp_port": closed, "smtp_timeout": 3.0}
            )
        )
        assert (await tick(db, settings))["alerts.digests"] == 0
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

        set_settings(
            settings.model_copy(
                update={"email_backend": "smtp", "smtp_port": port, "smtp_timeout": 5.0}
            )
        )
        await set_time(db, T0 + timedelta(minutes=119), app)
        assert (await tick(db, settings))["alerts.digests"] == 0  # retried an hour later
        await set_time(db, T0 + timedelta(hours=2), app)
        assert (await tick(db, settings))["alerts.digests"] == 1
    finally:
        set_settings(original)
    [(rcpts, raw)] = inbox.messages
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

"""Viral alerts over HTTP: validation, defaults and update in place, the limits, ending
alerts (and the monitoring they started), expiry. Their emails: test_alert_emails."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest

from tests.alerts.helpers import (
    OWNER,
    T0,
    alerts_of,
    bare_profiles,
    outlier_profile,
    tick,
)
from tests.factories import auth, create_account
from tests.factories.world import scalar, set_time

pytestmark = pytest.mark.usefixtures("sim_time_restored")

# ---- validation, defaults, update in place -------------------------------------------------


async def test_validation_defaults_and_update_in_place(client: httpx.AsyncClient, db, app) -> None:
    await set_time(db, T0)
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


async def test_25_active_alerts_per_account(client: httpx.AsyncClient, db, app) -> None:
    await set_time(db, T0)
    pids = await bare_profiles(db, 26, "lim")
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


# ---- ending and the monitoring alerts started ----------------------------------------------


async def test_ending_alerts_stops_only_monitoring_nothing_else_needs(
    client: httpx.AsyncClient, db, app
) -> None:
    await set_time(db, T0)
    p_user, p_alerts = await bare_profiles(db, 2, "end")
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
    client: httpx.AsyncClient, db, runtime, app, settings
) -> None:
    await set_time(db, T0)
    [pid] = await bare_profiles(db, 1, "exp")
    _, key = await create_account(db, email=OWNER)
    h = auth(key)
    alert = (
        await client.post(
            "/api/v1/alerts",
            json={"email": OWNER, "profileId": pid, "expiresInDays": 1, "frequency": "weekly"},
            headers=h,
        )
    ).json()["alert"]
    await set_time(db, T0 + timedelta(hours=23))
    assert (await tick(runtime))["alerts.end"] == 0
    await set_time(db, T0 + timedelta(days=1))
    assert (await tick(runtime))["alerts.end"] == 1
    a = (await alerts_of(client, key))[alert["alertId"]]
    assert (a["status"], a["endedReason"]) == ("ended", "expired") and a[
        "endedAt"
    ] == "2026-07-07T10:00:00Z"
    assert (await client.get("/api/v1/tracking", headers=h)).json()["results"] == []

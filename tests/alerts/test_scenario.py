"""The monitoring and alert lifecycle end to end, on the simulated world, driven by its
clock and by what `sors scheduler run-once` does (tick, run the queued jobs, tick again): one
test per step of the scenario (tests/alerts/scenario.py), each on a fresh world brought to
that step by the steps before it, so that a failure names the step that broke. Every
assertion is made on what the real pipeline did.
"""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest

from tests.alerts.scenario import (
    T0,
    Lifecycle,
    day_at,
    days_until_the_third_steady_email,
    new_emails,
    pick_handles,
    read_updates,
    refresh_day_one,
    run_again,
    send_digest,
    stop_links,
    stop_outlier_alert,
    track_and_alert,
)
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.world import rows, run_once, scalar, seed_profile, set_time

pytestmark = pytest.mark.usefixtures("sim_time_restored")


@pytest.fixture
async def lifecycle(client: httpx.AsyncClient, db, runtime, settings) -> Lifecycle:
    feed_a, feed_b, outlier, steady, _ = pick_handles()
    await set_time(db, T0)
    pids = {h: await seed_profile(db, "tiktok", h, T0) for h in (feed_a, feed_b, outlier, steady)}
    account_id, key = await create_account(db, credits=2000, email="owner@example.com")
    outbox = settings.outbox_dir
    outbox.mkdir(parents=True, exist_ok=True)
    return Lifecycle(client, db, runtime, account_id, auth(key), pids, outbox,
                     set(outbox.glob("*.eml")))


# ---- one test per step


async def test_tracking_and_alerts_start_daily_monitoring(lifecycle: Lifecycle) -> None:
    s = lifecycle
    feed_a, _, outlier, _, _ = s.handles
    track_a, track_b, alert_x, _ = await track_and_alert(s)
    assert track_a.status_code == 200, track_a.text
    assert track_b.status_code == 200, track_b.text
    assert alert_x.status_code == 200, alert_x.text
    x = s.x
    assert alert_x.json()["created"] is True
    assert (
        x["addressStatus"] == "confirmed" and x["startedTracking"] is True
    )  # the account's own address
    assert (x["minOutlierScore"], x["scoreWindow"], x["postAgeDays"], x["frequency"]) == (
        3.0,
        "three_months",
        7,
        "daily",
    )
    tracked = await s.tracked()
    assert tracked[outlier]["startedBy"] == "alert" and tracked[outlier]["frequency"] == "daily"
    assert tracked[feed_a]["startedBy"] == "user" and len(tracked) == 4
    assert new_emails(s.outbox, s.seen) == []  # no confirmation for the account's own address


async def test_day_one_refreshes_find_outliers_and_mail_nothing_before_nine(
    lifecycle: Lifecycle,
) -> None:
    s = lifecycle
    await s.before(refresh_day_one)
    first, ran, second = await refresh_day_one(s)
    assert first["monitoring.refresh"] == 3 and ran == 3  # A (daily), X, Y; B not yet
    assert second["alerts.detect"] > 0 and second["alerts.digests"] == 0
    assert new_emails(s.outbox, s.seen) == []
    assert await balance_and_ledger_sum(s.db, s.account_id) == (2000 - 30, 2000 - 30)


async def test_the_updates_list_every_new_post_once_oldest_stored_first(
    lifecycle: Lifecycle,
) -> None:
    s = lifecycle
    await s.before(read_updates)
    expected, page1, page2, page3 = await read_updates(s)
    assert (
        await scalar(
            s.db,
            "SELECT count(*) FROM posts WHERE profile_id = :p AND first_seen_at > :t",
            p=s.pids[s.handles[0]],
            t=T0,
        )
        > 0
    )
    assert [p["id"] for p in page1["results"] + page2["results"]] == expected
    assert page1["hasMore"] is (len(expected) > 2) and page2["hasMore"] is False
    assert page3["results"] == []


async def test_the_digest_goes_out_at_nine_with_the_outlier_posts_for_5_credits(
    lifecycle: Lifecycle,
) -> None:
    s = lifecycle
    await s.before(send_digest)
    (first, ran, _), sent = await send_digest(s)
    assert ran == 0 and first["alerts.digests"] == 1
    [digest] = sent
    assert digest["To"] == "owner@example.com"
    assert digest["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert digest["List-Unsubscribe"].startswith("<http://testserver/alerts/stop/")
    assert (
        digest["X-Sors-Idempotency-Key"].strip()
        == f"digest:{s.account_id}:owner@example.com:2026-06-02"
    )
    body = s.digest_body
    hits = await rows(
        s.db,
        "SELECT h.alert_id, h.post_id, p.score_three_months AS score, p.published_at "
        "FROM alert_hits h JOIN posts p ON p.id = h.post_id WHERE h.digest_id IS NOT NULL",
    )
    assert {hit["alert_id"] for hit in hits} == {s.x["alertId"], s.y["alertId"]}
    for hit in hits:
        # Simulated posts have no platform page: the link leads to the demo's own page.
        assert f"http://testserver/sim/posts/{hit['post_id']}" in body
        if hit["alert_id"] == s.x["alertId"]:
            assert hit["score"] >= 3.0 and hit["published_at"] >= day_at(1, 12) - timedelta(days=7)
    assert f"@{s.handles[2]}" in body and "views" in body
    charges = await rows(
        s.db,
        "SELECT delta, skill FROM ledger_entries WHERE account_id = :a AND skill = 'alert_email'",
        a=s.account_id,
    )
    assert charges == [{"delta": -5, "skill": "alert_email"}]
    assert await balance_and_ledger_sum(s.db, s.account_id) == (2000 - 35, 2000 - 35)


async def test_a_second_run_the_same_day_sends_nothing(lifecycle: Lifecycle) -> None:
    s = lifecycle
    await s.before(run_again)
    (first, ran, second), sent = await run_again(s)
    assert first["alerts.digests"] == second["alerts.digests"] == 0 and ran == 0
    assert sent == []


async def test_a_stop_link_shows_a_button_on_get_and_stops_the_alert_on_post(
    lifecycle: Lifecycle,
) -> None:
    s = lifecycle
    await s.before(stop_outlier_alert)
    x, y = s.x["alertId"], s.y["alertId"]
    alerts = await s.alerts()
    assert alerts[x]["emailsSent"] == 1 and alerts[x]["pendingHits"] == 0
    # One stop link per alert in the digest; the page names the alert's profile.
    links = stop_links(s.digest_body)
    assert len(links) == 2
    path_x = None
    for path in links:
        page = await s.client.get(path)
        assert page.status_code == 200 and '<form method="post"' in page.text
        if f"@{s.handles[2]}" in page.text:
            path_x = path
    assert path_x is not None
    assert {i: a["status"] for i, a in (await s.alerts()).items()} == {x: "active", y: "active"}
    done = await s.client.post(path_x)  # no API key
    assert done.status_code == 200 and "stopped" in done.text
    alerts = await s.alerts()
    assert alerts[x]["status"] == "ended" and alerts[x]["endedReason"] == "stopped"
    tracked = await s.tracked()
    # The stopped alert's monitoring stopped.
    assert s.handles[2] not in tracked and s.handles[3] in tracked


async def test_the_steady_alert_ends_with_its_third_email_and_its_monitoring(
    lifecycle: Lifecycle,
) -> None:
    s = lifecycle
    feed_a, feed_b, _, _, steady_days = s.handles
    await s.before(days_until_the_third_steady_email)
    days = await days_until_the_third_steady_email(s)
    for d, got, updates in days:
        assert got == (1 if d in steady_days else 0), (d, steady_days)
        if updates is not None:  # B's first refresh (every 3 days) brought its new posts
            assert any(p["handle"] == feed_b for p in updates["results"])
    assert days[-1][0] == steady_days[2]
    y_now = (await s.alerts())[s.y["alertId"]]
    assert y_now["status"] == "ended" and y_now["endedReason"] == "emails_exhausted"
    assert y_now["emailsSent"] == 3
    # The tracking the alert started stopped with it.
    assert set(await s.tracked()) == {feed_a, feed_b}
    n_charges = await scalar(
        s.db,
        "SELECT count(*) FROM ledger_entries WHERE account_id = :a AND skill = 'alert_email'",
        a=s.account_id,
    )
    assert n_charges == 3
    balance, ledger = await balance_and_ledger_sum(s.db, s.account_id)
    assert balance == ledger


async def test_nothing_more_comes_for_the_ended_alerts(lifecycle: Lifecycle) -> None:
    s = lifecycle
    await s.before(days_until_the_third_steady_email)
    days = await days_until_the_third_steady_email(s)
    await set_time(s.db, day_at(days[-1][0] + 1, 13))
    await run_once(s.runtime)
    assert new_emails(s.outbox, s.seen) == []

"""The README's tour, run as printed against a fresh demo, shows what the README says.

The commands come from README.md itself (tour.py), so the two cannot drift. The world is
small (`sors demo seed --profiles 266` before the first start) to keep CI fast: the shortest
sample of the default world that holds the rising post the tour's `trends/rising` shows (a
longer sample starts with the shorter one); the tour's numbers do not depend on its size.
The same run checks the first hour around the tour: no Python warnings from the demo or the
CLI, every URL of the banner and every link of the digest email answering 200, and one demo
key after restarts.
"""

from __future__ import annotations

import email
import email.policy
import json
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.demo.tour import (
    Demo,
    clean_env,
    link_venv,
    sors,
    split_output,
    tour_blocks,
    tour_script,
    tour_texts,
)
from tests.factories.cluster import free_port

SEED_PROFILES = 266  # tests/demo/test_rising_demo.py: the same world
URL = re.compile(r"https?://[^\s'\"<>]+")


@pytest.fixture(scope="module")
def demo() -> Iterator[Demo]:
    workdir = Path(tempfile.mkdtemp(prefix="sors-tour-"))
    workdir.chmod(0o755)  # the embedded server runs as its own user and must reach .sors/pg
    link_venv(workdir)
    d = Demo(workdir, free_port())
    try:
        seeded = sors(workdir, "demo", "seed", "--profiles", str(SEED_PROFILES))
        assert seeded.returncode == 0, seeded.stdout + seeded.stderr
        assert "Warning" not in seeded.stdout + seeded.stderr, seeded.stderr
        d.start()
        yield d
    finally:
        d.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def _json_lines(chunk: str) -> list[dict]:
    """The JSON documents jq printed (pretty or compact), in order."""
    return [json.loads(doc) for doc in _split_json(chunk)]


# What each ```bash block of the tour does, in the README's order.
STEPS = ("setup", "offer", "search", "crawl", "look", "errors", "rising", "monitor", "advance",
         "updates", "outbox", "ledger", "analysis", "plan")


@dataclass
class Tour:
    """The tour's commands and their run (once, against the module's demo)."""

    blocks: list[str]
    run: subprocess.CompletedProcess[str]

    @property
    def out(self) -> list[str]:
        return split_output(self.run.stdout)

    def step(self, name: str) -> str:
        """What the tour printed for one of STEPS."""
        if self.run.returncode != 0 or len(self.out) != len(STEPS):
            pytest.fail("the tour did not run through: see test_the_readme_tour_runs_as_printed")
        return dict(zip(STEPS, self.out, strict=True))[name]


@pytest.fixture(scope="module")
def tour(demo: Demo) -> Tour:
    blocks = tour_blocks()
    run = subprocess.run(
        ["bash", "-c", tour_script(blocks, demo.port)], cwd=demo.workdir, capture_output=True,
        text=True, timeout=600, env=clean_env(demo.workdir),
    )
    return Tour(blocks, run)


def _summary(advance: str) -> dict[str, str]:
    """The numbers `sors scheduler run-once` printed, by line."""
    return dict(re.findall(r"^(refreshes run|new posts found|alerts fired|digests sent)\s+(\d+)",
                           advance, flags=re.M))


def test_the_readme_tour_runs_as_printed(demo: Demo, tour: Tour) -> None:
    assert len(tour.blocks) >= 12, "the tour lost its commands"
    run = tour.run
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr}\n{demo.output()[-3000:]}"
    assert "Warning" not in run.stderr, run.stderr
    assert len(tour.out) == len(tour.blocks), run.stdout
    assert tour.step("setup").strip() == ""


def test_the_offer_lists_the_skills_and_the_starting_balance(tour: Tour) -> None:
    offer = tour.step("offer")
    assert '"pricing"' in offer and '"docs"' in offer
    assert any(j.get("key") == "search_outliers" for j in _json_lines(offer))
    assert _json_lines(offer)[-1]["balance"] == 10_000


def test_the_search_finds_outliers_of_at_least_5x(tour: Tour) -> None:
    search = tour.step("search")
    hits = _json_lines(search)
    assert hits and all(h["score"] >= 5 for h in hits), search


def test_the_crawls_give_two_profiles(tour: Tour) -> None:
    anna, sam = tour.step("crawl").split()
    assert anna.startswith("prf_") and sam.startswith("prf_") and anna != sam


def test_a_look_shows_a_profile_its_averages_a_comparison_and_trends(tour: Tour) -> None:
    profile, averages, *compared_and_trending = _json_lines(tour.step("look"))
    assert profile["handle"] == "fit.anna" and profile["display_name"].startswith("Anna")
    assert averages["views"] > 0
    compared = [c for c in compared_and_trending if "follower_count" in c]
    assert {c["handle"] for c in compared} == {"fit.anna", "cookwithsam"}
    trending = [c for c in compared_and_trending if "follower_count" not in c]
    assert len(trending) == 3


def test_the_errors_name_their_code_and_fields(tour: Tour) -> None:
    resolve, missing = _json_lines(tour.step("errors"))
    assert resolve["code"] == "short_link_not_supported" and resolve["status"] == 422
    assert missing["code"] == "validation_error"
    assert {e["field"] for e in missing["errors"]} == {"url", "platform", "handle"}


def test_rising_posts_are_young_and_above_their_curve(tour: Tour) -> None:
    rising = tour.step("rising")
    young = _json_lines(rising)
    assert young, rising  # the demo's history has rising posts at its moment
    for post in young:
        assert post["handle"] and post["percentile"] > 90 and 0 < post["ageHours"] <= 72
        assert post["views"] <= post["views30d"]["expected"] <= post["views30d"]["high"]


def test_monitoring_tracks_daily_and_alerts_the_confirmed_address(tour: Tour) -> None:
    tracked, alert = _json_lines(tour.step("monitor"))
    assert tracked["handle"] == "fit.anna" and tracked["frequency"] == "daily"
    assert alert["status"] == "active" and alert["addressStatus"] == "confirmed"


def test_advancing_the_clock_runs_what_is_due_as_the_readme_prints(tour: Tour) -> None:
    advance = tour.step("advance")
    summary = _summary(advance)
    assert summary.get("refreshes run") == "1", advance
    assert int(summary["new posts found"]) >= 1 and int(summary["alerts fired"]) >= 1, advance
    assert summary["digests sent"] == "1", advance
    # The summary the README prints is the one the command printed (paths elided there).
    [promised] = tour_texts()
    for line in promised.splitlines():
        assert line.split("…")[0].rstrip() in advance, (line, advance)


def test_the_updates_show_the_new_posts(tour: Tour) -> None:
    new_posts = _json_lines(tour.step("updates"))
    assert new_posts and all(p["handle"] == "fit.anna" for p in new_posts)
    assert any(p["published_at"] >= "2026-09-22T10:00:00Z" for p in new_posts), new_posts


def test_the_outbox_holds_the_digest_and_the_ledger_its_entries(tour: Tour) -> None:
    outbox = tour.step("outbox")
    assert "fit.anna" in outbox and "Subject:" in outbox, outbox
    kinds = [j["kind"] for j in _json_lines(tour.step("ledger"))]
    assert kinds and set(kinds) <= {"charge", "refund", "grant", "topup"}


def test_an_analysis_is_polled_to_its_findings(tour: Tour) -> None:
    [answer] = _json_lines(tour.step("analysis"))
    assert answer["status"] == "completed" and answer["basis"] == "media", answer
    assert answer["comparedWith"] and answer["hook"], answer
    # Findings are sentences with their numbers, never a programming literal.
    assert len(answer["findings"]) >= 2, answer
    assert all(re.search(r"\d", f) for f in answer["findings"]), answer
    assert not re.search(r"\b(True|False|None)\b", " ".join(answer["findings"])), answer


def test_a_plan_gives_a_checkout_link(demo: Demo, tour: Tour) -> None:
    current, link = tour.step("plan").strip().splitlines()
    assert json.loads(current) == {"planId": None, "status": None}
    assert "/subscribe/" in link, link
    page = httpx.get(f"http://127.0.0.1:{demo.port}/subscribe/" + link.split("/subscribe/")[1],
                     timeout=30)
    assert page.status_code == 200 and "Creator" in page.text


def test_the_same_moment_again_for_machines_does_nothing_twice(demo: Demo, tour: Tour) -> None:
    summary = _summary(tour.step("advance"))
    again = sors(demo.workdir, "scheduler", "run-once", "--json")
    assert again.returncode == 0 and again.stderr == "", again.stderr
    machine = json.loads(again.stdout)
    assert machine["now"] == "2026-09-25T10:00:00Z"
    assert (machine["refreshes"], machine["digestsSent"]) == (1, 1)
    assert machine["newPosts"] == int(summary["new posts found"])
    assert machine["alertHits"] == int(summary["alerts fired"])


def test_the_search_was_the_first_charge_and_the_demo_warned_of_nothing(
    demo: Demo, tour: Tour
) -> None:
    tour.step("search")  # (the tour ran through)
    # What the README says the search cost: the first charge, 1 credit, leaving 9,999.
    key = (demo.workdir / ".sors" / "demo_api_key").read_text().strip()
    ledger_all = httpx.get(
        f"http://127.0.0.1:{demo.port}/api/v1/credits/ledger?limit=200",
        headers={"Authorization": f"Bearer {key}"}, timeout=30,
    ).json()["results"]
    first_charge = [e for e in ledger_all if e["kind"] == "charge"][-1]
    assert (first_charge["skill"], first_charge["credits"], first_charge["balanceAfter"]) == (
        "search_outliers", -1, 9999,
    )
    assert "Warning" not in demo.output(), demo.output()


def _split_json(chunk: str) -> list[str]:
    """jq prints pretty objects and compact lines; split the stream into documents."""
    decoder = json.JSONDecoder()
    docs, i, text = [], 0, chunk.strip()
    while i < len(text):
        obj, end = decoder.raw_decode(text, i)
        docs.append(json.dumps(obj))
        i = end
        while i < len(text) and text[i].isspace():
            i += 1
    return docs


def test_every_banner_url_and_email_link_answers_200(demo: Demo, tour: Tour) -> None:
    key = (demo.workdir / ".sors" / "demo_api_key").read_text().strip()
    banner = "\n".join(demo.banner)
    assert key in banner
    urls = set(URL.findall(banner))
    assert f"http://127.0.0.1:{demo.port}/api/v1" in urls and len(urls) >= 3
    # The tour made the digest; an alert for another address adds the confirmation email.
    tour.step("outbox")  # (the tour ran through)
    with httpx.Client(headers={"Authorization": f"Bearer {key}"}, timeout=30) as client:
        r = client.post(
            f"http://127.0.0.1:{demo.port}/api/v1/alerts",
            json={"platform": "tiktok", "handle": "fit.anna", "email": "friend@example.com"},
        )
        assert r.status_code == 200 and r.json()["alert"]["addressStatus"] == "pending_confirmation"
    emails = sorted((demo.workdir / ".sors" / "outbox").glob("*.eml"))
    subjects = [email.message_from_bytes(p.read_bytes())["Subject"] for p in emails]
    assert len(emails) == 2, subjects  # the digest and the confirmation
    links: set[str] = set()
    for path in emails:
        msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        for part in msg.walk():
            if part.get_content_maintype() == "text":
                links |= set(URL.findall(part.get_content()))
    assert links
    with httpx.Client(headers={"Authorization": f"Bearer {key}"}, timeout=30) as client:
        for url in sorted(urls | links):
            r = client.get(url, follow_redirects=True)
            assert r.status_code == 200, (url, r.status_code, r.text[:300])


def test_restarting_the_demo_keeps_one_key(demo: Demo) -> None:
    key = (demo.workdir / ".sors" / "demo_api_key").read_text().strip()
    for _ in range(3):
        demo.stop(database=False)  # the embedded server outlives a demo, as it does for users
        demo.start()
        assert any(key in line for line in demo.banner)
    keys = sors(demo.workdir, "keys", "list")
    active = [line for line in keys.stdout.splitlines() if line.rstrip().endswith("active")]
    assert keys.returncode == 0 and len(active) == 1, keys.stdout

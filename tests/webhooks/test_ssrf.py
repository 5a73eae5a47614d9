"""No webhook request may reach our own network: every refused address form, at creation
and again at delivery, and DNS rebinding (a resolver that answers a public address when the
URL is saved and a private one when it is delivered to)."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest
from sqlalchemy import text

from sors.kit.ids import new_id
from sors.webhooks import ssrf
from tests.factories import auth, create_account
from tests.factories.jobs import run_jobs_until_idle
from tests.webhooks.helpers import count, deliveries

PUBLIC = "93.184.216.34"
REFUSED_URLS = [
    "https://127.0.0.1/hook",  # loopback
    "https://[::1]/hook",
    "https://10.1.2.3/hook",  # private
    "https://172.16.0.1/hook",
    "https://192.168.1.1/hook",
    "https://169.254.169.254/latest/meta-data/",  # link-local / metadata
    "https://[fe80::1]/hook",
    "https://100.64.0.1/hook",  # carrier-grade NAT
    "https://100.100.100.200/hook",  # Alibaba metadata, inside CGNAT space
    "https://224.0.0.1/hook",  # multicast
    "https://[ff02::1]/hook",
    "https://[fd00:ec2::254]/hook",  # IPv6 ULA, AWS metadata
    "https://[fc00::1]/hook",
    "https://0.0.0.0/hook",
    "https://2130706433/hook",  # decimal
    "https://0177.0.0.1/hook",  # octal
    "https://0x7f000001/hook",  # hex
    "https://0x7f.0.0.1/hook",
    "https://127.1/hook",  # short form
    "https://[::ffff:127.0.0.1]/hook",  # IPv4-mapped IPv6
    "https://[::ffff:7f00:1]/hook",
    "https://[64:ff9b::a00:1]/hook",  # NAT64 of 10.0.0.1
    "https://localhost/hook",
    "https://metadata.google.internal/computeMetadata/v1/",
    "https://user:pw@example.com/hook",  # credentials
    "http://example.com/hook",  # plain http without the operator setting
    "ftp://example.com/hook",
    "https://exa mple.com/hook",
]


class FlippingResolver:
    """DNS under the test's control: `answers[host]` is a list consumed one per lookup
    (the last one repeats), so a name can change its answer between lookups."""

    def __init__(self, answers: dict[str, list[list[str]]]) -> None:
        self.answers = answers
        self.lookups: list[str] = []

    async def resolve(self, host: str, port: int) -> list[str]:
        self.lookups.append(host)
        seq = self.answers.get(host)
        if not seq:
            raise ssrf.UnsafeUrl(f"the host {host!r} does not resolve")
        return seq.pop(0) if len(seq) > 1 else seq[0]


@pytest.fixture
def resolver():
    before = ssrf.get_resolver()
    r = FlippingResolver({
        "hooks.example.com": [[PUBLIC]],
        "mixed.example.com": [[PUBLIC, "10.0.0.7"]],
        "rebind.example.com": [[PUBLIC], ["127.0.0.1"]],
        "meta.example.com": [["169.254.169.254"]],
    })
    ssrf.set_resolver(r)
    yield r
    ssrf.set_resolver(before)


@pytest.mark.parametrize("url", REFUSED_URLS)
async def test_refused_at_creation(client: httpx.AsyncClient, db, resolver, url: str) -> None:
    _, key = await create_account(db)
    r = await client.post("/api/v1/webhooks", json={"url": url}, headers=auth(key))
    assert r.status_code == 422, (url, r.text)
    assert r.json()["code"] in ("unsafe_url", "validation_error") and "url" in r.text
    assert await count(db, "SELECT count(*) FROM webhook_endpoints") == 0


async def test_names_are_resolved_at_creation(client: httpx.AsyncClient, db, resolver) -> None:
    _, key = await create_account(db)
    h = auth(key)
    for host in ("mixed.example.com", "meta.example.com", "nowhere.example.com"):
        r = await client.post("/api/v1/webhooks", json={"url": f"https://{host}/x"}, headers=h)
        assert r.status_code == 422 and r.json()["code"] == "unsafe_url", host
    r = await client.post(
        "/api/v1/webhooks", json={"url": "https://hooks.example.com/x"}, headers=h)
    assert r.status_code == 200
    r = await client.post("/api/v1/webhooks", json={"url": f"https://{PUBLIC}/x"}, headers=h)
    assert r.status_code == 200
    # The same name, once PATCHed to a private answer, is refused and nothing changes.
    wid = r.json()["id"]
    r = await client.patch(
        f"/api/v1/webhooks/{wid}", json={"url": "https://meta.example.com/"}, headers=h)
    assert r.status_code == 422
    got = await client.get(f"/api/v1/webhooks/{wid}", headers=h)
    assert got.json()["url"] == f"https://{PUBLIC}/x"


async def _endpoint_row(db, account_id: str, url: str) -> str:
    """An endpoint stored with `url` as-is: what a row saved under looser rules (or DNS
    that changed since) looks like to the delivery job."""
    wid = new_id("whk")
    now = datetime.now(UTC)
    async with db.transaction() as s:
        await s.execute(text(
            "INSERT INTO webhook_endpoints "
            "(id, account_id, url, events, secret, created_at, updated_at)"
            " VALUES (:i, :a, :u, ARRAY['job.completed'], :s, :n, :n)"
        ), {"i": wid, "a": account_id, "u": url, "s": "whsec_" + "A" * 43 + "=", "n": now})
    return wid


async def test_refused_at_delivery(
    client: httpx.AsyncClient, db, runtime, settings, resolver, monkeypatch
) -> None:
    """Every refused form, and the rebinding name, fail at delivery without a request."""
    monkeypatch.setattr(settings.webhooks, "timeout_seconds", 2.0)
    account_id, key = await create_account(db)
    urls = [*REFUSED_URLS, "https://rebind.example.com/hook", "https://mixed.example.com/hook"]
    ids = {await _endpoint_row(db, account_id, u): (u, key) for u in urls}
    # The rebinding name passes the creation check with its first (public) answer.
    _, key2 = await create_account(db)
    r = await client.post(
        "/api/v1/webhooks", json={"url": "https://rebind.example.com/ok"}, headers=auth(key2))
    assert r.status_code == 200
    ids[r.json()["id"]] = ("https://rebind.example.com/ok", key2)
    for wid, (_, k) in ids.items():
        tested = await client.post(f"/api/v1/webhooks/{wid}/test", headers=auth(k))
        assert tested.status_code == 200
    await run_jobs_until_idle(runtime, timeout=120)
    for wid, (url, k) in ids.items():
        [d] = await deliveries(client, k, wid)
        assert d["status"] == "pending" and d["attempts"] == 1, url
        assert d["error"].startswith("refused:") and d["responseStatus"] is None, (url, d["error"])


async def test_loopback_needs_the_operator_setting(
    client: httpx.AsyncClient, db, runtime, settings, monkeypatch
) -> None:
    """A receiver saved while loopback was allowed is refused at delivery once it is not:
    the address rules are applied to every attempt, not only at creation."""
    from tests.webhooks.receiver import running_receiver

    monkeypatch.setattr(settings.webhooks, "allow_http", True)
    monkeypatch.setattr(settings.webhooks, "allow_loopback", True)
    _, key = await create_account(db)
    h = auth(key)
    with running_receiver() as receiver:
        created = await client.post("/api/v1/webhooks", json={"url": receiver.url}, headers=h)
        wid = created.json()["id"]
        monkeypatch.setattr(settings.webhooks, "allow_loopback", False)
        await client.post(f"/api/v1/webhooks/{wid}/test", headers=h)
        await run_jobs_until_idle(runtime, timeout=120)
        assert receiver.received == []
    [d] = await deliveries(client, key, wid)
    assert d["error"].startswith("refused:") and "127.0.0.1" in d["error"]


def test_address_rules() -> None:
    strict = ssrf.Policy()
    for ok in (PUBLIC, "8.8.8.8", "2606:4700:4700::1111"):
        ssrf.check_address(ok, strict)
    for bad in ("127.0.0.1", "10.0.0.1", "100.64.1.1", "169.254.169.254", "::1", "fd12::1",
                "fe80::1", "ff02::1", "::ffff:8.8.8.8", "192.0.2.1", "198.18.0.1", "240.0.0.1"):
        with pytest.raises(ssrf.UnsafeUrl):
            ssrf.check_address(bad, strict)
    loop = ssrf.Policy(allow_loopback=True)
    assert str(ssrf.check_address("127.0.0.1", loop)) == "127.0.0.1"
    with pytest.raises(ssrf.UnsafeUrl):
        ssrf.check_address("10.0.0.1", loop)  # loopback only, nothing else private
    t = ssrf.parse("https://Hooks.Example.COM:8443/a/b?c=1", strict)
    assert (t.host, t.port, t.path) == ("hooks.example.com", 8443, "/a/b?c=1")

"""The per-IP limit of the key-less routes counts an IPv6 client by its /64: two addresses of
one /64 share one budget, another /64 has its own; IPv4 addresses count one by one."""

from __future__ import annotations

import httpx


def _from(app, address: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(address, 50000))
    return httpx.AsyncClient(transport=transport, base_url="http://testserver")


def _remaining(r: httpx.Response) -> int:
    return int(r.headers["ratelimit"].split("r=")[1].split(";")[0])


async def test_an_ipv6_client_is_counted_by_its_slash_64(app, clean) -> None:
    per_ip = app.state.limiter.per_ip.amount
    one, same_net = "2001:db8:5:6::1", "2001:db8:5:6:ffff:1:2:3"
    async with _from(app, one) as a, _from(app, same_net) as b:
        for i in range(per_ip):
            r = await (a if i % 2 == 0 else b).get("/api/v1/pricing")
            assert r.status_code == 200 and _remaining(r) == per_ip - 1 - i, i
        # The budget of the /64 is spent, whichever of its addresses asks.
        for c in (a, b):
            r = await c.get("/api/v1/pricing")
            assert r.status_code == 429 and r.json()["code"] == "rate_limited"
    async with _from(app, "2001:db8:5:7::1") as other_net:  # the next /64
        r = await other_net.get("/api/v1/pricing")
        assert r.status_code == 200 and _remaining(r) == per_ip - 1


async def test_ipv4_addresses_count_one_by_one(app, clean) -> None:
    per_ip = app.state.limiter.per_ip.amount
    async with _from(app, "198.51.100.7") as a, _from(app, "198.51.100.8") as b:
        for _ in range(per_ip):
            assert (await a.get("/api/v1/pricing")).status_code == 200
        assert (await a.get("/api/v1/pricing")).status_code == 429
        r = await b.get("/api/v1/pricing")
        assert r.status_code == 200 and _remaining(r) == per_ip - 1
    # The same IPv4 client written as an IPv6-mapped address is the same client.
    async with _from(app, "::ffff:198.51.100.7") as mapped:
        assert (await mapped.get("/api/v1/pricing")).status_code == 429

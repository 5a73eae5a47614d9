"""Rate limits per API key and per client IP, with the IETF draft headers.

In-process memory by default; shared across processes through Redis when SORS_REDIS_URL
is set, so N API replicas enforce one limit.

A client IP is counted as a network an ordinary client cannot step out of: an IPv4 address
alone, an IPv6 address by its /64 (one customer's subnet gets at least a /64, so counting
each of its 2^64 addresses apart would let one client walk past the limit).
"""

from __future__ import annotations

import ipaddress
import math
import time
from dataclasses import dataclass

from limits import RateLimitItemPerMinute
from limits.aio.strategies import FixedWindowRateLimiter
from limits.storage import storage_from_string


@dataclass(frozen=True)
class Decision:
    allowed: bool
    limit: int
    remaining: int
    reset_seconds: int

    def headers(self) -> dict[str, str]:
        return {
            "RateLimit-Policy": f'"default";q={self.limit};w=60',
            "RateLimit": f'"default";r={self.remaining};t={self.reset_seconds}',
        }


def ip_bucket(address: str) -> str:
    """What a client address is counted as: an IPv4 address (also one written as IPv6,
    `::ffff:a.b.c.d`) as itself, an IPv6 address as its /64; anything else as sent."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


class RateLimiter:
    def __init__(self, redis_url: str | None, per_key: int, per_ip: int) -> None:
        uri = "async+memory://"
        options: dict[str, str] = {}
        if redis_url:
            uri = "async+" + redis_url if not redis_url.startswith("async+") else redis_url
            # limits' async Redis storage defaults to coredis; we ship redis-py.
            options["implementation"] = "redispy"
        self._storage = storage_from_string(uri, **options)
        self._limiter = FixedWindowRateLimiter(self._storage)  # type: ignore[arg-type]
        self.per_key = RateLimitItemPerMinute(per_key)
        self.per_ip = RateLimitItemPerMinute(per_ip)

    async def hit(self, scope: str, identity: str) -> Decision:
        """Count one request of `identity`: a key id (scope "key") or a client address
        (scope "ip", counted by `ip_bucket`)."""
        item = self.per_key if scope == "key" else self.per_ip
        if scope == "ip":
            identity = ip_bucket(identity)
        allowed = await self._limiter.hit(item, scope, identity)
        stats = await self._limiter.get_window_stats(item, scope, identity)
        reset = max(1, math.ceil(stats.reset_time - time.time()))
        return Decision(allowed, item.amount, max(0, stats.remaining), reset)

    async def reset(self) -> None:
        await self._storage.reset()

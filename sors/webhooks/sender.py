"""One delivery attempt: sign the body (Standard Webhooks), resolve and check the host,
connect to the checked address, POST, and report what happened.

The connection goes to the address `ssrf.resolve_checked` approved, with the URL's host in
the Host header and as the TLS server name (certificates are verified against it), and the
peer address of the open connection is checked once more before the outcome is trusted.
Redirects are not followed (a 3xx is a failure), proxies from the environment are ignored
(they would connect somewhere we did not check), and the whole attempt is bounded by the
timeout.
"""

from __future__ import annotations

import asyncio
import ssl
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache

import httpx
from standardwebhooks.webhooks import Webhook

from sors.webhooks import ssrf

USER_AGENT = "sors-webhooks/1"


@dataclass(frozen=True)
class Outcome:
    ok: bool
    status: int | None
    duration_ms: int
    error: str | None = None
    refused: bool = False  # the URL failed the address rules: no request was sent


def sign(msg_id: str, at: datetime, body: str, secrets: list[str]) -> str:
    """The `webhook-signature` header: one `v1,<base64>` per secret, space separated."""
    return " ".join(Webhook(s).sign(msg_id, at, body) for s in secrets)


def headers_for(
    msg_id: str, body: str, secrets: list[str], at: datetime | None = None
) -> dict[str, str]:
    # The signed timestamp is wall-clock time even in simulation: receivers compare it with
    # their own clock to refuse replays.
    at = at or datetime.now(UTC)
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": sign(msg_id, at, body, secrets),
        "content-type": "application/json",
        "user-agent": USER_AGENT,
    }


@cache
def _tls() -> ssl.SSLContext:
    return ssl.create_default_context()


def _netloc(ip: ssrf.IPAddress, port: int) -> str:
    return f"[{ip}]:{port}" if ip.version == 6 else f"{ip}:{port}"


def _host_header(target: ssrf.Target) -> str:
    default = 443 if target.scheme == "https" else 80
    host = f"[{target.host}]" if ":" in target.host else target.host
    return host if target.port == default else f"{host}:{target.port}"


async def deliver(
    url: str,
    msg_id: str,
    body: str,
    secrets: list[str],
    *,
    policy: ssrf.Policy,
    timeout: float = 10.0,
    resolver: ssrf.Resolver | None = None,
) -> Outcome:
    started = time.monotonic()

    def elapsed() -> int:
        return int((time.monotonic() - started) * 1000)

    try:
        target = ssrf.parse(url, policy)
        ip = await ssrf.resolve_checked(target, policy, resolver)
    except ssrf.UnsafeUrl as exc:
        return Outcome(False, None, elapsed(), f"refused: {exc}", refused=True)
    headers = headers_for(msg_id, body, secrets)
    headers["host"] = _host_header(target)
    extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
    try:
        async with asyncio.timeout(timeout), httpx.AsyncClient(
            verify=_tls(), follow_redirects=False, trust_env=False, timeout=timeout,
        ) as client:
            request = client.build_request(
                "POST", f"{target.scheme}://{_netloc(ip, target.port)}{target.path}",
                content=body.encode(), headers=headers, extensions=extensions,
            )
            response = await client.send(request, stream=True)
            try:
                stream = response.extensions.get("network_stream")
                peer = stream.get_extra_info("server_addr") if stream is not None else None
                if peer is not None:
                    try:
                        ssrf.check_address(peer[0], policy)
                    except ssrf.UnsafeUrl as exc:
                        return Outcome(False, None, elapsed(), f"refused: {exc}", refused=True)
                status = response.status_code
            finally:
                await response.aclose()
    except TimeoutError:
        return Outcome(False, None, elapsed(), f"timed out after {timeout:g} s")
    except httpx.HTTPError as exc:
        return Outcome(False, None, elapsed(), f"{type(exc).__name__}: {exc}"[:500])
    except (OSError, ssl.SSLError) as exc:
        return Outcome(False, None, elapsed(), f"{type(exc).__name__}: {exc}"[:500])
    if 200 <= status < 300:
        return Outcome(True, status, elapsed())
    note = "redirects are not followed" if 300 <= status < 400 else "non-2xx response"
    return Outcome(False, status, elapsed(), f"HTTP {status} ({note})")

"""The people's commands talk to a sors API over HTTP, like any other client: this module
finds the API and the key, sends the request and turns problem details into one readable
error.

Where: `--api`, else SORS_API_URL, else the base URL of the demo whose data dir this is
(`sors demo` writes it to DATA_DIR/base_url), else http://127.0.0.1:8000. The key: `--key`,
else SORS_API_KEY, else the demo's key (DATA_DIR/demo_api_key, mode 0600, written by
`sors demo`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

API_PREFIX = "/api/v1"
DEMO_KEY_FILE = "demo_api_key"  # the name sors.cli.server writes the demo's key under
TIMEOUT = 120.0


# What a command sends: words, numbers, switches and lists of names, as the API's request
# models take them (the API judges them).
BodyValue = str | int | float | bool | list[str]


class ApiError(Exception):
    """Anything that keeps a call from answering: the message is what the user reads."""


@dataclass(frozen=True)
class Target:
    api_url: str  # the server's base URL, without /api/v1
    key: str


def base_of(url: str) -> str:
    """The server's base URL from what a user may paste: with or without /api/v1."""
    url = url.strip().rstrip("/")
    return url.removesuffix(API_PREFIX)


def resolve(api: str | None, key: str | None, data_dir: Path, demo_base_url: str) -> Target:
    """The API and key to use (see the module's doc); a missing key is an ApiError that says
    where one comes from."""
    url = base_of(api or demo_base_url)
    if not key:
        stored = data_dir / DEMO_KEY_FILE
        key = stored.read_text().strip() if stored.is_file() else None
    if not key:
        raise ApiError(
            "no API key: pass --key KEY or set SORS_API_KEY (`sors demo` prints one and keeps "
            f"it in its data dir, which is not here: {data_dir})"
        )
    return Target(url, key)


def problem_message(status: int, body: Any) -> str:
    """One readable paragraph from an RFC 9457 problem (or whatever the server sent)."""
    if not isinstance(body, dict) or "title" not in body:
        text = body if isinstance(body, str) else ""
        return f"HTTP {status}{': ' + text.strip()[:300] if text.strip() else ''}"
    code = body.get("code")
    head = f"{body['title']} (HTTP {status}{', ' + code if code else ''})"
    lines = [f"{head}: {body.get('detail', '')}".rstrip(": ")]
    for e in body.get("errors") or []:
        if e.get("message") and e["message"] not in lines[0]:
            lines.append(f"  {e.get('field', '')}: {e['message']}")
    for extra in ("required", "balance", "cap", "spentToday", "retryAfter"):
        if extra in body:
            lines.append(f"  {extra}: {body[extra]}")
    if body.get("requestId"):
        lines.append(f"  request id: {body['requestId']}")
    return "\n".join(lines)


class Client:
    """A small synchronous client: one method per HTTP verb the commands need."""

    def __init__(self, target: Target, *, transport: httpx.BaseTransport | None = None) -> None:
        self.target = target
        self._http = httpx.Client(
            base_url=target.api_url + API_PREFIX, timeout=TIMEOUT, transport=transport,
            headers={"Authorization": f"Bearer {target.key}", "User-Agent": "sors-cli"},
        )

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.close()

    # The API's JSON answers, as sent: the commands print them (`--json`) or read them.
    def get(self, path: str, params: Mapping[str, str | int] | None = None) -> Any:
        return self._send("GET", path, params=params).json()

    def post(self, path: str, body: Mapping[str, BodyValue]) -> Any:
        return self._send("POST", path, json=body).json()

    def post_csv(self, path: str, body: Mapping[str, BodyValue]) -> str:
        return self._send("POST", path, json=body, headers={"Accept": "text/csv"}).text

    def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        try:
            r = self._http.request(method, path, **kwargs)
        except httpx.TransportError as exc:
            raise ApiError(
                f"cannot reach the sors API at {self.target.api_url} "
                f"({exc or type(exc).__name__}); start one with `sors demo`, or point to one "
                "with --api URL or SORS_API_URL"
            ) from exc
        if r.status_code < 400:
            return r
        try:
            body: Any = r.json()
        except ValueError:
            body = r.text
        message = problem_message(r.status_code, body)
        if r.status_code == 401:
            message += ("\n  the API key was refused: pass a valid one with --key KEY or "
                        "SORS_API_KEY (`sors demo` prints the demo's key)")
        raise ApiError(message)

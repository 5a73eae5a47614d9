"""Console actions dispatched in-process into the API's own routes.

A console page does not reimplement anything: it sends the very request a client would send
to /api/v1/…, through the whole ASGI app (rate limit, idempotency, the paid unit of work and
its charge) by the one in-process client (`sors.api.inprocess`, also the MCP tools'), with
the signed-in principal instead of a raw key. So
the console is charged, limited and validated exactly like the API, and reads what it charged
from the same `X-Credits-*` headers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

import orjson
from starlette.requests import Request

from sors.api import inprocess
from sors.console.auth import SignInRequired
from sors.kit.principal import Principal

# What a page sends: form values as the API's request models take them (the API judges them).
BodyValue = str | int | float | bool | list[str]


class FieldProblem(TypedDict):
    field: str
    message: str


class Problem(TypedDict, total=False):
    """An RFC 9457 problem as the API answers it (`sors.kit.problems`), read as sent."""

    type: str
    title: str
    status: int
    detail: str
    code: str
    errors: list[FieldProblem]


@dataclass
class ApiResult:
    status: int
    headers: dict[str, str]
    body: bytes
    _data: Any = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def data(self) -> Any:
        if self._data is None and self.body:
            self._data = orjson.loads(self.body)
        return self._data

    @property
    def charged(self) -> int | None:
        value = self.headers.get("x-credits-charged")
        return int(value) if value is not None else None

    @property
    def balance(self) -> int | None:
        value = self.headers.get("x-credits-balance")
        return int(value) if value is not None else None

    @staticmethod
    def total_charged(*results: ApiResult | None) -> tuple[int | None, int | None]:
        """What several calls of one page charged together, and the balance after the last."""
        done = [r for r in results if r is not None and r.charged is not None]
        if not done:
            return None, None
        return sum(r.charged or 0 for r in done), done[-1].balance

    @property
    def problem(self) -> Problem | None:
        if self.ok:
            return None
        data = self.data if self.headers.get("content-type", "").endswith("json") else None
        if isinstance(data, dict):
            return Problem(**data)
        return Problem(status=self.status, title="Error",
                       detail=self.body[:200].decode("utf-8", "replace"))


async def call(
    request: Request,
    principal: Principal | None,
    method: str,
    path: str,
    *,
    json: Mapping[str, BodyValue] | None = None,
    params: Mapping[str, str | int | None] | None = None,
    idempotency_key: str | None = None,
    accept: str = "application/json",
) -> ApiResult:
    headers = {"accept": accept, "user-agent": "sors-console"}
    if idempotency_key:
        headers["idempotency-key"] = idempotency_key
    query = {k: v for k, v in (params or {}).items() if v is not None}
    async with inprocess.client(request.app) as api:
        response = await api.request(
            method, path, content=None if json is None else orjson.dumps(json),
            params=query or None, headers=headers if json is None else
            {**headers, "content-type": "application/json"},
            extensions={inprocess.PRINCIPAL: principal} if principal is not None else None,
        )
    if response.status_code == 401:
        # The session's key was revoked since the cookie was signed: sign the console out.
        raise SignInRequired("revoked")
    return ApiResult(response.status_code, dict(response.headers), response.content)

"""Problem details (RFC 9457) as models, and the per-route declaration of error statuses.

Every /api/v1 route declares the statuses it can answer with `responses=problems(...)`;
the document then shows each as `application/problem+json` with its model (and the
`Retry-After` / credit headers where they apply). See docs/ARCHITECTURE.md "Declaring a route".
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Problem(BaseModel):
    """RFC 9457 problem details; `code` is the machine identifier."""

    # Extension members are allowed by RFC 9457; the ones sors sends are declared below.
    model_config = ConfigDict(extra="allow", json_schema_extra={"additionalProperties": True})

    type: str = Field(description="`/errors/<code>`", examples=["/errors/not_found"])
    title: str
    status: int = Field(ge=400, le=599)
    detail: str
    code: str = Field(description="Machine-readable error code", examples=["not_found"])
    requestId: str | None = Field(None, description="Finds the request in the server's logs")


class FieldError(BaseModel):
    field: str = Field(description="Dotted path of the body field, or the query parameter")
    message: str


class ValidationProblem(Problem):
    """422: `validation_error`, `unknown_field`, `missing_target`, `unsupported_url`, …"""

    errors: list[FieldError] | None = None


class CreditsProblem(Problem):
    """402 `insufficient_credits` (top up with POST /api/v1/credits/topup) or
    `spend_cap_reached` (this key's daily cap; with `cap` and `spentToday`)."""

    required: int = Field(description="What this call would cost")
    balance: int = Field(description="The account's balance")
    cap: int | None = Field(None, description="spend_cap_reached: the key's daily cap")
    spentToday: int | None = Field(None, description="spend_cap_reached: spent today (UTC)")


class RetryProblem(Problem):
    """429 `rate_limited` / 503 `unavailable`: retry after `retryAfter` seconds."""

    retryAfter: int


_INT: dict[str, object] = {"schema": {"type": "integer"}}
_RETRY: dict[str, object] = {
    "Retry-After": {"description": "Seconds to wait before retrying", **_INT}
}
_CREDITS: dict[str, object] = {
    "X-Credits-Charged": {"description": "Credits charged by this call (0 on errors)", **_INT},
    "X-Credits-Balance": {"description": "The balance after this call", **_INT},
}

STATUSES: dict[int, tuple[type[Problem], str, dict[str, object]]] = {
    400: (Problem, "Malformed request: the body is not JSON, or not a JSON object", {}),
    401: (Problem, "API key missing, unknown or revoked", {}),
    402: (CreditsProblem, "The balance (or this key's daily cap) cannot cover this call; "
          "nothing was charged", _CREDITS),
    403: (Problem, "This key may not do this (`role_forbidden`: a viewer's key reads free "
          "resources only)", {}),
    404: (Problem, "Not found (or owned by another account)", {}),
    409: (Problem, "A limit reached or a concurrent duplicate", {}),
    410: (Problem, "Gone (an expired link)", {}),
    413: (Problem, "Body over 64 KiB", {}),
    422: (ValidationProblem, "Invalid input (`errors` lists each field); nothing was charged", {}),
    429: (RetryProblem, "Rate limited", _RETRY),
    500: (Problem, "Internal error (never with a trace; `requestId` finds it in the logs)", {}),
    503: (RetryProblem, "A dependency is unavailable", _RETRY),
}
# What any /api/v1 route can answer: bad input (an unknown query parameter included), the
# rate limit, an outage, a bug.
ALWAYS = (422, 429, 500, 503)


def link(operation_id: str, **parameters: str) -> dict[str, object]:
    """An OpenAPI link from a 200 answer to another operation, e.g.
    `link("get_post", **{"path.postId": "$response.body#/results/0/id"})`."""
    return {"operationId": operation_id, "parameters": parameters}


def problems(
    *statuses: int,
    key: bool = True,
    body: bool = False,
    notes: dict[int, str] | None = None,
    links: dict[str, dict[str, object]] | None = None,
) -> dict[int | str, dict[str, object]]:
    """The `responses=` of a route: `ALWAYS`, 401 unless `key=False`, 400 and 413 when the
    route reads a JSON body, plus `statuses`; `notes` replaces a status's description;
    `links` (name → `link(...)`) tell clients and Schemathesis where a 200 answer leads."""
    wanted = set(ALWAYS) | set(statuses)
    if key:
        wanted |= {401, 403}  # 403: e.g. a viewer's key (reads only)
    if body:
        wanted |= {400, 413}
    out: dict[int | str, dict[str, object]] = {}
    for status in sorted(wanted):
        model, description, headers = STATUSES[status]
        entry: dict[str, object] = {
            "model": model, "description": (notes or {}).get(status, description)
        }
        if headers:
            entry["headers"] = headers
        out[status] = entry
    if links:
        out[200] = {"links": links}
    return out

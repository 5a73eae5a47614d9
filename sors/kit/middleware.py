"""The outer request pipeline, as one pure ASGI middleware (no per-request task hops):

request id → body size limit → API key resolution → rate limit → idempotency → the app,
and a last-resort 500 problem response that never leaks a stack trace.
"""

from __future__ import annotations

import re
import time

import orjson
import structlog
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sors.kit import idempotency
from sors.kit.errors import ApiError, MalformedRequest, PayloadTooLarge, RateLimited, Unavailable
from sors.kit.ids import new_id
from sors.kit.metrics import observe_request
from sors.kit.responses import ProblemResponse

log = structlog.get_logger("sors.http")

MAX_BODY = 64 * 1024
_SANE_ID = re.compile(r"^[A-Za-z0-9._:\-]{1,128}$")
# The only API endpoints that take no key; limited per client IP.
PUBLIC_PATHS = {"/api/v1/pricing", "/api/v1/trending"}
IN_PROCESS_PRINCIPAL = "sors.principal"
# Served from memory to docs pages and client generators: no key, no rate limit.
UNLIMITED_PATHS = {"/api/v1/openapi.json"}
_JSON_TYPES = ("application/json",)


def _header(scope: Scope, name: bytes) -> str | None:
    for k, v in scope.get("headers", []):
        if k == name:
            return v.decode("latin-1")
    return None


def extract_api_key(scope: Scope) -> str | None:
    auth = _header(scope, b"authorization")
    if auth and auth[:7].lower() == "bearer ":
        return auth[7:].strip() or None
    key = _header(scope, b"x-api-key")
    return key.strip() if key else None


def client_ip(scope: Scope) -> str:
    client = scope.get("client")
    return client[0] if client else "unknown"


# What opens something without a key must not be written to the logs (anyone who reads them
# could use it): a signed token (itsdangerous: payload.timestamp.signature in base64url, a
# compressed payload starting with '.') anywhere in the path, and the checkout ids that open
# a payment page (and, once paid, its key). The query string is never logged.
_SIGNED_TOKEN = re.compile(r"^\.?[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}$")
_CAPABILITY_PARENTS = ("checkout", "subscribe")
REDACTED = "…"


def loggable_path(path: str) -> str:
    """The request path as the request log writes it, with its capabilities redacted."""
    parts = path.split("/")
    for i, part in enumerate(parts):
        after_parent = i > 0 and parts[i - 1] in _CAPABILITY_PARENTS and part != "keyless"
        if part and (after_parent or _SIGNED_TOKEN.match(part)):
            parts[i] = REDACTED
    return "/".join(parts)


class ApiMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        sent_id = _header(scope, b"x-request-id")
        request_id = sent_id if sent_id and _SANE_ID.match(sent_id) else new_id("req")
        state = scope.setdefault("state", {})
        state["request_id"] = request_id
        extra_headers: dict[str, str] = {"X-Request-Id": request_id}
        status_holder = {"status": 500}

        async def send_wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                status_holder["status"] = message["status"]
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _ in headers}
                for k, v in extra_headers.items():
                    if k.lower().encode() not in present:
                        headers.append((k.lower().encode(), v.encode("latin-1")))
                message = {**message, "headers": headers}
            await send(message)

        try:
            body = await _read_body(scope, receive)
            await self._dispatch(scope, body, state, extra_headers, send_wrapped, receive)
        except ApiError as exc:
            await _send_problem(exc, request_id, send_wrapped)
        except Exception as exc:
            if _is_outage(exc) and status_holder["status"] == 500:
                log.error("dependency_unavailable", request_id=request_id, error=type(exc).__name__)
                down = Unavailable("A service this API depends on is unavailable; retry shortly.",
                                   retryAfter=5)
                down.headers["Retry-After"] = "5"
                await _send_problem(down, request_id, send_wrapped)
                return
            log.exception("unhandled_error", request_id=request_id,
                          path=loggable_path(scope.get("path", "")))
            await _send_problem(
                ApiError("Something went wrong on our side."), request_id, send_wrapped)
        finally:
            elapsed = time.perf_counter() - started
            observe_request(scope, status_holder["status"], elapsed)
            principal = state.get("principal")
            log.info(
                "request", method=scope.get("method"), path=loggable_path(scope.get("path", "")),
                status=status_holder["status"], ms=round(elapsed * 1000, 1),
                request_id=request_id, account=principal.account_id if principal else None,
            )

    async def _dispatch(
        self,
        scope: Scope,
        body: bytes,
        state: dict[str, object],
        extra: dict[str, str],
        send: Send,
        original_receive: Receive,
    ) -> None:
        app_state = scope["app"].state
        runtime = app_state.runtime
        await runtime.clock.refresh()  # simulated time lives in the database
        path: str = scope.get("path", "")
        is_api = path.startswith("/api/") and path not in UNLIMITED_PATHS
        if is_api and body:
            _json_content_type(scope, body)
        # An in-process caller (the console) names its session's key by id in the scope (a
        # network request cannot set scope keys); it is resolved like a sent key, through the
        # same short-lived cache, so a revoked key is refused within the cache's second.
        in_process = scope.get(IN_PROCESS_PRINCIPAL) if is_api else None
        key = extract_api_key(scope) if is_api and in_process is None else None
        principal = None
        if in_process is not None:
            principal = await app_state.key_cache.resolve_id(runtime.database, in_process.key_id)
        elif key:
            principal = await app_state.key_cache.resolve(runtime.database, key)
        state["principal"] = principal

        if is_api:
            limiter = app_state.limiter
            if principal is not None:
                decision = await limiter.hit("key", principal.key_id)
            else:
                decision = await limiter.hit("ip", client_ip(scope))
            extra.update(decision.headers())
            if not decision.allowed:
                raise RateLimited(decision.reset_seconds)

        receive = _replay(body, original_receive)
        if (
            principal is not None
            and scope.get("method") == "POST"
            and _header(scope, b"idempotency-key") is not None
            # A quote changes nothing, so it must not claim the key the real call will use.
            and (_header(scope, b"x-dry-run") or "").strip().lower() not in ("true", "1")
        ):
            await idempotency.run(
                self.app, scope, receive, send, body=body, account_id=principal.account_id,
                key_id=principal.key_id, key=_header(scope, b"idempotency-key") or "",
                db=runtime.database,
            )
            return
        await self.app(scope, receive, send)


def _json_content_type(scope: Scope, body: bytes) -> None:
    """Bodies are JSON. One sent without `Content-Type: application/json` (curl -d sends
    application/x-www-form-urlencoded) is read as JSON when it parses as JSON, and refused
    with a message naming the header when it does not."""
    sent = (_header(scope, b"content-type") or "").split(";")[0].strip().lower()
    if sent in _JSON_TYPES or sent.endswith("+json") or sent.startswith("multipart/"):
        return
    try:
        orjson.loads(body)
    except orjson.JSONDecodeError:
        shown = sent or "none"
        raise MalformedRequest(
            f"The request body must be JSON sent with 'Content-Type: application/json' "
            f"(this request's Content-Type: {shown})."
        ) from None
    headers = [(k, v) for k, v in scope.get("headers", []) if k != b"content-type"]
    scope["headers"] = [*headers, (b"content-type", b"application/json")]


async def _read_body(scope: Scope, receive: Receive) -> bytes:
    declared = _header(scope, b"content-length")
    if declared and declared.isdigit() and int(declared) > MAX_BODY:
        raise PayloadTooLarge(f"The request body must be at most {MAX_BODY} bytes.")
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            raise PayloadTooLarge(f"The request body must be at most {MAX_BODY} bytes.")
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes, then: Receive) -> Receive:
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await then()  # later reads wait for the real disconnect

    return receive


async def _send_problem(exc: ApiError, request_id: str, send: Send) -> None:
    response = ProblemResponse(exc.body(request_id), status_code=exc.status, headers=exc.headers)
    await response({"type": "http"}, _never_receive, send)


async def _never_receive() -> Message:
    return {"type": "http.disconnect"}


def _is_outage(exc: BaseException) -> bool:
    """PostgreSQL or Redis unreachable (or every database connection busy for the whole pool
    timeout): a 503 the client may retry, not a bug (500)."""
    import psycopg
    import sqlalchemy.exc

    seen: BaseException | None = exc
    while seen is not None:
        # (sqlalchemy's TimeoutError: every pooled connection busy)
        if isinstance(seen, (psycopg.OperationalError, sqlalchemy.exc.OperationalError,
                             sqlalchemy.exc.InterfaceError, ConnectionError, OSError, TimeoutError,
                             sqlalchemy.exc.TimeoutError)):
            return True
        if type(seen).__module__.startswith("redis") and "Connection" in type(seen).__name__:
            return True
        seen = seen.__cause__ or seen.__context__
    return False

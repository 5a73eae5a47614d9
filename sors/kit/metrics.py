"""Prometheus metrics, exposed at /metrics."""

from __future__ import annotations

from prometheus_client import Counter, Histogram
from starlette.types import Scope

REQUESTS = Counter("sors_http_requests_total", "HTTP requests", ["method", "route", "status"])
LATENCY = Histogram(
    "sors_http_request_seconds", "HTTP request latency", ["method", "route"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
)
CREDITS = Counter("sors_credits_charged_total", "Credits charged", ["skill"])
JOBS = Counter("sors_jobs_total", "Jobs finished", ["type", "status"])


def observe_request(scope: Scope, status: int, seconds: float) -> None:
    route = scope.get("route")
    # Label by route template, never by raw path (ids would explode the cardinality).
    name = getattr(route, "path", None) or "unmatched"
    method = scope.get("method", "")
    REQUESTS.labels(method, name, str(status)).inc()
    LATENCY.labels(method, name).observe(seconds)

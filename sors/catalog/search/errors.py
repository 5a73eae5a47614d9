"""Search errors: search by meaning where this server cannot run it."""

from __future__ import annotations

from sors.kit.errors import ApiError


class SemanticUnavailable(ApiError):
    status = 503
    code = "semantic_unavailable"
    title = "Search by meaning is unavailable"

"""The demand domain's errors."""

from __future__ import annotations

from sors.kit.errors import ApiError


class DemandUnavailable(ApiError):
    """No embedding model can be loaded here: comments cannot be clustered by meaning."""

    status = 503
    code = "demand_unavailable"
    title = "Demand search is unavailable"

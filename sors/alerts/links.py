"""Links in alert emails: signed confirm and stop links, and where a link to a post leads."""

from __future__ import annotations

from collections.abc import Sequence

from sors.config import Settings
from sors.kit.security import Signer, TokenError

CONFIRM_PURPOSE = "alert-confirm"
STOP_PURPOSE = "alert-stop"
# Links in emails stay usable for as long as an alert can live, and then some.
LINK_MAX_AGE = 365 * 24 * 3600


def confirm_url(settings: Settings, signer: Signer, account_id: str, email: str) -> str:
    token = signer.sign(CONFIRM_PURPOSE, {"a": account_id, "e": email})
    return f"{settings.base_url.rstrip('/')}/alerts/confirm/{token}"


def stop_url(settings: Settings, signer: Signer, alert_ids: Sequence[str]) -> str:
    token = signer.sign(STOP_PURPOSE, {"alerts": list(alert_ids)})
    return f"{settings.base_url.rstrip('/')}/alerts/stop/{token}"


def read_confirm_token(signer: Signer, token: str) -> tuple[str, str]:
    """(account id, address); raises TokenError."""
    data = signer.verify(CONFIRM_PURPOSE, token, LINK_MAX_AGE)
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("a"), str)
        or not isinstance(data.get("e"), str)
    ):
        raise TokenError("invalid")
    return data["a"], data["e"]


def read_stop_token(signer: Signer, token: str) -> list[str]:
    data = signer.verify(STOP_PURPOSE, token, LINK_MAX_AGE)
    ids = data.get("alerts") if isinstance(data, dict) else None
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
        raise TokenError("invalid")
    return ids


def post_link(settings: Settings, post_id: str, platform_url: str) -> str:
    """Where a link to a stored post should lead: the platform, or in simulation the demo's
    own page for it (`GET /sim/posts/{postId}`)."""
    if settings.platform_source == "sim":
        return f"{settings.base_url.rstrip('/')}/sim/posts/{post_id}"
    return platform_url

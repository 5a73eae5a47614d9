"""Email addresses as sors stores and compares them."""

from __future__ import annotations

from email_validator import EmailNotValidError, validate_email


def normalize_email(raw: str) -> str:
    """The address as we store and compare it: syntax-checked, lower-cased."""
    try:
        info = validate_email(raw.strip(), check_deliverability=False)
    except EmailNotValidError as exc:
        raise ValueError(f"not a valid email address: {exc}") from exc
    return info.normalized.lower()

"""`sors doctor` beyond the platforms: email, payments, the public base URL, the LLM,
storage and Redis, each failing check with its fix; `--live` reaches the SMTP server (a
real one on loopback) and `--email-to` sends a test message."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_doctor import doctor
from tests.factories.smtp import Inbox, free_port, smtp_on_loopback


def service(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in report["service"]}


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    with smtp_on_loopback() as running:
        yield running


def test_unconfigured_it_names_each_service_gap_with_its_fix(tmp_path: Path) -> None:
    code, report = doctor(tmp_path)
    assert code == 1
    checks = service(report)
    assert set(checks) == {"email", "public base URL", "llm", "storage", "redis"}
    assert checks["email"]["status"] == "warning" and "SORS_EMAIL_BACKEND=smtp" in (
        checks["email"]["fix"])
    base = checks["public base URL"]
    assert base["status"] == "error" and "127.0.0.1" in base["detail"]
    assert "SORS_BASE_URL" in base["fix"]
    # Optional: says what works without it, and is not a failure.
    assert checks["llm"]["status"] == "ok" and "optional" in checks["llm"]["detail"]
    assert checks["storage"]["status"] == "ok"
    assert checks["redis"]["status"] == "warning" and "SORS_REDIS_URL" in checks["redis"]["fix"]
    assert all(c["fix"] for c in report["service"] if c["status"] != "ok")


def test_stripe_in_test_mode_without_a_webhook_secret_and_a_made_up_sender_fail(
    tmp_path: Path,
) -> None:
    code, report = doctor(
        tmp_path, SORS_PAYMENTS="stripe", SORS_STRIPE_SECRET_KEY="sk_test_abc123",
        SORS_EMAIL_BACKEND="smtp", SORS_SMTP_HOST="127.0.0.1",
        SORS_BASE_URL="https://sors.example.com", SORS_MEDIA_STORE="s3")
    assert code == 1
    checks = service(report)
    assert checks["stripe key"]["status"] == "warning" and "test mode" in (
        checks["stripe key"]["detail"])
    hook = checks["stripe webhook"]
    assert hook["status"] == "error" and "SORS_STRIPE_WEBHOOK_SECRET" in hook["fix"]
    assert "https://sors.example.com/webhooks/stripe" in hook["fix"]
    assert checks["email"]["status"] == "error" and "SORS_EMAIL_FROM" in checks["email"]["fix"]
    assert checks["storage"]["status"] == "error" and "SORS_S3_BUCKET" in (
        checks["storage"]["fix"])
    assert checks["public base URL"]["status"] == "ok"
    assert "sk_test_abc123" not in str(report)


def test_live_reaches_the_smtp_server_and_sends_the_test_email(
    tmp_path: Path, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    env = {"SORS_EMAIL_BACKEND": "smtp", "SORS_SMTP_HOST": "127.0.0.1",
           "SORS_SMTP_PORT": str(port), "SORS_EMAIL_FROM": "sors <alerts@sors.example.com>",
           "SORS_BASE_URL": "https://sors.example.com", "SORS_PLATFORM_SOURCE": "sim"}
    code, report = doctor(tmp_path, "--live", "--email-to", "ops@example.com", **env)
    checks = service(report)
    assert checks["email"]["status"] == "ok"
    assert checks["smtp reachable"]["status"] == "ok"
    assert checks["test email"]["status"] == "ok" and "ops@example.com" in (
        checks["test email"]["detail"])
    [(sender, to, body)] = [(m.sender, m.to, m.raw) for m in inbox.messages]
    assert sender == "alerts@sors.example.com" and to == ["ops@example.com"]
    assert b"sors doctor" in body
    assert code == 0, report

    # The server gone: the same check fails, with its fix.
    env["SORS_SMTP_PORT"] = str(free_port())
    code, report = doctor(tmp_path, "--live", **env)
    down = service(report)["smtp reachable"]
    assert code == 1 and down["status"] == "error" and "SORS_SMTP_HOST" in down["fix"]

"""Email builders: headers, both parts, digest contents, escaping of user-provided text."""

from __future__ import annotations

import email
import email.policy
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import parsedate_to_datetime

import pytest

from sors.config import Settings
from sors.email.messages import (
    IDEMPOTENCY_HEADER,
    DigestItem,
    alert_confirmation,
    alert_digest,
    api_key_issued,
    feedback_resolved,
    format_score,
    format_views,
)

SETTINGS = Settings(base_url="https://sors.test/", email_from="sors <alerts@sors.test>")
NOW = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)
UNSUB = "https://sors.test/alerts/unsubscribe/tok-all"


def _roundtrip(msg: EmailMessage) -> EmailMessage:
    """What a mail client would see: the message serialised and parsed again."""
    return email.message_from_bytes(msg.as_bytes(), policy=email.policy.default)


def _parts(msg: EmailMessage) -> tuple[str, str]:
    assert msg.get_content_type() == "multipart/alternative"
    text, html = msg.get_body(("plain",)), msg.get_body(("html",))
    assert text is not None and html is not None
    return text.get_content(), html.get_content()


def _items() -> list[DigestItem]:
    return [
        DigestItem(
            post_url="https://www.tiktok.com/@fit.anna/video/7301234567890",
            handle="fit.anna",
            platform="tiktok",
            views=1_830_000,
            outlier_score=4.1,
            score_window="three_months",
            caption_excerpt='Yoga <b>"flow"</b> & <script>alert("x")</script>',
            alert_id="alr_a",
        ),
        DigestItem(
            post_url="https://www.tiktok.com/@fit.anna/video/7301234567999",
            handle="fit.anna",
            platform="tiktok",
            views=920_500,
            outlier_score=2.04,
            score_window="three_months",
            caption_excerpt=None,
            alert_id="alr_a",
        ),
        DigestItem(
            post_url="https://www.youtube.com/shorts/abcDEF12345",
            handle="cookwithsam",
            platform="youtube",
            views=52_000,
            outlier_score=12.345,
            score_window="one_month",
            caption_excerpt="Five-minute bread",
            alert_id="alr_b",
        ),
    ]


def _digest(**kwargs) -> EmailMessage:
    return alert_digest(
        "ana@example.com",
        _items(),
        {
            "alr_a": "https://sors.test/alerts/stop/tok-a",
            "alr_b": "https://sors.test/alerts/stop/tok-b",
        },
        UNSUB,
        settings=SETTINGS,
        now=NOW,
        **kwargs,
    )


def test_formatting_helpers() -> None:
    assert format_views(1_830_000) == "1,830,000"
    assert format_views(None) == "—"
    assert format_score(4.1) == "4.1×"
    assert format_score(12.345) == "12.3×"
    assert format_score(None) == "—"


def test_common_headers() -> None:
    msg = _roundtrip(_digest(idempotency_key="digest:ana@example.com:2026-11-02"))
    assert msg["From"] == "sors <alerts@sors.test>"
    assert msg["To"] == "ana@example.com"
    assert parsedate_to_datetime(msg["Date"]) == NOW
    assert msg["Message-ID"].startswith("<") and msg["Message-ID"].endswith("@sors.test>")
    assert msg[IDEMPOTENCY_HEADER] == "digest:ana@example.com:2026-11-02"
    assert msg["Auto-Submitted"] == "auto-generated"
    assert _digest()[IDEMPOTENCY_HEADER] is None


def test_every_message_gets_its_own_message_id() -> None:
    assert _digest()["Message-ID"] != _digest()["Message-ID"]


def test_digest_lists_link_views_score_and_handle_for_every_post() -> None:
    msg = _roundtrip(_digest())
    assert msg["List-Unsubscribe"] == f"<{UNSUB}>"
    assert msg["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert msg["Subject"] == "3 new outlier posts from @fit.anna and 1 more"
    text, html = _parts(msg)
    expected = [
        ("https://www.tiktok.com/@fit.anna/video/7301234567890", "1,830,000", "4.1×", "@fit.anna"),
        ("https://www.tiktok.com/@fit.anna/video/7301234567999", "920,500", "2.0×", "@fit.anna"),
        ("https://www.youtube.com/shorts/abcDEF12345", "52,000", "12.3×", "@cookwithsam"),
    ]
    for url, views, score, handle in expected:
        for part in (text, html):
            assert url in part and views in part and score in part and handle in part
        assert f'href="{url}"' in html
    # per-alert stop links, and the one-click stop for all of them
    for part in (text, html):
        assert "https://sors.test/alerts/stop/tok-a" in part
        assert "https://sors.test/alerts/stop/tok-b" in part
        assert UNSUB in part
    assert "3-month window" in text and "1-month window" in text
    assert "TikTok" in html and "YouTube" in html


def test_digest_escapes_captions_in_html_and_keeps_them_readable_in_text() -> None:
    text, html = _parts(_roundtrip(_digest()))
    assert "<script>" not in html and "<b>" not in html
    assert "&lt;script&gt;" in html
    assert "&amp;" in html
    assert "&#34;flow&#34;" in html or "&quot;flow&quot;" in html
    assert 'Yoga <b>"flow"</b> & <script>alert("x")</script>' in text


def test_digest_never_makes_script_links_clickable() -> None:
    item = DigestItem(
        post_url="javascript:alert(1)",
        handle='x"><img src=x onerror=alert(1)>',
        platform="tiktok",
        views=10,
        outlier_score=3.0,
        score_window="one_week",
        caption_excerpt="",
        alert_id="alr_x",
    )
    msg = alert_digest("a@example.com", [item], {}, UNSUB, settings=SETTINGS, now=NOW)
    _, html = _parts(msg)
    assert 'href="javascript:' not in html
    assert "<img" not in html


def test_digest_shortens_long_captions() -> None:
    item = DigestItem(
        post_url="https://www.instagram.com/reel/Cabc123/",
        handle="longtalker",
        platform="instagram",
        views=5,
        outlier_score=1.9,
        score_window="all_time",
        caption_excerpt="word " * 400,
        alert_id="alr_1",
    )
    text, _ = _parts(alert_digest("a@example.com", [item], {}, UNSUB, settings=SETTINGS, now=NOW))
    assert "…" in text and "word " * 60 not in text


def test_digest_needs_items() -> None:
    with pytest.raises(ValueError):
        alert_digest("a@example.com", [], {}, UNSUB, settings=SETTINGS, now=NOW)


def test_user_text_cannot_inject_headers() -> None:
    msg = alert_confirmation(
        "bob@example.com",
        "https://sors.test/alerts/confirm/tok",
        "evil\r\nBcc: victim@example.com",
        "tiktok",
        settings=SETTINGS,
        now=NOW,
    )
    parsed = _roundtrip(msg)
    assert parsed["Bcc"] is None
    assert "\n" not in parsed["Subject"]


def test_alert_confirmation() -> None:
    msg = _roundtrip(
        alert_confirmation(
            "bob@example.com",
            "https://sors.test/alerts/confirm/tok-123",
            "fit.anna",
            "instagram",
            settings=SETTINGS,
            now=NOW,
            idempotency_key="confirm:alr_1",
        )
    )
    assert msg["Subject"] == "Confirm viral alerts for @fit.anna on Instagram"
    assert msg[IDEMPOTENCY_HEADER] == "confirm:alr_1"
    assert msg["List-Unsubscribe"] is None
    text, html = _parts(msg)
    assert "https://sors.test/alerts/confirm/tok-123" in text
    assert 'href="https://sors.test/alerts/confirm/tok-123"' in html
    assert "@fit.anna" in text and "@fit.anna" in html


def test_feedback_resolved_escapes_the_users_message() -> None:
    msg = _roundtrip(
        feedback_resolved(
            "carol@example.com",
            "fbk_42",
            "Search <i>breaks</i> on emoji 🙂",
            "Fixed in the tokenizer & deployed.",
            settings=SETTINGS,
            now=NOW,
        )
    )
    assert "fbk_42" in msg["Subject"]
    text, html = _parts(msg)
    assert "Search <i>breaks</i> on emoji 🙂" in text
    assert "Search &lt;i&gt;breaks&lt;/i&gt; on emoji 🙂" in html
    assert "Fixed in the tokenizer &amp; deployed." in html
    assert "Fixed in the tokenizer & deployed." in text


def test_feedback_resolved_without_a_note() -> None:
    text, html = _parts(
        feedback_resolved(
            "c@example.com", "fbk_1", "It is slow today.", None, settings=SETTINGS, now=NOW
        )
    )
    assert "Our note" not in text and "Our note" not in html


def test_api_key_issued() -> None:
    key = "sors_" + "A" * 40
    msg = _roundtrip(
        api_key_issued(
            "dan@example.com", key, 1500, settings=SETTINGS, now=NOW, idempotency_key="key:cs_1"
        )
    )
    assert msg["Subject"] == "Your sors API key"
    text, html = _parts(msg)
    assert key in text and key in html
    assert "1,500 credits" in text
    assert "https://sors.test/docs" in text

"""Where each SORS_* variable goes: `FLAT` maps the names users know (`SORS_SMTP_HOST`, and the
keyword `smtp_host`) to their group and field (`settings.email.smtp_host`); `FlatEnvironment`
reads the environment under those names."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from pydantic_settings import PydanticBaseSettingsSource

FLAT: dict[str, tuple[str, str]] = {
    "database_url": ("database", "url"),
    "db_pool_size": ("database", "pool_size"),
    "db_max_overflow": ("database", "max_overflow"),
    "db_pool_timeout": ("database", "pool_timeout"),
    "db_ping_after_idle_seconds": ("database", "ping_after_idle_seconds"),
    "redis_url": ("redis", "url"),
    "email_backend": ("email", "backend"),
    "email_from": ("email", "sender"),
    **{f"smtp_{k}": ("email", f"smtp_{k}") for k in (
        "host", "port", "username", "password", "starttls", "use_tls", "timeout")},
    "payments": ("payments", "provider"),
    **{k: ("payments", k) for k in (
        "stripe_secret_key", "stripe_webhook_secret", "stripe_api_base",
        "keyless_checkout_enabled", "stripe_prices")},
    "payments_local_allowed": ("payments", "local_allowed"),
    "subscriptions_enabled": ("subscriptions", "enabled"),
    **{k: ("subscriptions", k) for k in (
        "api_only_watchlist_limit", "api_only_followed_profile_limit", "api_only_seats")},
    "rate_limit_per_minute": ("rate_limits", "per_minute"),
    "rate_limit_ip_per_minute": ("rate_limits", "ip_per_minute"),
    "topup_links_per_hour": ("rate_limits", "topup_links_per_hour"),
    "media_store": ("media", "store"),
    "media_url_ttl_seconds": ("media", "url_ttl_seconds"),
    **{k: ("media", k) for k in ("s3_bucket", "s3_endpoint_url", "s3_prefix")},
    **{f"llm_{k}": ("llm", k) for k in ("base_url", "model", "api_key", "timeout")},
    "whisper_model": ("speech", "model"),
    **{f"whisper_{k}": ("speech", k) for k in (
        "beam_size", "vad", "parallel", "threads", "batch_size")},
    "tiktok_source": ("sources", "tiktok"),
    "instagram_source": ("sources", "instagram"),
    "youtube_source": ("sources", "youtube"),
    **{k: ("sources", k) for k in (
        "http_proxy", "instagram_session_file", "tiktok_cookies_file", "pacing_backend")},
    "youtube_api_key": ("youtube", "api_key"),
    "youtube_discovery_searches_per_day": ("youtube", "discovery_searches_per_day"),
    **{f"apify_{k}": ("apify", k) for k in (
        "token", "base_url", "tiktok_actor", "instagram_actor", "youtube_actor",
        "run_timeout_seconds", "daily_usd_budget", "tiktok_comments_actor",
        "instagram_comments_actor")},
    **{f"embedding_{k}": ("embeddings", k) for k in ("model", "base_url", "api_key")},
    "embedding_backfill_per_tick": ("embeddings", "backfill_per_tick"),
    "embedding_processes": ("embeddings", "processes"),
    "catalog_keeper": ("keeper", "enabled"),
    **{f"catalog_{k}": ("keeper", k) for k in (
        "target_hot_hours", "target_active_hours", "target_silent_hours",
        "target_inactive_hours", "hot_posted_days", "hot_outlier_days", "hot_outlier_score",
        "silent_days", "crawls_per_hour_tiktok", "crawls_per_hour_instagram",
        "crawls_per_hour_youtube", "discovery", "discoveries_per_hour",
        "discovery_interval_minutes")},
    **{k: ("keeper", k) for k in (
        "thumbnail_checks_per_tick", "curve_profiles_per_tick", "rising_refreshes_per_tick",
        "hook_library_posts_per_tick", "young_refreshes_per_tick", "usage_days_per_tick")},
    "baseline_min_age_hours": ("jobs", "baseline_min_age_hours"),
    "job_stall_seconds": ("jobs", "stall_seconds"),
    "job_max_attempts": ("jobs", "max_attempts"),
    "worker_concurrency": ("jobs", "worker_concurrency"),
    "worker_grace_seconds": ("jobs", "worker_grace_seconds"),
    "sim_seed": ("sim", "seed"),
    "sim_latency_seconds": ("sim", "latency_seconds"),
    **{f"webhooks_{k}": ("webhooks", k) for k in (
        "allow_http", "allow_loopback", "timeout_seconds")},
    **{f"demand_{k}": ("demand", k) for k in (
        "llm_labels", "cluster_similarity", "covered_similarity")},
    "log_level": ("logging", "level"),
    "log_json": ("logging", "json_lines"),
}
PREFIX = "SORS_"
_PRICE_PREFIX = "SORS_STRIPE_PRICE_"


def nest(flat: Mapping[str, object]) -> dict[str, object]:
    """Keyword or environment values under their flat names → the nested shape."""
    out: dict[str, object] = {}
    for name, value in flat.items():
        place = FLAT.get(name)
        if place is None:
            out[name] = value
            continue
        group, field = place
        existing = out.setdefault(group, {})
        if isinstance(existing, dict):
            existing[field] = value
    return out


_TOP_LEVEL = ("data_dir", "platform_source", "base_url", "secret_key")


class FlatEnvironment(PydanticBaseSettingsSource):
    """The SORS_<NAME> variables, each read under the name users know and put in its group
    (pydantic-settings' own source would read a group's name, SORS_PAYMENTS, as the group)."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:  # pydantic-settings' signature
        env = {k.upper(): v for k, v in os.environ.items()}
        flat: dict[str, str | dict[str, str]] = {}
        for name in (*_TOP_LEVEL, *FLAT):
            value = env.get(PREFIX + name.upper())
            if value is not None and name != "stripe_prices":
                flat[name] = value
        prices = {k[len(_PRICE_PREFIX):].lower(): v.strip() for k, v in env.items()
                  if k.startswith(_PRICE_PREFIX) and v.strip()}
        if prices:
            flat["stripe_prices"] = prices
        return nest(flat)

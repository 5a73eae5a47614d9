"""Settings, read from SORS_* environment variables.

One `Settings` object per process (`get_settings()`); tests build their own and install it
with `set_settings()` so every component sees the same values.
"""

from __future__ import annotations

import os
import secrets
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SORS_", env_file=None, extra="ignore")

    data_dir: Path = Path(".sors")
    database_url: str | None = None  # unset: embedded PostgreSQL in DATA_DIR/pg
    # live: the real platforms. `sors demo` and the tests use the simulated world.
    platform_source: Literal["live", "sim"] = "live"
    sim_seed: int = 0
    base_url: str = "http://127.0.0.1:8000"
    secret_key: str | None = None  # unset: generated once and kept in DATA_DIR/secret_key

    # email
    email_backend: Literal["file", "smtp"] = "file"
    email_from: str = "sors <alerts@sors.local>"
    smtp_host: str = "127.0.0.1"
    smtp_port: int = 25
    smtp_username: str | None = None
    smtp_password: str | None = None
    smtp_starttls: bool = False
    smtp_use_tls: bool = False
    smtp_timeout: float = 10.0

    # payments
    payments: Literal["local", "stripe"] = "local"
    stripe_secret_key: str | None = None
    stripe_webhook_secret: str | None = None
    stripe_api_base: str | None = None  # for a local Stripe-compatible endpoint in tests
    keyless_checkout_enabled: bool = True
    # Subscription prices: "<plan>_<interval>" -> Stripe price id, from
    # SORS_STRIPE_PRICE_<PLAN>_<INTERVAL> (e.g. SORS_STRIPE_PRICE_PRO_YEAR); a plan without
    # one is looked up by the price's lookup key `sors_<plan>_<interval>`.
    stripe_prices: dict[str, str] = Field(default_factory=dict)
    subscriptions_enabled: bool = True
    # The limits of an account with no plan (neither subscribed nor earned by spend);
    # unset: unlimited.
    api_only_watchlist_limit: int | None = Field(default=None, ge=0)
    api_only_followed_profile_limit: int | None = Field(default=None, ge=0)
    api_only_seats: int | None = Field(default=1, ge=1)  # the owner alone

    # rate limits
    redis_url: str | None = None
    rate_limit_per_minute: int = Field(default=120, ge=1)
    rate_limit_ip_per_minute: int = Field(default=30, ge=1)
    topup_links_per_hour: int = Field(default=5, ge=1)

    # media, models, live platforms
    media_store: Literal["local", "s3"] = "local"
    media_url_ttl_seconds: int = 24 * 3600
    s3_bucket: str | None = None
    s3_endpoint_url: str | None = None
    s3_prefix: str = "sors/"
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key: str | None = None
    llm_timeout: float = 60.0
    whisper_model: str | None = None  # a name or a path; unset: the offline tiny.en model
    # Speech decoding (docs/OPERATIONS.md "Speech model", docs/PERFORMANCE.md "Speech"): beam
    # width (1: greedy), the Silero VAD that skips what is not speech, transcriptions run at
    # once per process (unset: one per two cores) and CPU threads each (unset: the cores shared
    # among them), and segments batched through the encoder together (1: one after the other).
    whisper_beam_size: int = Field(default=5, ge=1, le=10)
    whisper_vad: bool = False
    whisper_parallel: int | None = Field(default=None, ge=1, le=32)
    whisper_threads: int | None = Field(default=None, ge=1, le=64)
    whisper_batch_size: int = Field(default=1, ge=1, le=32)
    youtube_api_key: str | None = None
    http_proxy: str | None = None
    instagram_session_file: str | None = None
    tiktok_cookies_file: str | None = None
    # Where each platform's data comes from when live (docs/OPERATIONS.md "Sources"). Unset:
    # YouTube `api` with a Data API key, else `web`; TikTok and Instagram `apify` with an
    # Apify token, else `web` (the scrapers).
    tiktok_source: Literal["web", "apify"] | None = None
    instagram_source: Literal["web", "apify"] | None = None
    youtube_source: Literal["web", "api", "apify"] | None = None
    apify_token: str | None = None
    apify_base_url: str = "https://api.apify.com"
    apify_tiktok_actor: str = "clockworks~tiktok-scraper"
    apify_instagram_actor: str = "apify~instagram-scraper"
    apify_youtube_actor: str = "streamers~youtube-scraper"
    apify_run_timeout_seconds: int = Field(default=300, ge=10, le=3600)
    # Embeddings for search by meaning: "wordllama" (offline, inside its wheel), a
    # sentence-transformers model path, or "openai:<model>" at EMBEDDING_BASE_URL.
    embedding_model: str = "wordllama"
    embedding_base_url: str | None = None
    embedding_api_key: str | None = None
    # Posts the scheduler (re-)embeds per tick: those stored before search by meaning, or
    # after a model change. 0: none.
    embedding_backfill_per_tick: int = Field(default=5000, ge=0)
    # Thumbnails the scheduler fetches per tick to see them change (live, YouTube first).
    thumbnail_checks_per_tick: int = Field(default=20, ge=0)
    # Profiles whose creator curves (rising posts) the scheduler recomputes per tick.
    curve_profiles_per_tick: int = Field(default=2000, ge=0)
    # Monitoring refreshes a tick may pull forward for young posts under rising alerts
    # (each charged like any refresh). 0: rising alerts wait for the regular cadence.
    rising_refreshes_per_tick: int = Field(default=200, ge=0)
    # What the catalog keeper may spend on provider runs per UTC day (unset: no limit).
    apify_daily_usd_budget: float | None = Field(default=None, ge=0)

    # jobs
    # A window's mean baseline counts only posts at least this old (docs/API.md).
    baseline_min_age_hours: float = Field(default=48, ge=0, le=24 * 30)
    job_stall_seconds: int = Field(default=300, ge=5)
    job_max_attempts: int = Field(default=4, ge=1)
    worker_concurrency: int = Field(default=4, ge=1)
    # On SIGTERM a worker stops claiming and lets running jobs finish for this long; what is
    # still running then goes back to the queue at once (not after job_stall_seconds).
    worker_grace_seconds: float = Field(default=20.0, ge=0)
    # Simulated platforms answer after this many seconds (0: at once), as real ones take time.
    sim_latency_seconds: float = Field(default=0.0, ge=0, le=600)

    # webhooks: plain http and loopback receivers are for local development and tests only
    webhooks_allow_http: bool = False
    webhooks_allow_loopback: bool = False
    webhooks_timeout_seconds: float = Field(default=10.0, gt=0, le=30)

    # the catalog keeper (catalog/freshness.py, docs/OPERATIONS.md "The catalog keeper")
    catalog_keeper: bool = True
    catalog_target_hot_hours: float = Field(default=24, gt=0)
    catalog_target_active_hours: float = Field(default=72, gt=0)
    catalog_target_silent_hours: float = Field(default=14 * 24, gt=0)
    catalog_target_inactive_hours: float = Field(default=30 * 24, gt=0)
    catalog_hot_posted_days: float = Field(default=7, gt=0)
    catalog_hot_outlier_days: float = Field(default=30, gt=0)
    catalog_hot_outlier_score: float = Field(default=3.0, gt=0)
    catalog_silent_days: float = Field(default=90, gt=0)
    # Keeper crawls per platform per hour of the process clock; unset: the source's default
    # (live: what the platform's pacing sustains beside user crawls; sim: 5000).
    catalog_crawls_per_hour_tiktok: int | None = Field(default=None, ge=0)
    catalog_crawls_per_hour_instagram: int | None = Field(default=None, ge=0)
    catalog_crawls_per_hour_youtube: int | None = Field(default=None, ge=0)
    catalog_discovery: bool = True
    catalog_discoveries_per_hour: int = Field(default=20, ge=0)  # per platform
    catalog_discovery_interval_minutes: float = Field(default=60, gt=0)
    youtube_discovery_searches_per_day: int = Field(default=10, ge=0)  # 100 quota units each
    # Platform pacing shared by every worker: "postgres", "redis" (needs REDIS_URL) or
    # "process" (each process alone). Unset: redis when REDIS_URL is set, else postgres.
    pacing_backend: Literal["postgres", "redis", "process"] | None = None

    # database pool
    db_pool_size: int = Field(default=10, ge=1)
    db_max_overflow: int = Field(default=20, ge=0)
    # How long a request may wait for a free connection. A burst larger than the pool queues
    # here (in arrival order) rather than failing: 1,000 simultaneous calls on two vCPUs
    # take longer than SQLAlchemy's default of 30 s to drain. Past it: 503 with Retry-After.
    db_pool_timeout: float = Field(default=120.0, gt=0)
    # A pooled connection idle longer than this is pinged (a round trip) before it is handed
    # out; one used more recently is handed out as it is (see kit.db.make_engine). 0: always.
    db_ping_after_idle_seconds: float = Field(default=5.0, ge=0)

    log_level: str = "INFO"
    log_json: bool = True

    @model_validator(mode="after")
    def _stripe_prices_from_env(self) -> Settings:
        prefix = "SORS_STRIPE_PRICE_"
        for name, value in os.environ.items():
            if name.upper().startswith(prefix) and value.strip():
                self.stripe_prices.setdefault(name[len(prefix) :].lower(), value.strip())
        return self

    @model_validator(mode="after")
    def _source_of_this_data_dir(self) -> Settings:
        # A data dir made by `sors demo` remembers it holds a simulated world, so the CLI
        # (`sors sim clock …`, `sors scheduler run-once`) works there without extra settings.
        if "platform_source" not in self.model_fields_set:
            marker = self.data_dir / "platform_source"
            if marker.is_file() and marker.read_text().strip() in ("live", "sim"):
                self.platform_source = marker.read_text().strip()  # type: ignore[assignment]
        # Likewise its address, so emails the CLI sends (`sors scheduler run-once`) link to
        # the running demo whatever port it took.
        if "base_url" not in self.model_fields_set:
            marker = self.data_dir / "base_url"
            if marker.is_file() and marker.read_text().strip().startswith(("http://", "https://")):
                self.base_url = marker.read_text().strip()
        return self

    @cached_property
    def resolved_secret_key(self) -> str:
        if self.secret_key:
            return self.secret_key
        self.data_dir.mkdir(parents=True, exist_ok=True)
        path = self.data_dir / "secret_key"
        if path.exists():
            return path.read_text().strip()
        key = secrets.token_urlsafe(48)
        # O_EXCL: two processes starting together must agree on one key.
        try:
            with path.open("x") as fh:
                fh.write(key)
            path.chmod(0o600)
        except FileExistsError:
            return path.read_text().strip()
        return key

    @property
    def outbox_dir(self) -> Path:
        return self.data_dir / "outbox"

    @property
    def media_dir(self) -> Path:
        return self.data_dir / "media"


_settings: Settings | None = None


def get_settings() -> Settings:
    global _settings
    if _settings is None:
        _settings = Settings()
    return _settings


def set_settings(settings: Settings) -> None:
    global _settings
    _settings = settings

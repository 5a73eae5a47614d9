"""Settings, read from SORS_* environment variables, nested by subsystem.

Each subsystem has its own group (`settings.email.smtp_host`, `settings.apify.token`), while
the variables keep the names users know (`SORS_SMTP_HOST`, `SORS_APIFY_TOKEN`): `FLAT` maps
each variable to its place, for the environment and for keyword arguments alike
(`Settings(smtp_host=...)`, `settings.with_values(smtp_host=...)`).

The doors build one `Settings` (through `sors.kit.runtime.Runtime`) and pass it on; nothing
reads it from a global.
"""

from __future__ import annotations

import os
import secrets
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict


class _Group(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class DatabaseSettings(_Group):
    url: str | None = None  # unset: embedded PostgreSQL in DATA_DIR/pg
    pool_size: int = Field(default=10, ge=1)
    max_overflow: int = Field(default=20, ge=0)
    # How long a request may wait for a free connection. A burst larger than the pool queues
    # here (in arrival order) rather than failing: 1,000 simultaneous calls on two vCPUs
    # take longer than SQLAlchemy's default of 30 s to drain. Past it: 503 with Retry-After.
    pool_timeout: float = Field(default=120.0, gt=0)
    # A pooled connection idle longer than this is pinged (a round trip) before it is handed
    # out; one used more recently is handed out as it is (see kit.db.make_engine). 0: always.
    ping_after_idle_seconds: float = Field(default=5.0, ge=0)


class RedisSettings(_Group):
    url: str | None = None  # rate limits and pacing shared across processes


class EmailSettings(_Group):
    backend: Literal["file", "smtp"] = "file"
    sender: str = "sors <alerts@sors.local>"
    smtp_host: str = "127.0.0.1"
    smtp_port: int = 25
    smtp_username: str | None = None
    smtp_password: str | None = None
    smtp_starttls: bool = False
    smtp_use_tls: bool = False
    smtp_timeout: float = 10.0


class PaymentSettings(_Group):
    provider: Literal["local", "stripe"] = "local"
    stripe_secret_key: str | None = None
    stripe_webhook_secret: str | None = None
    stripe_api_base: str | None = None  # for a local Stripe-compatible endpoint in tests
    keyless_checkout_enabled: bool = True
    # Subscription prices: "<plan>_<interval>" -> Stripe price id, from
    # SORS_STRIPE_PRICE_<PLAN>_<INTERVAL> (e.g. SORS_STRIPE_PRICE_PRO_YEAR); a plan without
    # one is looked up by the price's lookup key `sors_<plan>_<interval>`.
    stripe_prices: dict[str, str] = Field(default_factory=dict)


class SubscriptionSettings(_Group):
    enabled: bool = True
    # The limits of an account with no plan (neither subscribed nor earned by spend);
    # unset: unlimited.
    api_only_watchlist_limit: int | None = Field(default=None, ge=0)
    api_only_followed_profile_limit: int | None = Field(default=None, ge=0)
    api_only_seats: int | None = Field(default=1, ge=1)  # the owner alone


class RateLimitSettings(_Group):
    per_minute: int = Field(default=120, ge=1)
    ip_per_minute: int = Field(default=30, ge=1)
    topup_links_per_hour: int = Field(default=5, ge=1)


class MediaSettings(_Group):
    store: Literal["local", "s3"] = "local"
    url_ttl_seconds: int = 24 * 3600
    s3_bucket: str | None = None
    s3_endpoint_url: str | None = None
    s3_prefix: str = "sors/"


class LlmSettings(_Group):
    base_url: str | None = None
    model: str | None = None
    api_key: str | None = None
    timeout: float = 60.0


class SpeechSettings(_Group):
    """Speech decoding (docs/OPERATIONS.md "Speech model", docs/PERFORMANCE.md "Speech"): the
    model (a name or a path; unset: the offline tiny.en model), beam width (1: greedy), the
    Silero VAD that skips what is not speech, transcriptions run at once per process (unset:
    one per two cores) and CPU threads each (unset: the cores shared among them), and segments
    batched through the encoder together (1: one after the other)."""

    model: str | None = None
    beam_size: int = Field(default=5, ge=1, le=10)
    vad: bool = False
    parallel: int | None = Field(default=None, ge=1, le=32)
    threads: int | None = Field(default=None, ge=1, le=64)
    batch_size: int = Field(default=1, ge=1, le=32)


class SourceSettings(_Group):
    """Where each platform's data comes from when live (docs/OPERATIONS.md "Sources"). Unset:
    YouTube `api` with a Data API key, else `web`; TikTok and Instagram `apify` with an Apify
    token, else `web` (the scrapers)."""

    tiktok: Literal["web", "apify"] | None = None
    instagram: Literal["web", "apify"] | None = None
    youtube: Literal["web", "api", "apify"] | None = None
    http_proxy: str | None = None
    instagram_session_file: str | None = None
    tiktok_cookies_file: str | None = None
    # Platform pacing shared by every worker: "postgres", "redis" (needs REDIS_URL) or
    # "process" (each process alone). Unset: redis when REDIS_URL is set, else postgres.
    pacing_backend: Literal["postgres", "redis", "process"] | None = None


class YouTubeSettings(_Group):
    api_key: str | None = None
    discovery_searches_per_day: int = Field(default=10, ge=0)  # 100 quota units each


class ApifySettings(_Group):
    token: str | None = None
    base_url: str = "https://api.apify.com"
    tiktok_actor: str = "clockworks~tiktok-scraper"
    instagram_actor: str = "apify~instagram-scraper"
    youtube_actor: str = "streamers~youtube-scraper"
    run_timeout_seconds: int = Field(default=300, ge=10, le=3600)
    # What the catalog keeper may spend on provider runs per UTC day (unset: no limit).
    daily_usd_budget: float | None = Field(default=None, ge=0)


class EmbeddingSettings(_Group):
    # "wordllama" (offline, inside its wheel), a sentence-transformers model path, or
    # "openai:<model>" at EMBEDDING_BASE_URL.
    model: str = "wordllama"
    base_url: str | None = None
    api_key: str | None = None
    # Posts the scheduler (re-)embeds per tick: those stored before search by meaning, or
    # after a model change. 0: none.
    backfill_per_tick: int = Field(default=5000, ge=0)


class KeeperSettings(_Group):
    """The catalog keeper (catalog/ingest/freshness.py, docs/OPERATIONS.md "The catalog
    keeper") and the other per-tick budgets of the scheduler."""

    enabled: bool = True
    target_hot_hours: float = Field(default=24, gt=0)
    target_active_hours: float = Field(default=72, gt=0)
    target_silent_hours: float = Field(default=14 * 24, gt=0)
    target_inactive_hours: float = Field(default=30 * 24, gt=0)
    hot_posted_days: float = Field(default=7, gt=0)
    hot_outlier_days: float = Field(default=30, gt=0)
    hot_outlier_score: float = Field(default=3.0, gt=0)
    silent_days: float = Field(default=90, gt=0)
    # Keeper crawls per platform per hour of the process clock; unset: the source's default
    # (live: what the platform's pacing sustains beside user crawls; sim: 5000).
    crawls_per_hour_tiktok: int | None = Field(default=None, ge=0)
    crawls_per_hour_instagram: int | None = Field(default=None, ge=0)
    crawls_per_hour_youtube: int | None = Field(default=None, ge=0)
    discovery: bool = True
    discoveries_per_hour: int = Field(default=20, ge=0)  # per platform
    discovery_interval_minutes: float = Field(default=60, gt=0)
    # Thumbnails the scheduler fetches per tick to see them change (live, YouTube first).
    thumbnail_checks_per_tick: int = Field(default=20, ge=0)
    # Profiles whose creator curves (rising posts) the scheduler recomputes per tick.
    curve_profiles_per_tick: int = Field(default=2000, ge=0)
    # Monitoring refreshes a tick may pull forward for young posts under rising alerts
    # (each charged like any refresh). 0: rising alerts wait for the regular cadence.
    rising_refreshes_per_tick: int = Field(default=200, ge=0)

    def crawls_per_hour(self, platform: str) -> int | None:
        return getattr(self, f"crawls_per_hour_{platform}", None)


class JobSettings(_Group):
    # A window's mean baseline counts only posts at least this old (docs/API.md).
    baseline_min_age_hours: float = Field(default=48, ge=0, le=24 * 30)
    stall_seconds: int = Field(default=300, ge=5)
    max_attempts: int = Field(default=4, ge=1)
    worker_concurrency: int = Field(default=4, ge=1)
    # On SIGTERM a worker stops claiming and lets running jobs finish for this long; what is
    # still running then goes back to the queue at once (not after stall_seconds).
    worker_grace_seconds: float = Field(default=20.0, ge=0)


class SimSettings(_Group):
    seed: int = 0
    # Simulated platforms answer after this many seconds (0: at once), as real ones take time.
    latency_seconds: float = Field(default=0.0, ge=0, le=600)


class WebhookSettings(_Group):
    # Plain http and loopback receivers are for local development and tests only.
    allow_http: bool = False
    allow_loopback: bool = False
    timeout_seconds: float = Field(default=10.0, gt=0, le=30)


class LogSettings(_Group):
    level: str = "INFO"
    json_lines: bool = True


# SORS_<NAME> (and the keyword `name`) → (group, field). Every variable users set.
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
        "run_timeout_seconds", "daily_usd_budget")},
    **{f"embedding_{k}": ("embeddings", k) for k in ("model", "base_url", "api_key")},
    "embedding_backfill_per_tick": ("embeddings", "backfill_per_tick"),
    "catalog_keeper": ("keeper", "enabled"),
    **{f"catalog_{k}": ("keeper", k) for k in (
        "target_hot_hours", "target_active_hours", "target_silent_hours",
        "target_inactive_hours", "hot_posted_days", "hot_outlier_days", "hot_outlier_score",
        "silent_days", "crawls_per_hour_tiktok", "crawls_per_hour_instagram",
        "crawls_per_hour_youtube", "discovery", "discoveries_per_hour",
        "discovery_interval_minutes")},
    **{k: ("keeper", k) for k in (
        "thumbnail_checks_per_tick", "curve_profiles_per_tick", "rising_refreshes_per_tick")},
    "baseline_min_age_hours": ("jobs", "baseline_min_age_hours"),
    "job_stall_seconds": ("jobs", "stall_seconds"),
    "job_max_attempts": ("jobs", "max_attempts"),
    "worker_concurrency": ("jobs", "worker_concurrency"),
    "worker_grace_seconds": ("jobs", "worker_grace_seconds"),
    "sim_seed": ("sim", "seed"),
    "sim_latency_seconds": ("sim", "latency_seconds"),
    **{f"webhooks_{k}": ("webhooks", k) for k in ("allow_http", "allow_loopback", "timeout_seconds")},
    "log_level": ("logging", "level"),
    "log_json": ("logging", "json_lines"),
}
_PREFIX = "SORS_"
_PRICE_PREFIX = "SORS_STRIPE_PRICE_"


def nest(flat: dict[str, Any]) -> dict[str, Any]:
    """Keyword or environment values under their flat names → the nested shape."""
    out: dict[str, Any] = {}
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


class _FlatEnvironment(PydanticBaseSettingsSource):
    """The SORS_<NAME> variables, each read under the name users know and put in its group
    (pydantic-settings' own source would read a group's name, SORS_PAYMENTS, as the group)."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        env = {k.upper(): v for k, v in os.environ.items()}
        flat: dict[str, Any] = {}
        for name in (*_TOP_LEVEL, *FLAT):
            value = env.get(_PREFIX + name.upper())
            if value is not None and name != "stripe_prices":
                flat[name] = value
        prices = {k[len(_PRICE_PREFIX):].lower(): v.strip() for k, v in env.items()
                  if k.startswith(_PRICE_PREFIX) and v.strip()}
        if prices:
            flat["stripe_prices"] = prices
        return nest(flat)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=_PREFIX, env_file=None, extra="ignore")

    data_dir: Path = Path(".sors")
    # live: the real platforms. `sors demo` and the tests use the simulated world.
    platform_source: Literal["live", "sim"] = "live"
    base_url: str = "http://127.0.0.1:8000"
    secret_key: str | None = None  # unset: generated once and kept in DATA_DIR/secret_key

    database: DatabaseSettings = Field(default_factory=DatabaseSettings)
    redis: RedisSettings = Field(default_factory=RedisSettings)
    email: EmailSettings = Field(default_factory=EmailSettings)
    payments: PaymentSettings = Field(default_factory=PaymentSettings)
    subscriptions: SubscriptionSettings = Field(default_factory=SubscriptionSettings)
    rate_limits: RateLimitSettings = Field(default_factory=RateLimitSettings)
    media: MediaSettings = Field(default_factory=MediaSettings)
    llm: LlmSettings = Field(default_factory=LlmSettings)
    speech: SpeechSettings = Field(default_factory=SpeechSettings)
    sources: SourceSettings = Field(default_factory=SourceSettings)
    youtube: YouTubeSettings = Field(default_factory=YouTubeSettings)
    apify: ApifySettings = Field(default_factory=ApifySettings)
    embeddings: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    keeper: KeeperSettings = Field(default_factory=KeeperSettings)
    jobs: JobSettings = Field(default_factory=JobSettings)
    sim: SimSettings = Field(default_factory=SimSettings)
    webhooks: WebhookSettings = Field(default_factory=WebhookSettings)
    logging: LogSettings = Field(default_factory=LogSettings)

    @classmethod
    def settings_customise_sources(
        cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource, dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Keywords first, then the environment under the variables' flat names.
        return init_settings, _FlatEnvironment(settings_cls)

    @model_validator(mode="before")
    @classmethod
    def _nest_flat_keywords(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        # `payments` names both a variable (SORS_PAYMENTS) and a group: a group's values
        # (what `with_values` passes back) are the group.
        flat = {k: v for k, v in data.items()
                if k in FLAT and not (k in cls.model_fields and isinstance(v, dict | BaseModel))}
        if not flat:
            return data
        nested = nest(flat)
        out = {k: v for k, v in data.items() if k not in flat}
        for group, values in nested.items():
            current = out.get(group)
            if isinstance(current, BaseModel):
                current = current.model_dump()
            out[group] = {**(current or {}), **values}
        return out

    @model_validator(mode="after")
    def _source_of_this_data_dir(self) -> Settings:
        # A data dir made by `sors demo` remembers it holds a simulated world, so the CLI
        # (`sors sim clock …`, `sors scheduler run-once`) works there without extra settings.
        if "platform_source" not in self.model_fields_set:
            marker = self.data_dir / "platform_source"
            if marker.is_file() and marker.read_text().strip() in ("live", "sim"):
                self.platform_source = "sim" if marker.read_text().strip() == "sim" else "live"
        # Likewise its address, so emails the CLI sends (`sors scheduler run-once`) link to
        # the running demo whatever port it took.
        if "base_url" not in self.model_fields_set:
            marker = self.data_dir / "base_url"
            if marker.is_file() and marker.read_text().strip().startswith(("http://", "https://")):
                self.base_url = marker.read_text().strip()
        return self

    def with_values(self, **flat: Any) -> Settings:
        """A copy with some values changed, named as their variables are (`smtp_host=…`)."""
        data = self.model_dump()
        for group, values in nest(flat).items():
            if isinstance(values, dict) and isinstance(data.get(group), dict):
                data[group].update(values)
            else:
                data[group] = values
        return type(self).model_validate(data)

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

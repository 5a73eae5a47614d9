"""The settings' groups, one per subsystem (`settings.email`, `settings.apify`, …); each field
is read from the SORS_* variable `sors.config.environment.FLAT` names for it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


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
    # The local provider grants credits without money: it runs only with the simulated
    # platforms, or when this says so (a staging install); `sors serve` and `sors doctor`
    # warn loudly then (payments.policy).
    local_allowed: bool = False
    # Checkout without a key (a new account per payment). Unset: on in the demo (simulated
    # platforms), off elsewhere.
    keyless_checkout_enabled: bool | None = None
    # Subscription prices: "<plan>_<interval>" -> Stripe price id, from
    # SORS_STRIPE_PRICE_<PLAN>_<INTERVAL> (e.g. SORS_STRIPE_PRICE_PRO_YEAR); a plan without
    # one is looked up by the price's lookup key `sors_<plan>_<interval>`.
    stripe_prices: dict[str, str] = Field(default_factory=dict)


class SubscriptionSettings(_Group):
    enabled: bool = True
    # The limits of an account with no plan (neither subscribed nor earned by spend); None:
    # unlimited. The watchlist has a default: every tracked profile is refreshed (and paid
    # for) on a schedule no request makes, so an account without a plan tracks at most 25.
    api_only_watchlist_limit: int | None = Field(default=25, ge=0)
    api_only_followed_profile_limit: int | None = Field(default=None, ge=0)
    api_only_seats: int | None = Field(default=1, ge=1)  # the owner alone

    @field_validator("api_only_watchlist_limit", "api_only_followed_profile_limit",
                     mode="before")
    @classmethod
    def _unlimited(cls, v: object) -> object:
        """`unlimited` (or an empty value) in the environment: no limit."""
        if isinstance(v, str) and v.strip().lower() in ("", "none", "unlimited"):
            return None
        return v


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
    # Comment actors (a post's comments, POST /comments); YouTube's come from the Data API.
    tiktok_comments_actor: str = "clockworks~tiktok-comments-scraper"
    instagram_comments_actor: str = "apify~instagram-comment-scraper"
    run_timeout_seconds: int = Field(default=300, ge=10, le=3600)
    # What the catalog keeper may spend on provider runs per UTC day (unset: no limit).
    daily_usd_budget: float | None = Field(default=None, ge=0)


class EmbeddingSettings(_Group):
    # "use-m3" (offline, inside its wheel), "wordllama" (likewise; a static model, weaker on
    # paraphrases), a sentence-transformers model path, or "openai:<model>" at
    # EMBEDDING_BASE_URL.
    model: str = "use-m3"
    base_url: str | None = None
    api_key: str | None = None
    # Posts the scheduler (re-)embeds per tick: those stored before search by meaning, or
    # after a model change. 0: none.
    backfill_per_tick: int = Field(default=5000, ge=0)
    # Processes that embed a large batch (the scheduler's, a demo world's) for a model whose
    # cost is CPU in Python (use-m3): unset, one per core (at most 4); 1: a thread of the
    # process itself.
    processes: int | None = Field(default=None, ge=1, le=64)


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
    # Outliers the hook library's background pass gives their hook per tick (from stored
    # captions, on-screen text and transcripts; nothing is fetched). 0: none.
    hook_library_posts_per_tick: int = Field(default=1000, ge=0)
    # Monitoring refreshes a tick may pull forward for young posts under rising alerts
    # (each charged like any refresh). 0: rising alerts wait for the regular cadence.
    rising_refreshes_per_tick: int = Field(default=200, ge=0)
    # Keeper refreshes per platform and tick for catalog creators with a post past a young
    # age (1, 3, 6, 12, 24 h) since their last crawl (sors.keeper.young), within the hourly
    # budget: rising posts of creators no one monitors. 0: none.
    young_refreshes_per_tick: int = Field(default=100, ge=0)
    # Days of posts the scheduler rolls up per tick for trends of sounds and hashtags.
    usage_days_per_tick: int = Field(default=20, ge=0)

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


class DemandSettings(_Group):
    """Comments as demand (sors/demand, docs/API.md "Demand")."""

    # A language model (SORS_LLM_*) re-labels comments the rules typed; it may only choose
    # one of the kinds. Off: the rules alone.
    llm_labels: bool = False
    # Cosine similarity at or above which two comments share a cluster, and at or above
    # which a post in the catalog answers a cluster (`covered`). Unset: the model's own
    # calibrated value (demand.vectors).
    cluster_similarity: float | None = Field(default=None, gt=0, le=1)
    covered_similarity: float | None = Field(default=None, gt=0, le=1)


class LogSettings(_Group):
    level: str = "INFO"
    json_lines: bool = True


# SORS_<NAME> (and the keyword `name`) → (group, field). Every variable users set.

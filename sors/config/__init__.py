"""Settings, read from SORS_* environment variables, nested by subsystem.

Each subsystem has its own group (`settings.email.smtp_host`, `settings.apify.token`), while
the variables keep the names users know (`SORS_SMTP_HOST`, `SORS_APIFY_TOKEN`): `FLAT` maps
each variable to its place, for the environment and for keyword arguments alike
(`Settings(smtp_host=...)`, `settings.with_values(smtp_host=...)`).

The doors build one `Settings` (through `sors.kit.runtime.Runtime`) and pass it on; nothing
reads it from a global.
"""

from __future__ import annotations

import secrets
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from sors.config.environment import FLAT, PREFIX, FlatEnvironment, nest
from sors.config.groups import (
    ApifySettings,
    DatabaseSettings,
    DemandSettings,
    EmailSettings,
    EmbeddingSettings,
    JobSettings,
    KeeperSettings,
    LlmSettings,
    LogSettings,
    MediaSettings,
    PaymentSettings,
    RateLimitSettings,
    RedisSettings,
    SimSettings,
    SourceSettings,
    SpeechSettings,
    SubscriptionSettings,
    WebhookSettings,
    YouTubeSettings,
)


def _is_flat(name: str, value: object) -> bool:
    """A value under a variable's flat name. `payments` names both a variable (SORS_PAYMENTS,
    the provider) and its group: a mapping there is the group."""
    if name not in FLAT:
        return False
    return name not in Settings.model_fields or not isinstance(value, dict | BaseModel)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=PREFIX, env_file=None, extra="ignore")

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
    demand: DemandSettings = Field(default_factory=DemandSettings)
    logging: LogSettings = Field(default_factory=LogSettings)

    @classmethod
    def settings_customise_sources(
        cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource, dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Keywords first, then the environment under the variables' flat names.
        return init_settings, FlatEnvironment(settings_cls)

    @model_validator(mode="before")
    @classmethod
    def _nest_flat_keywords(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        flat = {k for k, v in data.items() if _is_flat(k, v)}
        if not flat:
            return data
        nested = nest({k: v for k, v in data.items() if k in flat})
        out = {k: v for k, v in data.items() if k not in flat}
        for group, values in nested.items():
            current = out.get(group)
            if isinstance(current, BaseModel):
                current = current.model_dump()
            out[group] = {**(current or {}), **values} if isinstance(values, dict) else values
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
    def local_payments_allowed(self) -> bool:
        """The local provider (credits for a click, no money) runs only with the simulated
        platforms, or when SORS_PAYMENTS_LOCAL_ALLOWED says so (sors.payments.policy)."""
        return self.platform_source == "sim" or self.payments.local_allowed

    @property
    def keyless_checkout_open(self) -> bool:
        """Checkout without a key: on in the demo, off elsewhere unless set; never on a
        local provider that may not run."""
        enabled = self.payments.keyless_checkout_enabled
        if enabled is None:
            enabled = self.platform_source == "sim"
        local_refused = self.payments.provider == "local" and not self.local_payments_allowed
        return enabled and not local_refused

    @property
    def outbox_dir(self) -> Path:
        return self.data_dir / "outbox"

    @property
    def media_dir(self) -> Path:
        return self.data_dir / "media"


__all__ = [
    "FLAT", "ApifySettings", "DatabaseSettings", "EmailSettings", "EmbeddingSettings",
    "JobSettings", "KeeperSettings", "LlmSettings", "LogSettings", "MediaSettings",
    "PaymentSettings", "RateLimitSettings", "RedisSettings", "Settings", "SimSettings",
    "SourceSettings", "SpeechSettings", "SubscriptionSettings", "WebhookSettings",
    "YouTubeSettings", "nest",
]

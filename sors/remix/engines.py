"""Remix engines: what turns a post's transcript and scenes into a remix for a niche.

`get_engine(settings)` picks the LLM engine when an OpenAI-compatible endpoint is configured
(`SORS_LLM_BASE_URL` and `SORS_LLM_MODEL`), the built-in offline engine otherwise. Both return a
validated `Remix` (`to_dict()` is the contract's `remix` object) or raise `RemixError`.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from sors.config import Settings, get_settings
from sors.remix.engine_llm import LLMRemixEngine
from sors.remix.engine_offline import ENGINE_NAME as OFFLINE_ENGINE_NAME
from sors.remix.engine_offline import OfflineRemixEngine
from sors.remix.schemas_remix import Remix, RemixError, RemixInput, ScriptSegment

__all__ = [
    "OFFLINE_ENGINE_NAME",
    "LLMRemixEngine",
    "OfflineRemixEngine",
    "Remix",
    "RemixEngine",
    "RemixError",
    "RemixInput",
    "ScriptSegment",
    "get_engine",
]


@runtime_checkable
class RemixEngine(Protocol):
    async def remix(self, inp: RemixInput) -> Remix: ...


def get_engine(settings: Settings | None = None) -> RemixEngine:
    settings = settings or get_settings()
    if settings.llm_base_url and settings.llm_model:
        return LLMRemixEngine(
            base_url=settings.llm_base_url,
            model=settings.llm_model,
            api_key=settings.llm_api_key,
            timeout=settings.llm_timeout,
        )
    return OfflineRemixEngine()

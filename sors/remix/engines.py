"""Remix engines: what turns a post's transcript and scenes into a remix for a niche.

`get_engine(settings)` picks the LLM engine when an OpenAI-compatible endpoint is configured
(`SORS_LLM_BASE_URL` and `SORS_LLM_MODEL`), the built-in offline engine otherwise. Both return a
validated `Remix` (`to_dict()` is the contract's `remix` object) or raise `RemixError`.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from sors.config import Settings
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


def get_engine(settings: Settings) -> RemixEngine:
    if settings.llm.base_url and settings.llm.model:
        return LLMRemixEngine(
            base_url=settings.llm.base_url,
            model=settings.llm.model,
            api_key=settings.llm.api_key,
            timeout=settings.llm.timeout,
        )
    return OfflineRemixEngine()

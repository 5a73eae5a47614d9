"""The summary phrased by a language model behind the `SORS_LLM_*` endpoint (the remix's).

The model gets the evidence as JSON and the offline summary, and answers one JSON object
`{"summary": "..."}`. It may phrase, never invent: a summary holding a number the evidence
does not hold is rejected, as is an unusable or failed answer, and the offline summary is
kept. `Phrased.engine` says which one the caller got and, if the model's was rejected, why.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

import openai
import structlog
from openai.types.chat import ChatCompletionMessageParam

from sors.analyses.summary import OFFLINE_ENGINE, numbers_check
from sors.config import Settings
from sors.remix.engine_llm import (
    NO_KEY,
    normalize_base_url,
    parse_json_object,
    redact_url,
    response_content,
)

log = structlog.get_logger(__name__)

SYSTEM = (
    "You explain to a social media strategist why a post did better or worse than its "
    "creator's usual. Use ONLY the facts in the evidence JSON. Every number you write must "
    "appear in the evidence. Do not add causes, numbers or advice the evidence does not "
    'support. Answer one JSON object: {"summary": "<at most 4 sentences>"}.'
)


@dataclass(frozen=True)
class Phrased:
    summary: str
    engine: str
    rejected: str | None = None  # why the model's summary was not used


def llm_configured(settings: Settings) -> bool:
    return bool(settings.llm.base_url and settings.llm.model)


async def phrase(settings: Settings, evidence: Mapping[str, object], offline: str) -> Phrased:
    """The model's summary when it is usable and every number checks; else `offline`."""
    if not llm_configured(settings):
        return Phrased(offline, OFFLINE_ENGINE)
    assert settings.llm.base_url and settings.llm.model
    messages: list[ChatCompletionMessageParam] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Evidence:\n" + json.dumps(evidence, default=str)
         + "\n\nA plain version to improve on:\n" + offline},
    ]
    try:
        async with openai.AsyncOpenAI(
            base_url=normalize_base_url(settings.llm.base_url),
            api_key=settings.llm.api_key or NO_KEY,
            timeout=settings.llm.timeout,
            max_retries=1,
        ) as client:
            response = await client.chat.completions.create(
                model=settings.llm.model, messages=messages,
                response_format={"type": "json_object"},
            )
    except openai.OpenAIError as exc:
        log.warning("LLM analysis summary failed at %s: %r",
                    redact_url(settings.llm.base_url), exc)
        return Phrased(offline, OFFLINE_ENGINE, "the language model could not be reached")
    text, served_by = response_content(response)
    try:
        data = parse_json_object(text)
    except ValueError:
        data = None
    summary = data.get("summary") if isinstance(data, dict) else None
    if not isinstance(summary, str) or not summary.strip():
        return Phrased(offline, OFFLINE_ENGINE, "the language model gave no usable summary")
    foreign = numbers_check(summary, evidence)
    if foreign:
        shown = ", ".join(f"{n:g}" for n in foreign[:5])
        log.warning("LLM analysis summary rejected: numbers not in the evidence: %s", shown)
        return Phrased(
            offline,
            OFFLINE_ENGINE,
            f"the model's summary held numbers not in the evidence: {shown}",
        )
    return Phrased(summary.strip(), served_by or settings.llm.model)

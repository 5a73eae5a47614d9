"""The optional language-model pass over comments the rules typed (`SORS_DEMAND_LLM_LABELS`
with an OpenAI-compatible endpoint, `SORS_LLM_*`: the remix's seam). The model reads a
numbered batch and answers one JSON object `{"labels": [...]}`; it may only choose a kind.
An answer of another length, a label outside the kinds, a failure or a timeout keeps the
rules' labels, comment by comment: the model can never invent a category, only pick one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import openai
import structlog
from openai.types.chat import ChatCompletionMessageParam

from sors.config import Settings
from sors.demand.models import KINDS
from sors.remix.engine_llm import NO_KEY, normalize_base_url, parse_json_object, redact_url

log = structlog.get_logger(__name__)

BATCH = 40
SYSTEM = (
    "You label comments on social media posts by what the commenter asks for. For each "
    "numbered comment choose exactly one label from: " + ", ".join(KINDS) + ". question: "
    "asks something; request: asks the creator to make or share something; part_two: asks "
    "for a next part or more of the same; confusion: did not understand; objection: "
    "disagrees or complains; praise: compliments; other: anything else. Answer one JSON "
    'object: {"labels": ["<label of comment 1>", "<label of comment 2>", ...]} with '
    "exactly one label per comment, in order."
)


def enabled(settings: Settings) -> bool:
    return bool(settings.demand.llm_labels and settings.llm.base_url and settings.llm.model)


async def _batch(client: openai.AsyncOpenAI, model: str,
                 texts: Sequence[str]) -> list[str | None]:
    numbered = "\n".join(f"{i}. {json.dumps(t[:500], ensure_ascii=False)}"
                         for i, t in enumerate(texts, start=1))
    messages: list[ChatCompletionMessageParam] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"{len(texts)} comments:\n{numbered}"},
    ]
    response = await client.chat.completions.create(
        model=model, messages=messages, response_format={"type": "json_object"})
    content = response.choices[0].message.content if response.choices else None
    try:
        data = parse_json_object(content)
    except ValueError:
        return [None] * len(texts)
    labels = data.get("labels") if isinstance(data, dict) else None
    if not isinstance(labels, list) or len(labels) != len(texts):
        return [None] * len(texts)
    return [lab if isinstance(lab, str) and lab in KINDS else None for lab in labels]


async def llm_labels(settings: Settings, texts: Sequence[str]) -> list[str | None]:
    """A kind per text as the model chose it, None where it chose nothing usable."""
    if not texts or not enabled(settings):
        return [None] * len(texts)
    assert settings.llm.base_url and settings.llm.model
    out: list[str | None] = []
    try:
        async with openai.AsyncOpenAI(
            base_url=normalize_base_url(settings.llm.base_url),
            api_key=settings.llm.api_key or NO_KEY, timeout=settings.llm.timeout,
            max_retries=1,
        ) as client:
            for start in range(0, len(texts), BATCH):
                out.extend(await _batch(client, settings.llm.model,
                                        texts[start:start + BATCH]))
    except openai.OpenAIError as exc:
        log.warning("LLM comment labels failed at %s: %r", redact_url(settings.llm.base_url),
                    exc)
    return out + [None] * (len(texts) - len(out))

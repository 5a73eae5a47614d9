"""Remixes written by a language model behind any OpenAI-compatible endpoint.

OpenAI, Ollama, vLLM and llama.cpp's server all speak `POST {base}/chat/completions`. The model
is asked for one JSON object (`response_format={"type": "json_object"}`), which is parsed and
validated with the same `Remix` model the offline engine fills. An unusable answer is sent back
with what was wrong, up to three attempts in all; transport failures are `llm_unavailable`.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import openai
import structlog
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam
from pydantic import ValidationError

from sors.remix.prompts import build_messages, retry_message
from sors.remix.schemas_remix import Remix, RemixDraft, RemixError, RemixInput

log = structlog.get_logger(__name__)

# Servers without a key (Ollama, llama.cpp) ignore it; it keeps the SDK from reading
# OPENAI_API_KEY from the environment and sending a real key to some other host.
NO_KEY = "sk-no-key-required"
_FENCE = re.compile(r"^\s*```(?:json|JSON)?\s*(.*?)\s*```\s*$", re.S)


class _BadOutput(ValueError):
    pass


def normalize_base_url(base_url: str) -> str:
    """`http://host:11434` → `http://host:11434/v1`: a bare host means the usual /v1 prefix."""
    parts = urlsplit(base_url.strip())
    if parts.path in ("", "/"):
        parts = parts._replace(path="/v1")
    return urlunsplit(parts).rstrip("/")


def redact_url(url: str) -> str:
    """The URL without user:password, for logs."""
    parts = urlsplit(url)
    if parts.username or parts.password:
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
        parts = parts._replace(netloc=netloc)
    return urlunsplit(parts)


def parse_json_object(text: str | None) -> Any:
    """The JSON in a model's answer (fenced, or wrapped in a sentence, too); a ValueError
    (`_BadOutput`) saying what is wrong when there is none."""
    if not text or not text.strip():
        raise _BadOutput("the answer was empty")
    body = text.strip()
    if fenced := _FENCE.match(body):
        body = fenced.group(1)
    try:
        data: Any = json.loads(body)
    except json.JSONDecodeError as exc:
        # Some models wrap the object in a sentence despite the instructions.
        start, end = body.find("{"), body.rfind("}")
        try:
            data = json.loads(body[start : end + 1]) if 0 <= start < end else None
        except json.JSONDecodeError:
            data = None
        if data is None:
            raise _BadOutput(
                f"the answer is not valid JSON ({exc.msg} at char {exc.pos})"
            ) from None
    return data


def parse_draft(text: str | None) -> RemixDraft:
    """The model's answer as a validated draft, or `_BadOutput` saying what is wrong."""
    data = parse_json_object(text)
    if isinstance(data, dict) and isinstance(data.get("remix"), dict) and "script" not in data:
        data = data["remix"]
    if not isinstance(data, dict):
        raise _BadOutput("the answer must be one JSON object")
    script = data.get("script")
    if isinstance(script, list):
        # Numbering is bookkeeping, not content: fix it rather than spend an attempt on it.
        data["script"] = [
            {**seg, "segment": i + 1} if isinstance(seg, dict) else seg
            for i, seg in enumerate(script)
        ]
    try:
        return RemixDraft.model_validate(data)
    except ValidationError as exc:
        problems = [
            f"{'.'.join(str(p) for p in err['loc']) or 'answer'}: {err['msg']}"
            for err in exc.errors()[:6]
        ]
        raise _BadOutput("; ".join(problems)) from None


class LLMRemixEngine:
    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 60.0,
        *,
        max_retries: int = 2,
        max_attempts: int = 3,
        deadline: float | None = None,
    ) -> None:
        """`timeout` bounds each HTTP request; the SDK retries connection errors, 408/429 and
        5xx up to `max_retries` times; `max_attempts` counts answers that could not be used;
        `deadline` (default 4 × timeout) bounds the whole remix."""
        self.base_url = normalize_base_url(base_url)
        self.model = model
        self._api_key = api_key or NO_KEY
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_attempts = max_attempts
        self.deadline = deadline if deadline is not None else 4 * timeout

    def __repr__(self) -> str:  # no key, ever
        return f"LLMRemixEngine(base_url={redact_url(self.base_url)!r}, model={self.model!r})"

    async def remix(self, inp: RemixInput) -> Remix:
        if not inp.has_material():
            raise RemixError(
                "remix_input_insufficient",
                "The post has no transcript, on-screen text or caption to adapt.",
            )
        try:
            async with asyncio.timeout(self.deadline):
                return await self._remix(inp)
        except TimeoutError:
            raise RemixError(
                "llm_unavailable",
                f"The language model did not finish the remix within {self.deadline:.0f} s.",
            ) from None

    async def _remix(self, inp: RemixInput) -> Remix:
        messages = build_messages(inp)
        json_mode = True
        attempt = 0
        problem = ""
        async with openai.AsyncOpenAI(
            base_url=self.base_url,
            api_key=self._api_key,
            timeout=self.timeout,
            max_retries=self.max_retries,
        ) as client:
            while attempt < self.max_attempts:
                try:
                    response = await self._ask(client, messages, json_mode)
                except openai.BadRequestError as exc:
                    if json_mode and "response_format" in str(exc).lower():
                        # An older server that rejects JSON mode: the prompt alone asks for JSON.
                        log.info("LLM server rejected response_format; retrying without it")
                        json_mode = False
                        continue
                    raise self._unavailable(exc) from None
                except openai.OpenAIError as exc:
                    raise self._unavailable(exc) from None
                attempt += 1
                text, served_by = response_content(response)
                try:
                    draft = parse_draft(text)
                except _BadOutput as exc:
                    problem = str(exc)
                    log.warning(
                        "LLM remix answer unusable (attempt %d/%d, model %s at %s): %s",
                        attempt,
                        self.max_attempts,
                        self.model,
                        redact_url(self.base_url),
                        problem,
                    )
                    messages = [*messages, *retry_message(text, problem)]
                    continue
                return Remix.from_draft(draft, engine=served_by or self.model)
        raise RemixError(
            "llm_bad_output",
            f"The language model gave no usable remix in {self.max_attempts} attempts "
            f"(last problem: {problem[:300]}).",
        )

    async def _ask(
        self, client: openai.AsyncOpenAI, messages: list[ChatCompletionMessageParam],
        json_mode: bool,
    ) -> ChatCompletion:
        return await client.chat.completions.create(
            model=self.model, messages=messages,
            response_format={"type": "json_object"} if json_mode else openai.omit,
        )

    def _unavailable(self, exc: Exception) -> RemixError:
        where = redact_url(self.base_url)
        log.warning("LLM endpoint %s failed for model %s: %r", where, self.model, exc)
        if isinstance(exc, openai.APITimeoutError):
            message = f"The language model did not answer within {self.timeout:.0f} s."
        elif isinstance(exc, openai.APIConnectionError):
            message = "The language model service could not be reached."
        elif isinstance(exc, openai.APIStatusError):
            message = f"The language model service answered HTTP {exc.status_code}."
        else:
            message = "The language model service failed."
        return RemixError("llm_unavailable", message)


def response_content(response: Any) -> tuple[str | None, str | None]:
    """The first choice's text and the model name the server reports, tolerating the odd
    shapes that 'compatible' servers return."""
    choices = getattr(response, "choices", None) or []
    message = getattr(choices[0], "message", None) if choices else None
    text = getattr(message, "content", None) if message is not None else None
    model = getattr(response, "model", None)
    return (text if isinstance(text, str) else None), (
        model.strip() if isinstance(model, str) and model.strip() else None
    )

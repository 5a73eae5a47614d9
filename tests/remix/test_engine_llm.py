"""The LLM remix engine over real HTTP (an OpenAI-compatible server on loopback)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from sors.remix.engines import (
    LLMRemixEngine,
    RemixError,
)

from .fake_openai import FakeOpenAI, closed_port_url, http_error, json_answer, text_answer
from .support import (
    assert_contract_shape,
    pasta,
    valid_remix_json,
)


def llm(server_url: str, **kw: Any) -> LLMRemixEngine:
    kw.setdefault("max_retries", 0)
    return LLMRemixEngine(server_url, "fake-llm", api_key="sk-test-secret", timeout=5, **kw)


async def test_llm_valid_answer(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue(json_answer(valid_remix_json(), model="fake-llm-2026-05-01"))
    remix = await llm(fake_llm.base_url).remix(pasta(tone="playful"))
    assert_contract_shape(remix)
    assert remix.engine == "fake-llm-2026-05-01"  # what the server says answered
    assert remix.script[1].voiceover == "Grind finer and dose 18 grams."

    [request] = fake_llm.requests
    assert request.path == "/v1/chat/completions"
    assert request.body["model"] == "fake-llm"
    assert request.body["response_format"] == {"type": "json_object"}
    assert request.headers["authorization"] == "Bearer sk-test-secret"
    prompt = request.prompt
    assert "Most people drown their pasta in water." in prompt  # the transcript
    assert "home espresso for busy parents" in prompt  # the niche
    assert "playful" in prompt
    assert "STOP boiling pasta like this" in prompt  # the scenes
    assert '"onScreenText"' in prompt  # the schema
    assert request.body["messages"][0]["role"] == "system"


async def test_llm_engine_name_falls_back_to_configured_model(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue(json_answer(valid_remix_json(), model=" "))
    remix = await llm(fake_llm.base_url).remix(pasta())
    assert remix.engine == "fake-llm"


async def test_llm_retries_malformed_answers(fake_llm: FakeOpenAI) -> None:
    missing_script = valid_remix_json()
    del missing_script["script"]
    fake_llm.queue(
        text_answer("Sure! Here is your remix: title = espresso"),
        json_answer(missing_script),
        json_answer(valid_remix_json()),
    )
    remix = await llm(fake_llm.base_url).remix(pasta())
    assert remix.title == "Stop brewing your espresso like this"
    assert len(fake_llm.requests) == 3
    # the retries tell the model what was wrong with its last answer
    third = fake_llm.requests[2].body["messages"]
    assert third[-1]["role"] == "user" and "script" in third[-1]["content"]
    assert "not valid JSON" in fake_llm.requests[1].body["messages"][-1]["content"]


async def test_llm_bad_output_after_three_attempts(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue(
        text_answer("not json at all"),
        json_answer({"title": "only a title"}),
        text_answer("{broken"),
        json_answer(valid_remix_json()),  # never asked for
    )
    with pytest.raises(RemixError) as err:
        await llm(fake_llm.base_url).remix(pasta())
    assert err.value.code == "llm_bad_output"
    assert not err.value.retryable
    assert len(fake_llm.requests) == 3


async def test_llm_http_500_is_unavailable(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue(http_error(500), http_error(502), http_error(503))
    with pytest.raises(RemixError) as err:
        await llm(fake_llm.base_url, max_retries=2).remix(pasta())
    assert err.value.code == "llm_unavailable"
    assert err.value.retryable
    assert "HTTP 503" in err.value.message
    assert len(fake_llm.requests) == 3  # the SDK's own retries, then we give up
    assert "sk-test-secret" not in str(err.value)


async def test_llm_transient_500_is_retried_by_the_sdk(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue(http_error(500), json_answer(valid_remix_json()))
    remix = await llm(fake_llm.base_url, max_retries=1).remix(pasta())
    assert remix.engine == "fake-llm"
    assert len(fake_llm.requests) == 2


async def test_llm_server_down_is_unavailable() -> None:
    with pytest.raises(RemixError) as err:
        await llm(closed_port_url()).remix(pasta())
    assert err.value.code == "llm_unavailable"


async def test_llm_timeout_is_unavailable(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue(json_answer(valid_remix_json(), delay=1.5))
    engine = LLMRemixEngine(fake_llm.base_url, "fake-llm", timeout=0.3, max_retries=0)
    started = time.monotonic()
    with pytest.raises(RemixError) as err:
        await engine.remix(pasta())
    assert err.value.code == "llm_unavailable"
    assert time.monotonic() - started < 1.4


async def test_llm_without_json_mode_support(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue(
        http_error(400, "response_format json_object is not supported"),
        json_answer(valid_remix_json()),
    )
    remix = await llm(fake_llm.base_url).remix(pasta())
    assert remix.title
    first, second = fake_llm.requests
    assert "response_format" in first.body and "response_format" not in second.body


async def test_llm_without_material_makes_no_request(fake_llm: FakeOpenAI) -> None:
    inp = pasta(caption="", transcript_text="", transcript_segments=[], scenes=[])
    with pytest.raises(RemixError) as err:
        await llm(fake_llm.base_url).remix(inp)
    assert err.value.code == "remix_input_insufficient"
    assert fake_llm.requests == []


async def test_llm_without_key_sends_no_environment_key(
    fake_llm: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
    fake_llm.queue(json_answer(valid_remix_json()))
    await LLMRemixEngine(fake_llm.base_url, "llama3.2", max_retries=0).remix(pasta())
    assert "sk-from-the-environment" not in fake_llm.requests[0].headers["authorization"]


# -- selection -------------------------------------------------------------------------------

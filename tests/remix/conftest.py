from __future__ import annotations

from collections.abc import Iterator

import pytest

from .fake_openai import FakeOpenAI


@pytest.fixture(scope="session")
def _fake_openai_server() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def fake_llm(_fake_openai_server: FakeOpenAI) -> Iterator[FakeOpenAI]:
    """The fake OpenAI-compatible server, with an empty answer queue and request log."""
    _fake_openai_server.reset()
    yield _fake_openai_server
    _fake_openai_server.reset()

"""The fake OpenAI-compatible server for the language-model labels."""

from tests.remix.conftest import _fake_openai_server, fake_llm  # noqa: F401

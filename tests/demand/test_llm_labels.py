"""The optional language-model pass: it may only choose one of the kinds; an answer outside
them, of the wrong length, or a failure keeps the rules' labels. Noise is never sent."""

from __future__ import annotations

from datetime import UTC, datetime

from sors.config import Settings
from sors.demand.service import label_comments
from sors.platforms.base import CommentSnapshot
from tests.remix.fake_openai import FakeOpenAI, http_error, json_answer

AT = datetime(2026, 9, 1, tzinfo=UTC)
TEXTS = ["I need the exact recipe", "Love this! 😍", "My sister does this every day", "😍😍"]


def comments() -> list[CommentSnapshot]:
    return [CommentSnapshot(platform="tiktok", platform_post_id="7", platform_comment_id=str(i),
                            text=t, author_handle=f"a{i}", likes=0, replies=0,
                            published_at=AT) for i, t in enumerate(TEXTS)]


def settings(fake: FakeOpenAI) -> Settings:
    return Settings(demand_llm_labels=True, llm_base_url=fake.base_url, llm_model="fake-llm",
                    llm_api_key="sk-test")


async def test_the_model_chooses_among_the_kinds_and_nothing_else(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue(json_answer({"labels": ["question", "invented_kind", "request"]}))
    out = await label_comments(settings(fake_llm), comments())
    assert [(x.kind, x.noise, x.by) for x in out] == [
        ("question", None, "llm"),  # no "?" nor an opener: the rules said other
        ("praise", None, "rules"),  # a label outside the kinds keeps the rules' one
        ("request", None, "llm"),
        ("other", "emoji_only", "rules"),  # noise is not sent to the model
    ]
    [request] = fake_llm.requests
    assert "😍😍" not in str(request.body) and "I need the exact recipe" in str(request.body)


async def test_a_failing_or_misshapen_answer_keeps_the_rules(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue(json_answer({"labels": ["question"]}))  # one label for three comments
    short = await label_comments(settings(fake_llm), comments())
    fake_llm.queue(http_error(500), http_error(500), http_error(500))
    failed = await label_comments(settings(fake_llm), comments())
    for out in (short, failed):
        assert [(x.kind, x.by) for x in out] == [
            ("other", "rules"), ("praise", "rules"), ("other", "rules"), ("other", "rules")]

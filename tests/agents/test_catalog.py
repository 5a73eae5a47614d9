"""The tool list follows the price list with no other edit: a new skill is a new tool, a
new price is in its description, and a skill whose route does not exist is refused loudly."""

from __future__ import annotations

import dataclasses

import pytest

from sors.agents.catalog import build_tools
from sors.billing.pricing import Skill, get_pricing


@pytest.fixture(scope="module")
def documents(app) -> tuple[list[Skill], dict]:
    return list(get_pricing().skills.values()), app.openapi()


def _skill(key: str, path: str, credits: int) -> Skill:
    return Skill(key=key, title=key.title(), method="GET", path=path, credits=credits, extra={})


def test_a_new_skill_is_a_new_tool(documents: tuple[list[Skill], dict]) -> None:
    skills, openapi = [*documents[0], _skill("peek_balance", "/api/v1/credits", 3)], documents[1]
    tools = {t.name: t for t in build_tools(skills, openapi)}
    assert list(tools) == [s.key for s in skills]
    new = tools["peek_balance"]
    assert new.read_only and new.idempotent and not new.destructive  # a GET, by default
    assert "Cost: 3 credits" in new.description and "dryRun" in new.input_schema["properties"]


def test_prices_and_schemas_come_from_the_documents(documents: tuple[list[Skill], dict]) -> None:
    openapi = documents[1]
    skills = [dataclasses.replace(s, credits=7) if s.key == "niche_trends" else s
              for s in documents[0]]
    tools = {t.name: t for t in build_tools(skills, openapi)}
    assert "Cost: 7 credits" in tools["niche_trends"].description
    search = tools["search_outliers"].input_schema["properties"]
    body = openapi["paths"]["/api/v1/search/content"]["post"]["requestBody"]
    assert body  # the body model's fields are the tool's arguments
    assert {"query", "page", "pageSize", "sortBy", "dryRun"} <= set(search)
    post = tools["get_post"]
    assert post.path_params == ("postId",) and post.input_schema["required"] == ["postId"]
    assert "$ref" not in str(post.input_schema).replace("#/$defs/", "")


def test_a_skill_without_a_route_is_an_error(documents: tuple[list[Skill], dict]) -> None:
    skills = [*documents[0], _skill("ghost", "/api/v1/nowhere", 0)]
    with pytest.raises(LookupError, match="ghost"):
        build_tools(skills, documents[1])

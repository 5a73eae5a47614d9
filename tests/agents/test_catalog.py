"""The tool list follows the price list with no other edit: a new skill is a new tool, a
new price is in its description, and a skill whose route does not exist is refused loudly."""

from __future__ import annotations

import copy

import pytest

from sors.agents.catalog import build_tools
from sors.billing.pricing import get_pricing
from sors.billing.schemas import price_list


@pytest.fixture(scope="module")
def documents(app) -> tuple[dict, dict]:
    return price_list(get_pricing(), keyless_checkout_url=None).model_dump(), app.openapi()


def test_a_new_skill_is_a_new_tool(documents: tuple[dict, dict]) -> None:
    price_list, openapi = copy.deepcopy(documents[0]), documents[1]
    price_list["skills"].append({"key": "peek_balance", "title": "Peek", "method": "GET",
                                 "path": "/api/v1/credits", "credits": 3})
    tools = {t.name: t for t in build_tools(price_list, openapi)}
    assert list(tools) == [s["key"] for s in price_list["skills"]]
    new = tools["peek_balance"]
    assert new.read_only and new.idempotent and not new.destructive  # a GET, by default
    assert "Cost: 3 credits" in new.description and "dryRun" in new.input_schema["properties"]


def test_prices_and_schemas_come_from_the_documents(documents: tuple[dict, dict]) -> None:
    price_list, openapi = copy.deepcopy(documents[0]), documents[1]
    for skill in price_list["skills"]:
        if skill["key"] == "niche_trends":
            skill["credits"] = 7
    tools = {t.name: t for t in build_tools(price_list, openapi)}
    assert "Cost: 7 credits" in tools["niche_trends"].description
    search = tools["search_outliers"].input_schema["properties"]
    body = openapi["paths"]["/api/v1/search/content"]["post"]["requestBody"]
    assert body  # the body model's fields are the tool's arguments
    assert {"query", "page", "pageSize", "sortBy", "dryRun"} <= set(search)
    post = tools["get_post"]
    assert post.path_params == ("postId",) and post.input_schema["required"] == ["postId"]
    assert "$ref" not in str(post.input_schema).replace("#/$defs/", "")


def test_a_skill_without_a_route_is_an_error(documents: tuple[dict, dict]) -> None:
    price_list = copy.deepcopy(documents[0])
    price_list["skills"].append({"key": "ghost", "title": "Ghost", "method": "GET",
                                 "path": "/api/v1/nowhere", "credits": 0})
    with pytest.raises(LookupError, match="ghost"):
        build_tools(price_list, documents[1])

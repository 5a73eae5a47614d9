"""Validation errors name the field the caller really got wrong."""

from __future__ import annotations

import pytest

from tests.factories import auth, create_account

pytestmark = pytest.mark.usefixtures("clean")


async def test_a_missing_body_names_the_fields_it_must_hold(client, db) -> None:
    _, key = await create_account(db, credits=100)
    for body in (None, {}):
        r = await client.post("/api/v1/crawls", json=body, headers=auth(key))
        assert r.status_code == 422, r.text
        fields = {e["field"] for e in r.json()["errors"]}
        assert fields == {"url", "platform", "handle"}  # a url, or platform and handle
        assert r.headers["x-credits-charged"] == "0"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"handles": [{"platform": "tiktok", "handle": "solo"}]}, "handles"),
        ({"handles": []}, "handles"),
        ({"profileIds": ["prf_a"]}, "profileIds"),
        ({}, "profileIds"),
    ],
)
async def test_compare_names_the_field_that_was_sent(client, db, body, field) -> None:
    _, key = await create_account(db, credits=100)
    r = await client.post("/api/v1/profiles/compare", json=body, headers=auth(key))
    assert r.status_code == 422, r.text
    assert [e["field"] for e in r.json()["errors"]] == [field]

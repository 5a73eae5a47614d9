"""The document states the request rules JSON Schema can state: for the operations whose
rules lived only in prose, bodies at and across each rule's boundary are checked against the
served document and sent to the API — a body the document admits is never a 422, and one it
refuses always is. (Rules no schema can hold stay in the descriptions and in
tests/api/schemathesis.toml: page × pageSize within the first 10,000 matches, a webhook
host's DNS, handles sent as a JSON string, a missing body, DELETE /tracking's "query or
body", and names that must agree with each other.)"""

from __future__ import annotations

from typing import Any

import httpx
from jsonschema import Draft202012Validator

from sors.catalog.records.fields import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, RESULT_WINDOW
from tests.factories import auth, create_account

TT_POST = "https://www.tiktok.com/@nobody.here/video/7301234567890123456"
TT_PROFILE = "https://www.tiktok.com/@nobody.here"


def _validator(doc: dict[str, Any], path: str, method: str) -> Draft202012Validator:
    body = doc["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"]
    return Draft202012Validator({**body, "components": doc["components"]})


def _last_page(size: int | None) -> int:
    eff = DEFAULT_PAGE_SIZE if size is None else max(1, min(MAX_PAGE_SIZE, size))
    return -(-RESULT_WINDOW // eff)


def _cases() -> dict[tuple[str, str], list[dict[str, Any]]]:
    # The document bounds `page` by the window (page × pageSize is in the description): the
    # last page of every size is admitted, and a page past the window at any size refused.
    paged = [{"page": 0}, {"page": RESULT_WINDOW + 1, "pageSize": 1}]
    for size in (None, 0, 1, 3, 7, 20, 33, 99, 100, 101, 1000):
        paged.append({"page": _last_page(size)} | ({} if size is None else {"pageSize": size}))
    target = [
        {}, {"url": None, "postId": None}, {"url": "  ", "postId": "\u3000"},
        {"url": "", "postId": "pst_missing"}, {"url": f" {TT_POST} "}, {"postId": "pst_missing"},
        {"url": "https://example.com/video/1"}, {"url": "https://vm.tiktok.com/ZMabc/"},
        {"url": None, "postId": "pst_missing"},
    ]
    profile = [
        {}, {"profileId": None, "platform": None, "handle": None, "url": None},
        {"platform": "tiktok"}, {"handle": "nobody.here"},
        {"platform": "tiktok", "handle": "nobody.here"}, {"platform": "tiktok", "handle": "x"},
        {"url": TT_PROFILE}, {"url": TT_POST}, {"url": "https://example.com/@a"},
        {"profileId": "prf_missing"}, {"profileId": "prf_missing", "platform": None},
    ]
    h = {"platform": "tiktok", "handle": "nobody.here"}
    compare = [
        {}, {"profileIds": ["prf_a"]}, {"profileIds": ["prf_a", "prf_b"]}, {"handles": [h]},
        {"handles": [h, h]}, {"profileIds": ["prf_a"], "handles": [h]},
        {"profileIds": ["prf_a", "prf_b", "prf_c"], "handles": [h, h]},
        {"profileIds": ["prf_a", "prf_b", "prf_c"], "handles": [h, h, h]},
        {"profileIds": ["prf_a"] * 5}, {"profileIds": None, "handles": [h, h]},
        {"profileIds": [], "handles": []},
    ]
    return {
        ("/api/v1/search/content", "post"): paged,
        ("/api/v1/search/profiles", "post"): paged,
        ("/api/v1/transcriptions", "post"): target,
        ("/api/v1/posts/media", "post"): target,
        ("/api/v1/remixes", "post"): [{**b, "targetNiche": "home baking"} for b in target],
        ("/api/v1/tracking", "post"): profile,
        ("/api/v1/alerts", "post"): [{**b, "email": "me@example.com"} for b in profile],
        ("/api/v1/crawls", "post"): [
            {}, {"url": None, "platform": None, "handle": None}, {"platform": "tiktok"},
            {"url": TT_PROFILE}, {"url": "https://example.com/@a"}, {"handle": "nobody.here"},
            {"platform": "tiktok", "handle": "nobody.here", "url": None},
        ],
        ("/api/v1/profiles/compare", "post"): compare,
        ("/api/v1/posts/resolve", "post"): [
            {"url": TT_POST}, {"url": "https://example.com/x"}, {"url": TT_PROFILE},
            {"url": "https://youtu.be/dQw4w9WgXcQ"}],
        ("/api/v1/webhooks", "post"): [{"url": "ftp://hooks.example.com/x"},
                                       {"url": "https://user@hooks.example.com/"}],
    }


async def test_a_body_the_document_admits_is_never_a_422_and_one_it_refuses_always_is(
    app, db, client: httpx.AsyncClient
) -> None:
    _, key = await create_account(db, credits=100_000)
    h = auth(key)
    doc = (await client.get("/api/v1/openapi.json")).json()
    wrong = []
    checked = {True: 0, False: 0}
    for (path, method), bodies in _cases().items():
        v = _validator(doc, path, method)
        await app.state.limiter.reset()
        for body in bodies:
            admitted = v.is_valid(body)
            r = await client.request(method.upper(), path, json=body, headers=h)
            checked[admitted] += 1
            if admitted == (r.status_code == 422):
                wrong.append((path, body, "admitted" if admitted else "refused", r.status_code,
                              r.text[:200]))
    assert not wrong, "\n".join(map(str, wrong))
    assert checked[True] > 40 and checked[False] > 40, checked

"""The document is served from memory outside the rate limit; the docs page loads offline."""

from __future__ import annotations

import httpx


async def test_document_is_cached_and_not_rate_limited(client: httpx.AsyncClient, app) -> None:
    per_ip = app.state.limiter.per_ip.amount
    first = await client.get("/api/v1/openapi.json")
    assert first.status_code == 200
    assert first.json()["openapi"].startswith("3.")
    etag = first.headers["etag"]
    for _ in range(per_ip + 5):
        r = await client.get("/api/v1/openapi.json", headers={"if-none-match": etag})
        assert r.status_code == 304
    assert (await client.get("/api/v1/openapi.json")).content == first.content
    # The key-less API endpoints still count against the same client's limit.
    assert (await client.get("/api/v1/pricing")).status_code == 200


async def test_docs_page_uses_local_assets(client: httpx.AsyncClient) -> None:
    r = await client.get("/docs")
    assert r.status_code == 200
    html = r.text
    assert "/docs/assets/swagger-ui-bundle.js" in html and "/docs/assets/swagger-ui.css" in html
    assert "cdn" not in html.lower() and "https://" not in html.replace("https://fastapi", "")
    js = await client.get("/docs/assets/swagger-ui-bundle.js")
    assert js.status_code == 200 and len(js.content) > 100_000
    css = await client.get("/docs/assets/swagger-ui.css")
    assert css.status_code == 200

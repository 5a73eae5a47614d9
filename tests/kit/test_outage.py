from __future__ import annotations

import httpx

from sors.app import create_app
from sors.kit.db import Database, make_engine


async def test_database_down_is_503_with_retry_after(settings) -> None:
    down_url = "postgresql+psycopg://nobody@127.0.0.1:9/nothing"  # port 9: nothing listens
    s = settings.with_values(**{"database_url": down_url, "platform_source": "live"})
    db = Database(make_engine(s, down_url))
    app = create_app(s, db=db)
    try:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            r = await c.get("/api/v1/credits", headers={"x-api-key": "sors_" + "a" * 43})
        assert r.status_code == 503
        assert r.json()["code"] == "unavailable"
        assert r.headers["retry-after"] == "5"
        assert "Traceback" not in r.text
    finally:
        await db.dispose()

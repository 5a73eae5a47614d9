"""An analysis quotes what the post's comments ask for most: its largest cluster of asking
comments, the quote verbatim, in `audienceDemand` and at the end of the summary."""

from __future__ import annotations

import pytest

from sors.analyses.breakdown import breakdown
from sors.demand.service import top_demand
from tests.demand.world import NOW, seed_niche
from tests.factories.world import rows

pytestmark = pytest.mark.usefixtures("clean")

ASKING = ["question", "request", "part_two", "confusion"]


async def test_an_analysis_quotes_the_top_demand_of_the_post_s_comments(db, settings) -> None:
    await seed_niche(db, settings)
    [most] = await rows(db, "SELECT post_id, count(*) AS n FROM comments WHERE noise IS NULL "
                            "AND kind = ANY(:k) GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1", k=ASKING)
    asked = await rows(db, "SELECT text, kind, coalesce(likes, 0) AS likes FROM comments "
                           "WHERE post_id = :p AND noise IS NULL AND kind = ANY(:k)",
                       p=most["post_id"], k=ASKING)
    [quiet] = await rows(db, "SELECT p.id FROM posts p WHERE NOT EXISTS (SELECT 1 FROM "
                             "comments c WHERE c.post_id = p.id) ORDER BY p.id LIMIT 1")
    async with db.transaction() as s:
        top = await top_demand(s, most["post_id"], settings)
        assert top is not None
        analysis = await breakdown(s, most["post_id"], now=NOW, demand=top)
        assert await top_demand(s, quiet["id"], settings) is None
        plain = await breakdown(s, quiet["id"], now=NOW)
    assert top.quote in {a["text"] for a in asked}  # verbatim
    assert 1 <= top.count <= len(asked) and top.likes <= sum(a["likes"] for a in asked)
    # Its largest cluster: at least as many comments as the most repeated text.
    repeated = max(sum(1 for a in asked if a["text"] == t) for t in {a["text"] for a in asked})
    assert top.count >= repeated
    assert analysis.audienceDemand is not None
    assert (analysis.audienceDemand.comments, analysis.audienceDemand.quote) == (
        top.count, top.quote)
    assert analysis.summary.endswith(f"“{top.quote}”.")
    assert plain.audienceDemand is None and ": “" not in plain.summary

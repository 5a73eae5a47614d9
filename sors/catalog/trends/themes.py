"""Niche trends by meaning: the time frame's outliers grouped into themes (posts that say the
same thing in other words), each named by its most telling words.

Grouping is greedy and deterministic: the posts, best score first, each join the theme whose
centre is nearest if it is within `JOIN_SIMILARITY`, else start one; a theme's centre is the
mean of its posts' vectors. A theme's name is the three words most over-represented in its
captions against all the posts grouped (a smoothed log ratio), so words every post of the
niche uses ("recipe", "tiktok") name nothing.
"""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter
from collections.abc import Sequence

import numpy as np
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.records.schemas import FlatPost
from sors.catalog.trends.schemas import Theme

POSTS = 300  # the best-scoring posts of the time frame that are grouped
JOIN_SIMILARITY = 0.4  # a static model: short captions on one subject sit at 0.45-0.6
MIN_THEME = 3
THEMES = 10
_WORD = re.compile(r"[^\W\d_]{3,}")
_STOP = frozenset("""the and for with you your this that from are was were have has had not
but all any can our out how what when why who its it's into about just like get got more most
very than then them they their there here one two three day days time make made using use
my me we i a an of to in on at by is be as or so do did does no yes new now up""".split())

_VECTORS = text("""
SELECT e.post_id, e.embedding::text FROM post_embeddings e
 WHERE e.post_id = ANY(CAST(:ids AS text[])) AND e.model = :model
""")


def _words(caption: str | None) -> list[str]:
    return [w for w in _WORD.findall((caption or "").lower()) if w not in _STOP]


def _name(members: Sequence[str | None], background: Counter[str], total: int) -> list[str]:
    inside = Counter(w for caption in members for w in set(_words(caption)))
    n = len(members)

    def telling(word: str) -> float:
        share_in = (inside[word] + 0.5) / (n + 1)
        share_all = (background[word] + 0.5) / (total + 1)
        return math.log(share_in / share_all) * inside[word]

    ranked = sorted((w for w in inside if inside[w] >= 2), key=lambda w: (-telling(w), w))
    return ranked[:3]


def group(vectors: np.ndarray) -> list[list[int]]:
    """Indexes of the rows (in the order given: best first) grouped by nearness."""
    centres: list[np.ndarray] = []
    members: list[list[int]] = []
    for i, v in enumerate(vectors):
        if centres:
            sims = np.array([float(c @ v) for c in centres])
            best = int(sims.argmax())
            if sims[best] >= JOIN_SIMILARITY:
                members[best].append(i)
                centre = vectors[members[best]].mean(axis=0)
                centres[best] = centre / (np.linalg.norm(centre) or 1.0)
                continue
        centres.append(v.copy())
        members.append([i])
    return members


async def themes(
    session: AsyncSession, posts: Sequence[FlatPost], *, model: str, window: str,
) -> list[Theme]:
    """Themes among `posts` (best first)."""
    result = await session.execute(_VECTORS, {"ids": [p.id for p in posts], "model": model})
    found: dict[str, str] = {post_id: vector for post_id, vector in result.all()}
    kept = [p for p in posts if p.id in found]
    if not kept:
        return []
    vectors = np.array([np.array(found[p.id].strip("[]").split(","), dtype=np.float32)
                        for p in kept])
    background = Counter(w for p in kept for w in set(_words(p.caption)))
    out = []
    for idx in group(vectors):
        if len(idx) < MIN_THEME:
            continue
        members = [kept[i] for i in idx]
        scores = [s for p in members if (s := getattr(p.outlier_scores, window)) is not None]
        words = _name([p.caption for p in members], background, len(kept))
        out.append(Theme(
            name=" · ".join(words) if words else None,
            words=words,
            postCount=len(members),
            medianOutlierScore=round(statistics.median(scores), 4) if scores else None,
            posts=members[:5],
        ))
    out.sort(key=lambda t: (-t.postCount, -(t.medianOutlierScore or 0)))
    return out[:THEMES]

"""Comments kept (from imports, fetch jobs, the demo world), typed and embedded; a fetch
requested (fetch_comments); the top demand of one post (for its analysis).

Keeping is idempotent: one row per platform comment id, rewritten only when something
about it changed, so the same file imported twice changes nothing.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.models import Post
from sors.catalog.vectors.embeddings import embedder_or_none
from sors.config import Settings
from sors.demand import classify, labelling, vectors
from sors.demand import repository as repo
from sors.demand.clusters import cluster
from sors.demand.models import DEMAND_KINDS
from sors.jobs import service as jobs
from sors.kit.ids import new_id
from sors.platforms.base import CommentSnapshot
from sors.queue.models import Job

BATCH = 2000
EMBED_BATCH = 512
SKIPPED_NO_POST = "the catalog has no such post: import or crawl the post first"


@dataclass
class KeepSummary:
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: int = 0
    reasons: dict[str, int] = field(default_factory=dict)

    def add(self, other: KeepSummary) -> None:
        self.new += other.new
        self.updated += other.updated
        self.unchanged += other.unchanged
        self.skipped += other.skipped
        for reason, n in other.reasons.items():
            self.reasons[reason] = self.reasons.get(reason, 0) + n


@dataclass(frozen=True, slots=True)
class Labelled:
    comment: CommentSnapshot
    kind: str
    noise: str | None
    by: str  # "rules" or "llm"


def rules_labels(comments: Sequence[CommentSnapshot]) -> list[Labelled]:
    """Each comment (once per platform id) typed by the rules, long comments copied word for
    word by several accounts set apart as spam."""
    by_id: dict[tuple[str, str], CommentSnapshot] = {}
    for c in comments:  # a comment listed twice (as a reply too): the copy that says whose
        key = (c.platform, c.platform_comment_id)
        if key not in by_id or by_id[key].parent_id is None:
            by_id[key] = c
    unique = list(by_id.values())
    labels = [classify.label(c.text) for c in unique]
    copied = classify.copied([c.text for c in unique], [c.author_handle for c in unique])
    return [Labelled(c, lab.kind, "spam" if i in copied and lab.noise is None else lab.noise,
                     "rules") for i, (c, lab) in enumerate(zip(unique, labels, strict=True))]


async def label_comments(settings: Settings,
                         comments: Sequence[CommentSnapshot]) -> list[Labelled]:
    """The rules' labels and, when configured, the language model's choice of kind (run
    before any transaction opens: the model may take seconds)."""
    out = rules_labels(comments)
    if labelling.enabled(settings):
        asking = [i for i, x in enumerate(out) if x.noise is None]
        chosen = await labelling.llm_labels(settings, [out[i].comment.text for i in asking])
        for i, kind in zip(asking, chosen, strict=True):
            if kind is not None:
                out[i] = Labelled(out[i].comment, kind, None, "llm")
    return out


async def keep(session: AsyncSession, labelled: Sequence[Labelled], *, now: datetime,
               settings: Settings | None, source: str, embed: bool = True) -> KeepSummary:
    """Write labelled comments in the caller's transaction; those of posts the catalog does
    not hold are skipped. `embed`: their texts' vectors now (else the scheduler's
    `demand.embed_comments` makes them)."""
    out = KeepSummary()
    posts = await repo.posts_of(session, sorted(
        {(x.comment.platform, x.comment.platform_post_id) for x in labelled}))
    rows = [x for x in labelled if (x.comment.platform, x.comment.platform_post_id) in posts]
    out.skipped = len(labelled) - len(rows)
    if out.skipped:
        out.reasons[SKIPPED_NO_POST] = out.skipped
    for start in range(0, len(rows), BATCH):
        batch = rows[start:start + BATCH]
        new, updated = await repo.upsert(session, _columns(batch, posts, now, source), now)
        out.new += new
        out.updated += updated
    out.unchanged = len(rows) - out.new - out.updated
    if embed and settings is not None:
        await embed_texts(session, settings, {
            vectors.text_hash(x.comment.text): x.comment.text for x in rows if x.noise is None})
    return out


async def keep_comments(session: AsyncSession, comments: Sequence[CommentSnapshot], *,
                        now: datetime, settings: Settings, source: str,
                        embed: bool = True) -> KeepSummary:
    return await keep(session, await label_comments(settings, comments), now=now,
                      settings=settings, source=source, embed=embed)


def _columns(batch: Sequence[Labelled], posts: dict[tuple[str, str], tuple[str, str]],
             now: datetime, source: str) -> dict[str, list[object]]:
    cols: dict[str, list[object]] = {k: [] for k in (
        "id", "post", "profile", "platform", "cid", "parent", "text", "author", "likes",
        "replies", "published", "known", "lang", "kind", "noise", "by", "hash", "source")}
    for x in batch:
        c = x.comment
        post_id, profile_id = posts[(c.platform, c.platform_post_id)]
        for name, value in (
            ("id", new_id("cmt")), ("post", post_id), ("profile", profile_id),
            ("platform", c.platform), ("cid", c.platform_comment_id),
            ("parent", c.parent_id), ("text", c.text), ("author", c.author_handle),
            ("likes", c.likes), ("replies", c.replies), ("published", c.published_at or now),
            ("known", c.published_at is not None),
            ("lang", c.language or classify.language_of(c.text)), ("kind", x.kind),
            ("noise", x.noise), ("by", x.by), ("hash", vectors.text_hash(c.text)),
            ("source", source),
        ):
            cols[name].append(value)
    return cols


async def embed_texts(session: AsyncSession, settings: Settings,
                      texts: dict[bytes, str]) -> int:
    """Vectors for the texts (by hash) that have none under the current model; how many
    were written (0 where no model can be loaded)."""
    model = embedder_or_none(settings) if texts else None
    if model is None:
        return 0
    have = await repo.hashes_with_vectors(session, model.key, list(texts))
    todo = [h for h in texts if h not in have]
    written = 0
    for start in range(0, len(todo), EMBED_BATCH):
        chunk = todo[start:start + EMBED_BATCH]
        blobs = vectors.embed(model, [texts[h] for h in chunk])
        made = {h: b for h, b in zip(chunk, blobs, strict=True) if b is not None}
        await repo.write_vectors(session, model.key, made)
        written += len(made)
    return written


async def embed_pending(session: AsyncSession, settings: Settings, *, limit: int) -> int:
    """Up to `limit` distinct comment texts without a vector of the current model (kept
    without one, or before a model change) get one."""
    model = embedder_or_none(settings)
    if model is None or limit <= 0:
        return 0
    return await embed_texts(session, settings, dict(
        await repo.unembedded(session, model.key, limit)))


# ---- fetch_comments ------------------------------------------------------------------------


def units(limit: int) -> int:
    """How many priced units of 100 comments a fetch of `limit` is."""
    return max(1, math.ceil(limit / 100))


async def request_fetch(session: AsyncSession, *, account_id: str, post: Post, limit: int,
                        credits: int, now: datetime, max_attempts: int) -> tuple[Job, bool]:
    """One open fetch per account, post and limit: a repeat while it runs is the same job."""
    return await jobs.enqueue(
        session, type="comments", account_id=account_id,
        payload={"postId": post.id, "limit": limit}, credits=credits,
        dedupe_key=f"comments:{account_id}:{post.id}:{limit}", now=now,
        max_attempts=max_attempts)


# ---- one post's demand (the analysis quotes it) --------------------------------------------


@dataclass(frozen=True, slots=True)
class TopDemand:
    count: int  # comments asking it
    likes: int
    kind: str  # the commonest kind among them
    quote: str  # its most central comment, verbatim


async def top_demand(session: AsyncSession, post_id: str,
                     settings: Settings) -> TopDemand | None:
    """What the post's comments ask for most: its largest cluster of asking comments (by
    identical text where no model can be loaded); None when none asks anything."""
    model = embedder_or_none(settings)
    rows = await repo.post_texts(session, post_id, model.key if model else "", DEMAND_KINDS)
    if not rows:
        return None
    by_text: dict[bytes, list[dict[str, Any]]] = {}
    for r in rows:
        by_text.setdefault(bytes(r["text_hash"]), []).append(r)
    groups = list(by_text.values())
    groups.sort(key=lambda g: (-len(g), -sum(x["likes"] for x in g)))
    members, label = [groups[0]], groups[0][0]
    if model is not None and all(g[0]["vector"] is not None for g in groups):
        blobs = [bytes(g[0]["vector"]) for g in groups]
        found = cluster(vectors.matrix(blobs, model.dims), [len(g) for g in groups],
                        [sum(x["likes"] for x in g) for g in groups],
                        vectors.cluster_similarity(settings, model.key))[0]
        members = [groups[i] for i in found.members]
        label = groups[found.label][0]
    comments = [x for g in members for x in g]
    kinds = Counter(str(x["kind"]) for x in comments)
    return TopDemand(count=len(comments), likes=sum(int(x["likes"]) for x in comments),
                     kind=kinds.most_common(1)[0][0], quote=str(label["text"]))

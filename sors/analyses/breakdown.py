"""The breakdown of a post, computed (the `analysis` job calls `breakdown`): its features,
the group it is compared with (the creator's own posts, else the niche's), the findings and
the offline summary. Every claim is computed here from the catalog's records; a language
model may only phrase the summary (engine_llm).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import Literal

from sqlalchemy.ext.asyncio import AsyncSession

from sors.analyses import cohort, findings
from sors.analyses import repository as repo
from sors.analyses.baseline import Peer
from sors.analyses.features import PostFeatures, PostMaterial, post_features
from sors.analyses.findings import Cohort
from sors.analyses.sentences import comparison_text
from sors.analyses.summary import offline_summary, with_anomaly_note, with_evidence
from sors.catalog.models import Post, TranscriptRecord, VisualAnalysisRecord
from sors.catalog.records.analysis_schemas import Analysis, AnalysisComparison, AudienceDemand
from sors.demand.service import TopDemand
from sors.enrichment.analysis import Scene, TranscriptSegment
from sors.platforms import taxonomy

Basis = Literal["media", "metadata"]


def material(
    post: Post, transcript: TranscriptRecord | None, visual: VisualAnalysisRecord | None
) -> PostMaterial:
    return PostMaterial(
        content_type=post.content_type,
        caption=post.caption or "",
        published_at=post.published_at,
        duration_seconds=post.duration_seconds,
        hashtags=list(post.hashtags or []),
        transcript_source=transcript.source if transcript else None,
        segments=[TranscriptSegment.from_json(s) for s in transcript.segments or []]
        if transcript else [],
        scenes=[Scene.from_json(s) for s in visual.scenes or []] if visual else None,
        has_media=transcript is not None and visual is not None,
        views=post.views,
        likes=post.likes,
        comments=post.comments,
        shares=post.shares,
    )


def score_of(post: Post) -> float | None:
    return post.score_three_months if post.score_three_months is not None else post.score_all_time


def features_row(post_id: str, feats: PostFeatures) -> repo.FeaturesRow:
    hook = feats.hook if feats.hook is not None and feats.hook.text else None
    return repo.FeaturesRow(post_id, feats.to_json(), hook.type if hook else None,
                            hook.text if hook else None)


def peer(row: repo.PostRow) -> Peer:
    post = row[0]
    f = post_features(material(*row))
    return Peer(post.id, f.values, score_of(post), f.measured, post.profile_id)


async def refresh_creator_features(
    session: AsyncSession, profile_id: str
) -> tuple[dict[str, PostFeatures], dict[str, Post], dict[str, VisualAnalysisRecord | None]]:
    """Compute and store the features of every live post of the creator; returns them by
    post id with the posts and their scene analyses."""
    rows = await repo.creator_posts(session, profile_id)
    feats = {p.id: post_features(material(p, t, v)) for p, t, v in rows}
    await repo.save_features(session, [features_row(pid, f) for pid, f in feats.items()])
    return feats, {p.id: p for p, _, _ in rows}, {p.id: v for p, _, v in rows}


def creator_cohort(peers: list[Peer]) -> Cohort:
    outliers = sum(1 for p in peers if p.outlier)
    c = AnalysisComparison(group="creator", text="", postCount=len(peers), outlierCount=outliers,
                   creatorCount=1)
    return Cohort("creator", peers, c.model_copy(update={"text": comparison_text(c)}))


async def niche_cohort(session: AsyncSession, post: Post, now: datetime) -> Cohort | None:
    """Posts of similar creators at a similar age (sors.analyses.cohort), the narrowest
    niche that holds enough of them; None when the creator has no niche."""
    category = await repo.first_category(session, post.profile_id)
    if category is None:
        return None
    followers = await repo.follower_count(session, post.profile_id)
    age = max(0.0, (now - post.published_at).total_seconds() / 86400)
    found: tuple[cohort.NicheStep, list[Peer]] | None = None
    for step in cohort.steps(category, followers, age):
        youngest, oldest = (timedelta(days=d) for d in step.age_days)
        rows = await repo.niche_posts(
            session, platform=post.platform, category_ids=taxonomy.descendants(step.category_id),
            exclude_profile=post.profile_id, followers=step.followers,
            published=(now - oldest, now - youngest), limit=cohort.NICHE_LIMIT,
        )
        peers = [peer(r) for r in rows]
        found = (step, peers)
        if (len(peers) >= cohort.MIN_NICHE_POSTS
                and sum(1 for p in peers if p.outlier) >= cohort.MIN_NICHE_OUTLIERS):
            break
    if found is None or not found[1]:
        return None
    step, peers = found
    c = AnalysisComparison(
        group="niche", text="", postCount=len(peers),
        outlierCount=sum(1 for p in peers if p.outlier),
        creatorCount=len({p.profile_id for p in peers}), categoryId=step.category_id,
        followerRange=list(step.followers) if step.followers else None,
        ageDays=list(step.age_days),
    )
    return Cohort("niche", peers, c.model_copy(update={"text": comparison_text(c)}))


def _because(c: Cohort, reason: str) -> Cohort:
    return replace(c, comparison=c.comparison.model_copy(update={"reason": reason}))


def _why_niche(creator: Cohort) -> str:
    others = creator.comparison.outlierCount
    if others == 0:
        return "the creator has no other outlier to compare with"
    if others == 1:
        return "the creator has only 1 other outlier"
    ordinary = creator.comparison.postCount - others
    return f"the creator has only {ordinary} other {'post' if ordinary == 1 else 'posts'}"


async def breakdown(
    session: AsyncSession, post_id: str, *, now: datetime, basis: Basis = "media",
    basis_note: str | None = None, demand: TopDemand | None = None,
) -> Analysis:
    """The post's breakdown, its summary the offline one (the job may have it phrased),
    quoting what its comments ask for most (`demand`) when they ask anything; its `engine`
    and `analysedAt` are the stored record's, not set here."""
    row = await repo.post_with_media(session, post_id)
    assert row is not None
    post = row[0]
    feats, posts, visuals = await refresh_creator_features(session, post.profile_id)
    mine = feats.get(post_id) or post_features(material(*row))  # a deleted post too
    # A peer flagged `engagement_anomaly` (views likely bought) is neither an outlier to
    # learn from nor an ordinary post: left out.
    peers = [Peer(pid, f.values, score_of(posts[pid]), f.measured, post.profile_id)
             for pid, f in feats.items()
             if pid != post_id and not posts[pid].engagement_anomaly]
    creator = creator_cohort(peers)
    niche = await niche_cohort(session, post, now)
    primary, other = creator, niche
    if not creator.enough:
        why = _why_niche(creator)
        if niche is not None and niche.enough:
            primary, other = _because(niche, why), creator
        else:
            primary = _because(creator, f"{why}, and no niche of similar creators holds "
                                        "enough posts to compare with")
    compared = findings.compare(mine.values, mine.measured, primary, other)
    visual = visuals.get(post_id) or row[2]
    scenes = [Scene.from_json(s) for s in visual.scenes or []] if visual else None
    stood_out = [with_evidence(s, mine.hook, scenes) for s in compared.standouts]
    score = score_of(post)
    outliers = sum(1 for p in peers if p.outlier)
    analysis = Analysis(
        score=None if score is None else round(score, 2),
        peerCount=len(peers),
        analysedPeerCount=sum(1 for p in peers if p.measured.get("hookType") == "media"),
        outlierCount=outliers,
        hook=mine.hook,
        features=compared.rows,
        stoodOut=stood_out,
        summary="",
        engine=None,
        summaryNote=None,
        analysedAt=None,
        basis=basis,
        basisNote=basis_note,
        comparison=primary.comparison,
        findings=compared.findings,
        audienceDemand=AudienceDemand(comments=demand.count, likes=demand.likes,
                                      kind=demand.kind, quote=demand.quote) if demand else None,
    )
    summary = offline_summary(analysis, compared.thin, primary.enough, compared.brief)
    if demand is not None:
        summary += demand_sentence(demand)
    summary = with_anomaly_note(summary, post.engagement_anomaly)
    return analysis.model_copy(update={"summary": summary})


_ASKED = {"question": "asked", "request": "asked for", "part_two": "asked for a part 2",
          "confusion": "were confused"}


def demand_sentence(d: TopDemand) -> str:
    """ "14 comments asked: “How many grams of flour?”" """
    many = "comment" if d.count == 1 else "comments"
    return f" {d.count} {many} {_ASKED.get(d.kind, 'asked')}: “{d.quote}”."

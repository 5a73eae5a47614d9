"""What each tool says to a model: what it returns, when to use it, what to call next, and
what it does to the world (the MCP annotations).

Costs are never written here: `describe` reads them from the price list, so a description
cannot quote a stale price. A skill without a guide (a new one) still becomes a tool, with
hints that follow its HTTP method.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict


@dataclass(frozen=True)
class Guide:
    text: str
    next: str = ""
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False
    cost_note: str = ""

    def describe(self, credits: int, *, dry_run: bool, paged_by: str | None) -> str:
        parts = [self.text.strip()]
        if credits > 0:
            cost = (f"Cost: {credits} credit{'' if credits == 1 else 's'}, "
                    "charged only when the call succeeds.")
            if self.cost_note:
                cost += " " + self.cost_note
            parts.append(cost)
        else:
            parts.append("Cost: free (0 credits).")
        if dry_run:
            parts.append("Pass dryRun=true to get a quote (credits, balance after) without "
                         "spending or changing anything.")
        if paged_by == "page":
            parts.append("Results come one page at a time (pageSize 1-100, default 20); when "
                         "hasMore is true, call again with page+1.")
        elif paged_by == "before":
            parts.append("When hasMore is true, call again with before=nextBefore.")
        if self.next:
            parts.append("Next: " + self.next.strip())
        return "\n".join(parts)


class _Hints(TypedDict, total=False):
    read_only: bool
    destructive: bool
    idempotent: bool


_READ: _Hints = {"read_only": True, "idempotent": True}

GUIDES: dict[str, Guide] = {
    "search_outliers": Guide(
        "Find TikTok, Instagram and YouTube posts that overperform their own creator's "
        "baseline (outlier score = views / the creator's average views over a window). "
        "Filter by query words, platforms, contentTypes, minOutlierScore, minViews, "
        "maxFollowers, timeFrame, profileIds (one creator's posts); sort by outlier_score "
        "(default), views, likes, engagement_rate or recent. Each record says how far its "
        "score can be trusted: score_baselines[window].quality is thin (too few posts or "
        "too short a history: not an outlier) or ok, and engagement_anomaly is set on a post "
        "whose likes and comments per view are far below its creator's usual (likely "
        "promoted: not an idea to copy). baselineQuality: ok and excludeEngagementAnomalies: "
        "true keep only fair outliers. Returns a page of flattened post records.",
        next="get_post for a post's transcript and details, remix_post to adapt one, "
             "get_profile for its creator.", **_READ),
    "search_profiles": Guide(
        "Find tracked creator profiles by handle or display name (partial match), platform "
        "and niche (categoryId from list_categories), largest audience first. Returns a page "
        "of profile records.",
        next="get_profile for averages and recent posts; crawl_profile if a creator is missing.",
        **_READ),
    "get_post": Guide(
        "One post by its pst_ id: stats, outlier scores per window, its creator, and the "
        "transcript / visual analysis when they exist.",
        next="request_transcript if has_transcript is false; remix_post to adapt it.", **_READ),
    "get_post_history": Guide(
        "A post's stat history by its pst_ id: every crawl's views, likes, comments and "
        "shares with the post's age, views per hour between crawls, and its views at 1 h, "
        "24 h and 7 days (interpolated between two crawls, marked so; null with a reason "
        "where no crawls bracket that age).",
        next="get_post for its scores; search_outliers with sortBy velocity for fast movers.",
        **_READ),
    "get_profile": Guide(
        "One creator profile by its prf_ id: follower count, average views / likes / "
        "engagement per window, niches, and its 12 most recent posts.",
        next="search_outliers to see its best posts; track_profile to monitor it.", **_READ),
    "resolve_post_url": Guide(
        "Turn a TikTok, Instagram or YouTube post URL into our post id (found: true, postId), "
        "or say why it is unknown (post_not_tracked, profile_not_tracked, unknown_owner). "
        "Short links are refused.",
        next="get_post with postId; crawl_profile when the profile is not tracked.", **_READ),
    "request_transcript": Guide(
        "Ask for a post's transcript (speech, or on-screen text for slideshows), by postId "
        "or url. Returns status completed when it exists, else pending with a jobRef.",
        next="get_job_status with jobRef until completed, then get_post.",
        idempotent=True,
        cost_note="0 when the transcript exists or this account already has one pending."),
    "crawl_profile": Guide(
        "Start tracking a public creator (platform + handle) so its posts become searchable. "
        "Returns completed at once with profileId when already tracked, else pending with "
        "a jobRef; a profile that does not exist fails the job and is refunded.",
        next="get_job_status with jobRef; then search_outliers or get_profile.",
        cost_note="1 credit when the profile is already tracked; refunded if the job fails."),
    "get_job_status": Guide(
        "Status of an asynchronous job (crawl, transcription, media, remix, analysis) by jobRef: "
        "pending, processing, completed (with result) or failed (with error).",
        next="poll every few seconds while pending or processing.", **_READ),
    "get_credit_balance": Guide(
        "This account's credit balance, in credits and US dollars.",
        next="create_topup_link when it runs low.", **_READ),
    "get_credit_ledger": Guide(
        "This account's credit ledger (charges, refunds, top-ups, grants), newest first, each "
        "with skill, amount and balance after.", **_READ),
    "compare_profiles": Guide(
        "Compare 2-5 creators side by side (handles: [{platform, handle}] or profileIds): "
        "their records plus rankings by followers and engagement; unknown ones are listed "
        "in notFound.",
        next="crawl_profile for notFound creators.", **_READ),
    "find_breakouts": Guide(
        "Ideas breaking out across a niche: hashtags, recurring two-word caption phrases, "
        "formats (platform:content_type) and sounds for which at least minCreators (default "
        "3) distinct creators of one category each had a post scoring at least minScore "
        "(default 3) within timeFrame (default one_month), ranked by lift: how much more "
        "common the idea is among those outliers than among the same creators' ordinary "
        "posts (both shares shown); platform-wide filler (fyp, tiktok:video) is left out. "
        "Each with its creator count, median score, first and latest post and each "
        "creator's best post as evidence.",
        next="get_post on an evidence post; remix_post to adapt the idea.", **_READ),
    "find_rising_posts": Guide(
        "Young posts (default: published in the last 72 h, maxAgeHours up to 168) running "
        "above their creator's own p90 (and 3× their median) at the same age and still "
        "accelerating: breakouts "
        "while they are young. One per creator, each with its projection (percentile now, "
        "multiple of the creator's median now, projected views at 7 and 30 days with a "
        "range, projected three-month outlier score, confidence) and the creator's curve.",
        next="get_post on a post; create_viral_alert with trigger rising on its creator.",
        **_READ),
    "find_trending_sounds": Guide(
        "Sounds (the audio posts use) that two or more creators used, fastest growing first "
        "over timeFrame (one_week, two_weeks, one_month) against the window before, in a "
        "niche (categoryId, a top-level category) or all: each with its lifecycle stage "
        "(emerging, rising, peaking, fading), uses, creators, views, outlier share (how often "
        "its posts beat their creator's average) and example posts.",
        next="get_sound on a sound; get_post on an example post.", **_READ),
    "get_sound": Guide(
        "One sound by soundId: title, author, original or not, its stage, posts, creators, "
        "views, uses per day, niches, its first creators and its best posts.",
        next="get_post on a post; get_profile on an early adopter.", **_READ),
    "find_trending_hashtags": Guide(
        "Hashtags by growth in posts over timeFrame against the window before, in a niche "
        "or all, with creators then and before and lift: how much more often their posts "
        "are outliers than the niche's. Boilerplate (fyp, photomode) is left out.",
        next="search_outliers with the hashtag; find_breakouts for the niche.", **_READ),
    "niche_trends": Guide(
        "What works in a niche right now: the best outlier posts for a query, which content "
        "types win per platform, and the top creators.",
        next="get_post or remix_post on a post; get_profile on a creator.", **_READ),
    "download_post_media": Guide(
        "Signed, expiring download links for a post's video / images / thumbnail (status "
        "ready), or a fetch job (status pending with jobRef) when they are not stored yet.",
        next="get_job_status with jobRef, then call this again (free within 24 h).",
        idempotent=True,
        cost_note="Refunded if the fetch fails; the first call after a completed fetch is 0."),
    "remix_post": Guide(
        "Adapt a post to another niche (targetNiche, optional tone): a job that writes a "
        "title, description, timed script and checklist. Transcript and scene analysis are "
        "made first when missing, at no extra charge.",
        next="get_remix_result with jobRef until completed.",
        cost_note="Refunded if the job fails."),
    "get_remix_result": Guide(
        "The remix written by a remix_post job (title, description, script, checklist), or "
        "its status while it is still running.",
        next="poll every few seconds while pending or processing.", **_READ),
    "analyze_post": Guide(
        "Why a post worked: a job that compares the post (postId or url) with its creator's "
        "own posts, or with its niche's (similar creators, similar followers, posts of a "
        "similar age) when the creator has too few outliers — hook (speech, on-screen text "
        "and caption reconciled, its type and source), pacing, format, caption, publish "
        "time, engagement — each feature only among posts measured the same way. Answers "
        "findings as sentences with their numbers (features at or beyond the 10th/90th "
        "percentile, and what the post shares with the outliers), what stood out with its "
        "evidence and timestamps, and a summary. Transcript and scene analysis (of the post "
        "and up to 8 of the creator's posts) are included in the price.",
        next="get_analysis_result with jobRef until completed; remix_post keeps what stood "
        "out.",
        cost_note="Refunded if the job fails. A post whose media cannot be fetched is "
        "analysed from its metadata (`basis: metadata`) at the lower price get_pricing "
        "lists; the difference is refunded."),
    "get_analysis_result": Guide(
        "The breakdown written by an analyze_post job (findings as sentences, features with "
        "their baseline, what stood out, summary, the comparison it was made against), or "
        "its status while it is still running. The breakdown also shows on get_post.",
        next="poll every few seconds while pending or processing.", **_READ),
    "search_hooks": Guide(
        "The hook library: opening lines of analysed posts with their type (how_to, "
        "number_list, question, challenge, story, reveal, contrarian, bold_claim, "
        "direct_address, other), filtered by words, hookTypes, platforms, categoryId, "
        "minOutlierScore and timeFrame; best score or newest first.",
        next="get_post on a hook's post; analyze_post to see why it worked.", **_READ),
    "fetch_comments": Guide(
        "Fetch a post's comments (postId or url; limit 1-1000, default 100) through the "
        "configured source, keep them typed as demand (question, request, part_two, "
        "confusion, objection, praise, other; spam and emoji-only set apart) for "
        "search_demand. A job; the same open fetch asked again is returned free.",
        next="get_job_status with jobRef until completed; then search_demand with postIds.",
        cost_note="Charged per started 100 of limit; refunded if the source fails."),
    "search_demand": Guide(
        "What the audience asks for: the questions and requests in the comments of a niche "
        "(categoryId), a creator (profileId), a board (boardId) or posts (postIds) over a "
        "timeFrame, clustered by meaning. Each cluster: label (its most central comment, "
        "verbatim), size, likes, posts, quotes, and covered (whether a post in the catalog "
        "already answers it, with the nearest posts). sortBy size, likes or unanswered "
        "(the gaps first).",
        next="get_post on a nearest post; fetch_comments to add a post's comments.",
        **_READ),
    "create_topup_link": Guide(
        "A payment link for a credit pack (packId from get_pricing). A human opens it and "
        "pays; the credits land within seconds.",
        next="give the checkoutUrl to the user; get_credit_balance afterwards."),
    "report_issue": Guide(
        "Send feedback or a bug report (message 10-2000 characters) to the operators.",
        next="nothing; the operators answer by email when wantsUpdate is true."),
    "get_trending_outliers": Guide(
        "Up to 50 posts of the last 7 days that beat their creator's baseline the most, one "
        "per creator, across all three platforms.",
        next="get_post for details.", **_READ),
    "get_pricing": Guide(
        "The price list: every skill's cost in credits, credit packs and plans.",
        next="create_topup_link with a packId.", **_READ),
    "list_categories": Guide(
        "The niche taxonomy as a flat list (id, name, parentId, profileCount).",
        next="search_profiles with categoryId.", **_READ),
    "track_profile": Guide(
        "Monitor a profile already in the database (profileId from crawl_profile or "
        "search_profiles): it is re-crawled on a schedule and its new posts appear in "
        "get_tracked_updates. Each scheduled refresh costs credits (see get_pricing, "
        "recurring charges).",
        next="get_tracked_updates later.", idempotent=True),
    "untrack_profile": Guide(
        "Stop monitoring a profile (profileId). Its posts stay searchable.",
        destructive=True, idempotent=True),
    "list_tracked_profiles": Guide(
        "The profiles this account monitors, with cadence and next refresh.", **_READ),
    "get_tracked_updates": Guide(
        "Posts newly stored for this account's monitored profiles since the last call, "
        "oldest first (limit 1-100). Each call advances the cursor past what it returned.",
        next="call again while hasMore is true."),
    "create_viral_alert": Guide(
        "Email a digest when a creator's new post beats minOutlierScore within postAgeDays "
        "(created or updated per account + profile + email).",
        next="list_viral_alerts.", idempotent=True),
    "list_viral_alerts": Guide("This account's viral alerts and their state.", **_READ),
    "delete_viral_alert": Guide(
        "End a viral alert by alertId.", destructive=True, idempotent=True),
    "create_board": Guide(
        "Create a named board (1-100 characters) to keep posts and profiles on, with notes; "
        "returns its brd_ id.",
        next="add_board_item with boardId and a postId or profileId."),
    "list_boards": Guide(
        "This account's boards, newest first, with item counts and share links.",
        next="get_board for a board's items.", **_READ),
    "get_board": Guide(
        "One board by boardId: its items, the last added first, each with its note and the "
        "post's or profile's current record (scores, views, followers).",
        next="get_post or get_profile on an item; share_board to show it to someone.", **_READ),
    "delete_board": Guide(
        "Delete a board by boardId with its items and share link.", destructive=True),
    "add_board_item": Guide(
        "Save a post (postId) or a profile (profileId) to a board, with an optional note. "
        "Saving one that is already there answers that item (created false) and replaces "
        "its note when one is sent.",
        next="get_board to see the board.", idempotent=True),
    "delete_board_item": Guide(
        "Remove an item (itemId from get_board) from a board.", destructive=True),
    "share_board": Guide(
        "A read-only link to a board that anyone can open without a key (JSON, or CSV with "
        "Accept: text/csv), until unshare_board revokes it.",
        next="give the url to the person; unshare_board to revoke it.", idempotent=True),
    "unshare_board": Guide(
        "Revoke a board's share link; it stops working at once.",
        destructive=True, idempotent=True),
}


def guide_for(skill: str, method: str) -> Guide:
    guide = GUIDES.get(skill)
    if guide is not None:
        return guide
    method = method.upper()
    return Guide(
        f"The {skill.replace('_', ' ')} operation ({method}).",
        read_only=method == "GET",
        destructive=method == "DELETE",
        idempotent=method in ("GET", "PUT", "DELETE"),
    )

"""A post: metrics, window scores, growth chart, enrichments, and the paid jobs it offers."""

from __future__ import annotations

from datetime import datetime

from fastapi import Request
from fastapi.responses import Response

from sors.console import apicall, charts
from sors.console.apicall import ApiResult
from sors.console.auth import check_csrf
from sors.console.render import outcome, page, redirect
from sors.console.routing import User, console_router

router = console_router()

ACTIONS = {
    # form action → (API path, skill, what the page calls it)
    "transcript": ("/api/v1/transcriptions", "request_transcript", "Transcript"),
    "media": ("/api/v1/posts/media", "download_post_media", "Media download"),
    "remix": ("/api/v1/remixes", "remix_post", "Remix"),
    "analysis": ("/api/v1/analyses", "analyze_post", "Analysis"),
}


def segment_anchor(post: dict, second: float) -> str | None:
    """The id of the transcript line spoken at `second` (the last one starting by then), so
    the breakdown's timestamps link to what was said."""
    segments = (post.get("transcript") or {}).get("segments") or []
    found = None
    for i, seg in enumerate(segments):
        if seg["start"] <= second + 0.01:
            found = f"seg-{i}"
    return found


@router.get("/posts/{post_id}")
async def post_page(request: Request, user: User, post_id: str, job: str | None = None,
                    chart: str | None = None):
    result = await apicall.call(request, user.principal, "GET", f"/api/v1/posts/{post_id}")
    if not result.ok:
        return page(request, "error.html.j2", status=result.status, title="Post",
                    message=(result.problem or {}).get("detail"), result=result)
    post = result.data
    history = svg = None
    if chart:  # the history is its own paid call (get_post_history): only when asked
        history = await apicall.call(request, user.principal, "GET",
                                     f"/api/v1/posts/{post['id']}/history")
        if history.ok:
            svg = charts.growth_chart([
                (datetime.fromisoformat(s["crawledAt"].replace("Z", "+00:00")), s["views"])
                for s in history.data["snapshots"] if s["views"] is not None
            ])
    charged, balance = ApiResult.total_charged(result, history)
    return page(request, "post.html.j2", title=post.get("caption") or post["id"], post=post,
                result=result, history=history, chart=svg, charged=charged, balance=balance,
                job=job, actions=ACTIONS, segment_anchor=segment_anchor)


@router.post("/posts/{post_id}/{action}")
async def post_action(request: Request, user: User, post_id: str, action: str) -> Response:
    form = await check_csrf(request, user)
    if action not in ACTIONS:
        return page(request, "error.html.j2", status=404, title="Not found",
                    message="No such action.")
    path, _skill, label = ACTIONS[action]
    body: dict[str, str] = {"postId": post_id}
    if action == "remix":
        body["targetNiche"] = form.get("targetNiche", "")
        if form.get("tone", "").strip():
            body["tone"] = form["tone"]
    result = await apicall.call(
        request, user.principal, "POST", path, json=body,
        idempotency_key=_idempotency(form),
    )
    target = f"/app/posts/{post_id}"
    data = result.data if result.ok else {}
    if data.get("jobRef"):
        target += f"?job={data['jobRef']}"
    status = data.get("status", "refused")
    return redirect(request, target + "#actions", outcome(f"{label}: {status}", result))


def _idempotency(form: dict[str, str]) -> str | None:
    # Each rendered form carries a fresh token: a double-click replays, it never pays twice.
    token = form.get("form_id", "")
    return f"console-{token}" if 8 <= len(token) <= 64 else None


@router.get("/jobs/{job_ref}")
async def job_panel(request: Request, user: User, job_ref: str) -> Response:
    result = await apicall.call(request, user.principal, "GET", f"/api/v1/jobs/{job_ref}")
    remix = None
    if result.ok and result.data["type"] == "remix" and result.data["status"] == "completed":
        remix = await apicall.call(request, user.principal, "GET", f"/api/v1/remixes/{job_ref}")
    template = "_job.html.j2" if request.headers.get("hx-request") else "job.html.j2"
    return page(request, template, title="Job", job=result.data if result.ok else None,
                result=result, remix=remix.data if remix is not None and remix.ok else None,
                job_ref=job_ref)

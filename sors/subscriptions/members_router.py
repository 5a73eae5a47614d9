"""Members over HTTP: /api/v1/members (free; not skills, so not MCP tools: the workspace is
its owner's business, like keys) and the invitation's accept page (/members/accept)."""

from __future__ import annotations

from html import escape
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import Field, field_validator
from sqlalchemy.ext.asyncio import AsyncSession

from sors.accounts import service as accounts
from sors.config import Settings
from sors.email import messages, outbox
from sors.email.addresses import normalize_email
from sors.kit import clock
from sors.kit.principal import Principal, current_principal
from sors.kit.problems import problems
from sors.kit.responses import JSONResponse
from sors.kit.routing import RequestContext, SorsRoute, context_of, get_context, get_session
from sors.kit.schemas import RequestModel, ResponseModel
from sors.payments.router import page
from sors.subscriptions import members
from sors.subscriptions.limits import PLAN_LIMIT_NOTE

Session = Annotated[AsyncSession, Depends(get_session)]
Caller = Annotated[Principal, Depends(current_principal)]
Ctx = Annotated[RequestContext, Depends(get_context)]


class InviteIn(RequestModel):
    email: Annotated[
        str,
        Field(min_length=3, max_length=320, json_schema_extra={"format": "email"},
              examples=["ana@example.com"]),
    ]
    role: Literal["owner", "member", "viewer"] = "member"

    @field_validator("email")
    @classmethod
    def _email(cls, v: str) -> str:
        return normalize_email(v)


class MemberOut(ResponseModel):
    memberId: str
    email: str
    role: Literal["owner", "member", "viewer"]
    status: Literal["invited", "active", "removed"]
    invitedAt: str
    acceptedAt: str | None


class Invited(MemberOut):
    inviteUrl: str = Field(description="The signed link (also emailed), valid seven days")


class MemberList(ResponseModel):
    results: list[MemberOut]


class MemberRemoved(MemberOut):
    keysRevoked: int = Field(description="The member's keys, revoked with the membership")


api = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["members"])


@api.get(
    "/members", summary="The workspace's members", operation_id="list_members",
    description="Invited and active members (the owner's own keys belong to no member). Free.",
    response_model=MemberList, responses=problems(),
)
async def list_members(session: Session, caller: Caller) -> JSONResponse:
    rows = await members.list_members(session, caller.account_id)
    return JSONResponse({"results": [members.member_out(m) for m in rows]})


@api.post(
    "/members", summary="Invite a member by email (owner only)", operation_id="invite_member",
    description="Emails a signed link valid seven days; accepting it gives the member their "
    "own API key on the shared balance. Roles: `member` (the API and console, paid calls "
    "included), `viewer` (reads free resources only), `owner`. The plan's `seats` count the "
    "owner and every invited or active member (403 `plan_limit_reached`, `limit: seats`). "
    "Free.",
    response_model=Invited, responses=problems(409, body=True, notes={403: PLAN_LIMIT_NOTE}),
)
async def invite_member(
    request: Request, session: Session, caller: Caller, ctx: Ctx, body: InviteIn
) -> JSONResponse:
    now = clock.now()
    member = await members.invite(session, caller, email=body.email, role=body.role, now=now)
    state = request.app.state
    url = members.invite_url(state.settings, state.signer, member.id)
    account = await accounts.get_account(session, caller.account_id)
    _email_after_commit(ctx, state, member.email, member.id, member.role, url,
                        account.email if account else None, caller.account_id)
    return JSONResponse({**members.member_out(member), "inviteUrl": url})


def _email_after_commit(
    ctx: RequestContext, state, to: str, member_id: str, role: str, url: str,
    invited_by: str | None, account_id: str,
) -> None:
    settings: Settings = state.settings

    async def send() -> None:
        await outbox.send_once(
            state.db.sessionmaker, settings, key=f"member_invite:{member_id}",
            kind="member_invite", to=to, account_id=account_id,
            build=lambda k: messages.member_invite(to, invited_by, role, url, settings=settings,
                                                   now=ctx.now, idempotency_key=k),
        )

    ctx.after_commit.append(send)


@api.delete(
    "/members/{memberId}", summary="Remove a member (owner only)", operation_id="remove_member",
    description="Ends the membership and revokes every key of the member: refused from the "
    "next request on (other API processes within a second). Their ledger entries stay. Free.",
    response_model=MemberRemoved, responses=problems(404),
)
async def remove_member(
    request: Request, session: Session, caller: Caller,
    memberId: Annotated[str, Path(max_length=64)],
) -> JSONResponse:
    member, revoked = await members.remove(session, caller, memberId, clock.now())
    key_cache = request.app.state.key_cache

    async def forget() -> None:
        for key_id in revoked:
            key_cache.forget(key_id)

    context_of(request).after_commit.append(forget)
    return JSONResponse({**members.member_out(member), "keysRevoked": len(revoked)})


# ---- the invitation's page: GET shows it, only the POST acts (mail scanners prefetch GETs)

pages = APIRouter(route_class=SorsRoute, include_in_schema=False)
Token = Annotated[str, Query(min_length=10, max_length=1000)]
_GONE = {
    "invalid": "This invitation link is not valid.",
    "expired": "This invitation has expired; ask for a new one.",
    "removed": "This invitation was withdrawn.",
    "already_accepted": "This invitation was already accepted; its key was shown then.",
}


@pages.get("/members/accept")
async def accept_page(request: Request, session: Session, token: Token) -> HTMLResponse:
    found = await members.read_invite(session, request.app.state.signer, token)
    if found.outcome != "pending" or found.member is None:
        return page("Invitation", f"<p>{escape(_GONE[found.outcome])}</p>", 410)
    return page(
        "Join the workspace",
        f"<p>You are invited as a <b>{escape(found.member.role)}</b>.</p>"
        '<form method="post" action="/members/accept">'
        f'<input type="hidden" name="token" value="{escape(token)}">'
        '<button type="submit">Accept and show my API key</button></form>',
    )


@pages.post("/members/accept")
async def accept(request: Request, session: Session) -> HTMLResponse:
    form = await request.form()
    done = await members.accept(
        session, request.app.state.signer, str(form.get("token") or ""), clock.now()
    )
    if done.outcome != "accepted" or done.api_key is None:
        return page("Invitation", f"<p>{escape(_GONE[done.outcome])}</p>", 410)
    return page(
        "Welcome",
        "<p>Your API key (shown only this once — store it now):</p>"
        f"<p><code>{escape(done.api_key)}</code></p>"
        "<p>Send it as <code>Authorization: Bearer &lt;key&gt;</code>; sign in to the "
        '<a href="/app/signin">console</a> with it.</p>',
    )


router = APIRouter()
router.include_router(api)
router.include_router(pages)

"""Members over HTTP: /api/v1/members (free; not skills, so not MCP tools: the workspace is
its owner's business, like keys) and the invitation's accept page (/members/accept)."""

from __future__ import annotations

from html import escape
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import HTMLResponse

from sors.accounts import service as accounts
from sors.accounts.deps import allowed
from sors.accounts.permissions import Action
from sors.email import messages, outbox
from sors.kit.principal import Principal, current_principal
from sors.kit.problems import problems
from sors.kit.routing import Context, RequestContext, SorsRoute
from sors.payments.router import page
from sors.subscriptions import members
from sors.subscriptions.limits import PLAN_LIMIT_NOTE
from sors.subscriptions.members import Invitation
from sors.subscriptions.schemas import Invited, InviteIn, MemberList, MemberRemoved

Caller = Annotated[Principal, Depends(current_principal)]
# Inviting and removing members: the workspace owner, uncapped.
Owner = allowed(Action.MANAGE_MEMBERS)

api = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["members"])


@api.get(
    "/members", summary="The workspace's members", operation_id="list_members",
    description="Invited and active members (the owner's own keys belong to no member). Free.",
    response_model=MemberList, responses=problems(),
)
async def list_members(ctx: Context, caller: Caller) -> MemberList:
    rows = await members.list_members(ctx.session, caller.account_id)
    return MemberList(results=[members.member_out(m) for m in rows])


@api.post(
    "/members", summary="Invite a member by email (owner only)", operation_id="invite_member",
    description="Emails a signed link valid seven days; accepting it gives the member their "
    "own API key on the shared balance. Roles: `member` (the API and console, paid calls "
    "included), `viewer` (reads free resources only), `owner`. The plan's `seats` count the "
    "owner and every invited or active member (403 `plan_limit_reached`, `limit: seats`). "
    "Free.",
    response_model=Invited, responses=problems(409, body=True, notes={403: PLAN_LIMIT_NOTE}),
)
async def invite_member(request: Request, ctx: Context, caller: Owner, body: InviteIn) -> Invited:
    settings = ctx.runtime.settings
    member = await members.invite(ctx.session, caller, email=body.email, role=body.role,
                                  now=ctx.now, settings=settings)
    url = members.invite_url(settings, request.app.state.signer, member.id)
    account = await accounts.get_account(ctx.session, caller.account_id)
    _email_after_commit(ctx, member.email, member.id, member.role, url,
                        account.email if account else None, caller.account_id)
    # The link goes to the invited address only: accepting it proves the address is theirs.
    return Invited(**members.member_out(member).model_dump())


def _email_after_commit(
    ctx: RequestContext, to: str, member_id: str, role: str, url: str,
    invited_by: str | None, account_id: str,
) -> None:
    rt = ctx.runtime
    settings = rt.settings

    async def send() -> None:
        await outbox.send_once(
            rt.database.sessionmaker, settings, key=f"member_invite:{member_id}",
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
    request: Request, ctx: Context, caller: Owner,
    memberId: Annotated[str, Path(max_length=64)],
) -> MemberRemoved:
    member, revoked = await members.remove(ctx.session, caller, memberId, ctx.now)
    key_cache = request.app.state.key_cache

    async def forget() -> None:
        for key_id in revoked:
            key_cache.forget(key_id)

    ctx.after_commit.append(forget)
    return MemberRemoved(**members.member_out(member).model_dump(), keysRevoked=len(revoked))


# ---- the invitation's page: GET shows it, only the POST acts (mail scanners prefetch GETs)

pages = APIRouter(route_class=SorsRoute, include_in_schema=False)
Token = Annotated[str, Query(min_length=10, max_length=1000)]
_GONE = {
    Invitation.INVALID: "This invitation link is not valid.",
    Invitation.EXPIRED: "This invitation has expired; ask for a new one.",
    Invitation.REMOVED: "This invitation was withdrawn.",
    Invitation.ALREADY_ACCEPTED: "This invitation was already accepted; its key was shown then.",
}


@pages.get("/members/accept")
async def accept_page(request: Request, ctx: Context, token: Token) -> HTMLResponse:
    found = await members.read_invite(ctx.session, request.app.state.signer, token)
    if found.outcome is not Invitation.PENDING or found.member is None:
        return page("Invitation", f"<p>{escape(_GONE[found.outcome])}</p>", 410)
    return page(
        "Join the workspace",
        f"<p>You are invited as a <b>{escape(found.member.role)}</b>.</p>"
        '<form method="post" action="/members/accept">'
        f'<input type="hidden" name="token" value="{escape(token)}">'
        '<button type="submit">Accept and show my API key</button></form>',
    )


@pages.post("/members/accept")
async def accept(request: Request, ctx: Context) -> HTMLResponse:
    form = await request.form()
    done = await members.accept(
        ctx.session, request.app.state.signer, str(form.get("token") or ""), ctx.now
    )
    if done.outcome is not Invitation.ACCEPTED or done.api_key is None:
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

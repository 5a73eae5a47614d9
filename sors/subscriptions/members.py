"""The people of a workspace: the owner invites members by email (a signed link), each
member holds their own keys on the shared balance, and removing a member revokes their keys.

Seats come from the plan that applies (`limits.standing`): the owner counts as one; invited
and active members take the others. Roles: `owner` (everything, members included),
`member` (the API and console on the shared balance, their own keys), `viewer` (reads free
resources only: enforced for every door by the paid unit of work, `sors.api.paid`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from sqlalchemy.ext.asyncio import AsyncSession

from sors.accounts import repository as accounts_repo
from sors.accounts import service as accounts
from sors.accounts.models import Member
from sors.config import Settings
from sors.email.addresses import normalize_email
from sors.kit.clock import isoformat
from sors.kit.errors import NotFound, ValidationFailed
from sors.kit.ids import new_id
from sors.kit.principal import Principal
from sors.kit.security import Signer, TokenError
from sors.subscriptions import limits
from sors.subscriptions.errors import MemberExists
from sors.subscriptions.schemas import MemberOut

INVITE_PURPOSE = "member-invite"
INVITE_MAX_AGE = timedelta(days=7)


def member_out(m: Member) -> MemberOut:
    return MemberOut(
        memberId=m.id, email=m.email, role=m.role, status=m.status,
        invitedAt=isoformat(m.invited_at), acceptedAt=isoformat(m.accepted_at),
    )


def invite_url(settings: Settings, signer: Signer, member_id: str) -> str:
    token = signer.sign(INVITE_PURPOSE, {"m": member_id})
    return f"{settings.base_url.rstrip('/')}/members/accept?token={token}"


async def invite(
    session: AsyncSession, caller: Principal, *, email: str, role: str, now: datetime,
    settings: Settings,
) -> Member:
    try:
        address = normalize_email(email)
    except ValueError as exc:
        raise ValidationFailed.single("email", "Not a valid email address.") from exc
    await accounts_repo.lock_account(session, caller.account_id)  # seats counted exactly
    live = await accounts_repo.live_members(session, caller.account_id)
    if any(m.email == address for m in live):
        raise MemberExists(f"{address} is already invited to or a member of this workspace.")
    standing = await limits.standing(session, caller.account_id, now, settings)
    if standing.seats is not None and 1 + len(live) >= standing.seats:
        raise limits.PlanLimitReached("seats", standing.seats, standing)
    member = Member(
        id=new_id("mem"),
        account_id=caller.account_id,
        email=address,
        role=role,
        status="invited",
        invited_at=now,
    )
    await accounts_repo.add_member(session, member)
    return member


class Invitation(StrEnum):
    """Where an invitation stands."""

    PENDING = "pending"  # valid, not accepted yet
    ACCEPTED = "accepted"  # just now
    ALREADY_ACCEPTED = "already_accepted"
    REMOVED = "removed"  # withdrawn (or the membership ended)
    INVALID = "invalid"
    EXPIRED = "expired"


@dataclass(frozen=True)
class Accepted:
    outcome: Invitation
    member: Member | None = None
    api_key: str | None = None  # the member's first key: shown once


async def read_invite(session: AsyncSession, signer: Signer, token: str) -> Accepted:
    try:
        data = signer.verify(INVITE_PURPOSE, token, int(INVITE_MAX_AGE.total_seconds()))
    except TokenError as exc:
        return Accepted(Invitation.EXPIRED if exc.reason == "expired" else Invitation.INVALID)
    member = await accounts_repo.get_member(session, str(data.get("m", "")), lock=True)
    if member is None:
        return Accepted(Invitation.INVALID)
    if member.status == "removed":
        return Accepted(Invitation.REMOVED, member)
    if member.status == "active":
        return Accepted(Invitation.ALREADY_ACCEPTED, member)
    return Accepted(Invitation.PENDING, member)


async def accept(session: AsyncSession, signer: Signer, token: str, now: datetime) -> Accepted:
    """The invited person accepts: the membership starts with its first key, shown once."""
    found = await read_invite(session, signer, token)
    if found.outcome is not Invitation.PENDING or found.member is None:
        return found
    member = found.member
    member.status, member.accepted_at = "active", now
    key = await accounts.create_key(
        session, member.account_id, name=f"{member.role} {member.email}", member_id=member.id
    )
    return Accepted(Invitation.ACCEPTED, member, key)


async def remove(
    session: AsyncSession, caller: Principal, member_id: str, now: datetime
) -> tuple[Member, list[str]]:
    """End a membership; every key of the member is revoked in the same transaction."""
    member = await accounts_repo.get_member(session, member_id, lock=True)
    if member is None or member.account_id != caller.account_id or member.status == "removed":
        raise NotFound(f"No member {member_id!r} in this workspace.")
    if member.id == caller.member_id:
        raise ValidationFailed.single("memberId", "An owner cannot remove themselves.")
    member.status, member.removed_at = "removed", now
    revoked = await accounts_repo.revoke_member_keys(session, member.id, now)
    return member, revoked


async def list_members(session: AsyncSession, account_id: str) -> list[Member]:
    return await accounts_repo.live_members(session, account_id)

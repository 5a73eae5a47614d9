"""Emails about a subscription: its trial ends in three days, a payment failed. Sent by the
scheduler for both providers, once each: the outbox key makes a second send a no-op, and
the subscription row remembers which trial end or period the notice was for."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from functools import partial

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sors.accounts import service as accounts
from sors.config import Settings
from sors.email import messages, outbox
from sors.kit.clock import isoformat
from sors.subscriptions import repository as repo
from sors.subscriptions.models import Subscription
from sors.subscriptions.plans import get_plan

TRIAL_NOTICE_BEFORE = timedelta(days=3)


@dataclass(frozen=True)
class Notice:
    subscription_id: str
    account_id: str
    to: str
    kind: str
    key: str
    for_time: datetime | None  # the trial end or period end it is about
    plan_name: str
    price: str


def _notice(sub: Subscription, to: str) -> Notice:
    plan = get_plan(sub.plan_id)
    name = plan.name if plan else sub.plan_id
    price = f"${plan.price_cents(sub.interval) / 100:,.2f} per {sub.interval}" if plan else ""
    if sub.status == "trialing":
        return Notice(
            sub.id,
            sub.account_id,
            to,
            "subscription_trial_ending",
            f"trial_ending:{sub.id}:{isoformat(sub.trial_end)}",
            sub.trial_end,
            name,
            price,
        )
    return Notice(
        sub.id,
        sub.account_id,
        to,
        "subscription_payment_failed",
        f"payment_failed:{sub.id}:{isoformat(sub.current_period_end)}",
        sub.current_period_end,
        name,
        price,
    )


def _message(n: Notice, settings: Settings, now: datetime, key: str) -> EmailMessage:
    if n.kind == "subscription_trial_ending":
        return messages.trial_ending(
            n.to,
            n.plan_name,
            isoformat(n.for_time) or "",
            n.price,
            settings=settings,
            now=now,
            idempotency_key=key,
        )
    return messages.payment_failed(
        n.to, n.plan_name, settings=settings, now=now, idempotency_key=key
    )


async def send_due(
    maker: async_sessionmaker[AsyncSession], settings: Settings, now: datetime, *, limit: int
) -> int:
    """Send the notices that are due; how many were looked at."""
    async with maker() as s, s.begin():
        subs = await repo.needing_notice(s, now + TRIAL_NOTICE_BEFORE, limit=limit)
        notices, silent = [], []
        for sub in subs:
            account = await accounts.get_account(s, sub.account_id)
            if account is None or not account.email:
                silent.append(sub)  # nobody to tell: remember it as done
            else:
                notices.append(_notice(sub, account.email))
        for sub in silent:
            _mark(sub)
    for n in notices:
        result = await outbox.send_once(
            maker,
            settings,
            key=n.key,
            kind=n.kind,
            to=n.to,
            account_id=n.account_id,
            build=partial(_message, n, settings, now),
        )
        if result.status == "failed":
            continue  # the key is free again: the next tick retries
        async with maker() as s, s.begin():
            current = await repo.get_by_account(s, n.account_id, lock=True)
            if current is not None and current.id == n.subscription_id:
                _mark(current)
    return len(subs)


def _mark(sub: Subscription) -> None:
    if sub.status == "trialing":
        sub.trial_notice_sent_for = sub.trial_end
    else:
        sub.payment_notice_sent_for = sub.current_period_end

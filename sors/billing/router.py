"""Credits over HTTP: the price list, the balance and the ledger."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query
from sqlalchemy.ext.asyncio import AsyncSession

from sors.billing import repository as repo
from sors.billing import service
from sors.billing.pricing import get_pricing
from sors.billing.schemas import CreditBalance, LedgerPage, PriceList, ledger_entry, price_list
from sors.kit.principal import current_account_id
from sors.kit.problems import problems
from sors.kit.routing import Context, SorsRoute, get_session

router = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["credits"])
Session = Annotated[AsyncSession, Depends(get_session)]
AccountId = Annotated[str, Depends(current_account_id)]


@router.get(
    "/pricing", summary="Price list (no key)", operation_id="get_pricing",
    description="Every skill's cost in credits, the credit packs, plans and subscriptions. "
    "The same configuration decides every charge.",
    response_model=PriceList, responses=problems(key=False),
)
async def pricing(ctx: Context) -> PriceList:
    settings = ctx.runtime.settings
    base = settings.base_url.rstrip("/")
    keyless = f"{base}/checkout/keyless" if settings.keyless_checkout_open else None
    subscribe = f"{base}/app/plan" if settings.subscriptions.enabled else None
    return price_list(get_pricing(), keyless_checkout_url=keyless, subscribe_url=subscribe)


@router.get(
    "/credits", summary="Credit balance", description="The balance in credits and in USD.",
    openapi_extra={"x-sors-skill": "get_credit_balance"},
    response_model=CreditBalance, responses=problems(),
)
async def credits(session: Session, account_id: AccountId) -> CreditBalance:
    balance = await service.balance(session, account_id)
    pricing = get_pricing()
    return CreditBalance(
        balance=balance,
        balanceUsd=float(pricing.to_usd(balance)),
        usdPerCredit=float(pricing.usd_per_credit),
    )


@router.get(
    "/credits/ledger", summary="Ledger entries, newest first",
    description="Every balance change (charges, refunds, top-ups, grants) of this account, "
    "newest first; page with `before=<nextBefore>`. Free.",
    openapi_extra={"x-sors-skill": "get_credit_ledger"},
    response_model=LedgerPage, responses=problems(),
)
async def ledger(
    session: Session,
    account_id: AccountId,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    before: Annotated[str | None, Query(max_length=64)] = None,
) -> LedgerPage:
    entries = await repo.list_entries(session, account_id, limit=limit + 1, before=before)
    has_more = len(entries) > limit
    entries = entries[:limit]
    members = await repo.members_of_keys(session, sorted({e.key_id for e in entries if e.key_id}))
    return LedgerPage(
        results=[ledger_entry(e, members) for e in entries],
        hasMore=has_more,
        nextBefore=entries[-1].id if has_more and entries else None,
    )

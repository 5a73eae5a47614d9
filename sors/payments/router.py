"""Payments over HTTP: POST /api/v1/credits/topup, the local checkout pages, the keyless
checkout, and the Stripe webhook."""

from __future__ import annotations

from html import escape
from typing import Annotated

import structlog
from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.responses import Response

from sors.billing.schemas import TopupIn, TopupLink
from sors.email import messages, outbox
from sors.email.addresses import normalize_email
from sors.kit.errors import MalformedRequest, NotFound, RateLimited
from sors.kit.middleware import client_ip
from sors.kit.principal import current_account_id
from sors.kit.problems import problems
from sors.kit.routing import Context, RequestContext, SorsRoute, get_session, runtime_of
from sors.kit.schemas import ResponseModel
from sors.payments import service
from sors.payments.models import CheckoutSession
from sors.payments.policy import keyless_checkout_open, local_allowed
from sors.payments.providers import (
    PaymentProvider,
    WebhookSignatureError,
    WebhooksNotSupportedError,
    get_provider,
)

log = structlog.get_logger("sors.checkout")

Session = Annotated[AsyncSession, Depends(get_session)]
SessionId = Annotated[str, Path(min_length=4, max_length=64)]


def _provider(ctx: RequestContext) -> PaymentProvider:
    return get_provider(ctx.runtime.settings)


# ---- API ----------------------------------------------------------------------------------

api = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["credits"])


@api.post(
    "/credits/topup",
    summary="Create a payment link for a credit pack (free)",
    description="A checkout link for one credit pack, valid 24 hours; credits land within "
    "seconds of payment. At most 5 links per hour (the 6th is 429).",
    openapi_extra={"x-sors-skill": "create_topup_link"},
    response_model=TopupLink,
    responses=problems(body=True),
)
async def create_topup_link(
    ctx: Context,
    account_id: Annotated[str, Depends(current_account_id)],
    body: TopupIn,
) -> TopupLink:
    return await service.create_topup_link(
        ctx.session,
        _provider(ctx),
        ctx.runtime.settings,
        account_id=account_id,
        pack_id=body.packId,
        now=ctx.now,
    )


# ---- pages --------------------------------------------------------------------------------

pages = APIRouter(route_class=SorsRoute, include_in_schema=False)


def page(title: str, body: str, status: int = 200) -> HTMLResponse:
    html = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>{escape(title)} · sors</title>
<style>body{{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;
color:#222}}button{{font-size:1rem;padding:.6rem 1.2rem;cursor:pointer}}
code{{background:#f3f3f3;padding:.2rem .4rem;word-break:break-all}}</style>
</head><body><h1>{escape(title)}</h1>{body}</body></html>"""
    return HTMLResponse(html, status_code=status, headers={"Cache-Control": "no-store"})


def _price(cs: CheckoutSession) -> str:
    return f"${cs.price_cents / 100:,.2f}"


def _key_block(key: str, emailed_to: str | None) -> str:
    mail = f" A copy was emailed to {escape(emailed_to)}." if emailed_to else ""
    return (
        "<p>Your API key (shown only this once — store it now):</p>"
        f"<p><code>{escape(key)}</code></p>"
        f"<p>Send it as <code>Authorization: Bearer &lt;key&gt;</code>.{mail}</p>"
    )


def _email_key_after_commit(ctx: RequestContext, cs: CheckoutSession, key: str) -> None:
    if not cs.email:
        return
    rt = ctx.runtime
    settings = rt.settings
    to, credits, cs_id, account_id = cs.email, cs.credits, cs.id, cs.fulfilled_account_id

    async def send() -> None:
        try:
            await outbox.send_once(
                rt.database.sessionmaker,
                settings,
                key=f"api-key:{cs_id}",
                kind="api_key_issued",
                to=to,
                account_id=account_id,
                build=lambda k: messages.api_key_issued(
                    to, key, credits, settings=settings, now=ctx.now, idempotency_key=k
                ),
            )
        except Exception:  # the key was shown on the page (or can be revealed there)
            log.exception("checkout.key_email_failed", session=cs_id)

    ctx.after_commit.append(send)


@pages.get("/checkout/keyless")
async def keyless_form(request: Request) -> HTMLResponse:
    if not keyless_checkout_open(runtime_of(request).settings):
        return page("Not available", "<p>This server sells no credits without a key.</p>", 404)
    return _keyless_form(request)


def _keyless_form(request: Request, error: str | None = None, status: int = 200) -> HTMLResponse:
    p = service.pack(service.KEYLESS_PACK)
    err = f'<p style="color:#b00">{escape(error)}</p>' if error else ""
    return page(
        "Buy sors credits",
        f"<p>{p.credits:,} credits for ${p.price_usd}. An API key is created when you pay.</p>"
        f'{err}<form method="post"><label>Email (optional, the key is sent there too)<br>'
        '<input type="email" name="email" maxlength="320"></label><br><br>'
        '<button type="submit">Continue to payment</button></form>',
        status,
    )


@pages.post("/checkout/keyless")
async def keyless_start(request: Request, ctx: Context) -> Response:
    if not keyless_checkout_open(ctx.runtime.settings):
        raise NotFound("Keyless checkout is not offered here.")
    decision = await request.app.state.limiter.hit("ip", client_ip(request.scope))
    if not decision.allowed:
        raise RateLimited(decision.reset_seconds)
    form = await request.form()
    raw = str(form.get("email") or "").strip()
    email = None
    if raw:
        try:
            email = normalize_email(raw)
        except ValueError:
            return _keyless_form(request, "That email address is not valid.", 422)
    cs = await service.create_keyless(
        ctx.session, _provider(ctx), ctx.runtime.settings, email=email, now=ctx.now
    )
    return RedirectResponse(cs.checkout_url or f"/checkout/{cs.id}", status_code=303)


@pages.get("/checkout/{sessionId}")
async def checkout_page(ctx: Context, sessionId: SessionId) -> Response:
    cs = await service.get(ctx.session, sessionId)
    if cs is None:
        return page("Unknown checkout", "<p>There is no such checkout.</p>", 404)
    if cs.status == "completed":
        return page("Paid", "<p>This checkout has been paid. Thank you!</p>")
    if service.is_expired(cs, ctx.now):
        return page(
            "Checkout expired", "<p>This payment link has expired; create a new one.</p>", 410
        )
    if cs.provider != "local":
        return RedirectResponse(cs.checkout_url or "/", status_code=303)
    return page(
        "Checkout",
        f"<p>{cs.credits:,} sors credits ({escape(cs.pack_id)}) for <b>{_price(cs)}</b>.</p>"
        f'<form method="post" action="/checkout/{escape(cs.id)}/pay">'
        f'<button type="submit">Pay {_price(cs)}</button></form>'
        "<p><small>Local test checkout: no real payment is taken.</small></p>",
    )


@pages.post("/checkout/{sessionId}/pay")
async def pay(ctx: Context, sessionId: SessionId) -> HTMLResponse:
    cs = await service.get(ctx.session, sessionId)
    if cs is None or cs.provider != "local":
        return page("Unknown checkout", "<p>There is no such checkout.</p>", 404)
    if not local_allowed(ctx.runtime.settings):  # a session made before the setting changed
        return page("Payments unavailable",
                    "<p>This server takes no local payments; nothing was charged.</p>", 503)
    done = await service.complete(
        ctx.session, sessionId, ctx.now, enforce_expiry=True, issue_key=True, rt=ctx.runtime
    )
    if done.outcome is service.CheckoutOutcome.EXPIRED:
        return page(
            "Checkout expired", "<p>This payment link has expired; nothing was charged.</p>", 410
        )
    if done.outcome is service.CheckoutOutcome.ALREADY_COMPLETED:
        return page("Already paid", "<p>This checkout was already paid; nothing more to do.</p>")
    assert done.checkout is not None
    if done.api_key:
        _email_key_after_commit(ctx, done.checkout, done.api_key)
        return page(
            "Payment complete",
            f"<p>{done.checkout.credits:,} credits are on your new account.</p>"
            + _key_block(done.api_key, done.checkout.email),
        )
    return page(
        "Payment complete",
        f"<p>{done.checkout.credits:,} credits were added to your account.</p>"
        '<p><a href="/app/credits" id="back-to-console">Back to the console</a></p>',
    )


@pages.get("/checkout/{sessionId}/done")
async def done_page(session: Session, sessionId: SessionId) -> HTMLResponse:
    cs = await service.get(session, sessionId)
    if cs is None:
        return page("Unknown checkout", "<p>There is no such checkout.</p>", 404)
    if cs.status != "completed":
        return page(
            "Payment processing",
            "<p>We have not received the payment confirmation yet; reload this page in a few "
            "seconds.</p>",
        )
    if cs.account_id is None and cs.key_revealed_at is None:
        mail = f"<p>Your key was also emailed to {escape(cs.email)}.</p>" if cs.email else ""
        return page(
            "Payment complete",
            f"<p>{cs.credits:,} credits are on your new account.</p>{mail}"
            f'<form method="post" action="/checkout/{escape(cs.id)}/key">'
            '<button type="submit">Show my API key</button></form>',
        )
    return page("Payment complete", f"<p>{cs.credits:,} credits were added. Thank you!</p>")


@pages.post("/checkout/{sessionId}/key")
async def reveal_key(ctx: Context, sessionId: SessionId) -> HTMLResponse:
    key = await service.reveal_key(ctx.session, sessionId, ctx.now)
    if key is None:
        return page(
            "Nothing to show",
            "<p>This key was already shown, or the payment is not complete.</p>",
            409,
        )
    return page("Your API key", _key_block(key, None))


@pages.get("/checkout/{sessionId}/cancelled")
async def cancelled_page(sessionId: SessionId) -> HTMLResponse:
    return page(
        "Payment cancelled", "<p>Nothing was charged. You can create a new link any time.</p>"
    )


# ---- webhooks -----------------------------------------------------------------------------

webhooks = APIRouter(route_class=SorsRoute, include_in_schema=False)


class WebhookReceived(ResponseModel):
    received: bool
    outcome: str  # what the event did (`service.CheckoutOutcome`, or a subscription's)


@webhooks.post("/webhooks/stripe", response_model=WebhookReceived)
async def stripe_webhook(request: Request, ctx: Context) -> WebhookReceived:
    provider = _provider(ctx)
    payload = await request.body()
    try:
        event = provider.parse_webhook(payload, request.headers)
    except WebhooksNotSupportedError as exc:
        raise NotFound("Stripe webhooks are not enabled (SORS_PAYMENTS is not 'stripe').") from exc
    except WebhookSignatureError as exc:
        raise MalformedRequest(f"Webhook refused: {exc}") from exc
    done = await service.handle_event(ctx.session, event, ctx.now, ctx.runtime)
    if done.api_key and done.checkout is not None:
        _email_key_after_commit(ctx, done.checkout, done.api_key)
    return WebhookReceived(received=True, outcome=done.outcome)


router = APIRouter()
router.include_router(api)
router.include_router(pages)
router.include_router(webhooks)

"""The console's route class and the pieces every console page module shares."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from importlib import resources
from typing import Annotated, Any
from urllib.parse import quote, urlsplit

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, Response
from fastapi.routing import APIRoute

from sors.console.auth import (
    ConsoleUser,
    CsrfRefused,
    SignInRequired,
    clear_session_cookie,
    current_user,
)
from sors.console.render import SECURITY_HEADERS, page, redirect


class ConsoleRoute(APIRoute):
    """Turns "no live session" into a trip to the sign-in page (an `HX-Redirect` for htmx
    requests) and a CSRF failure into a 403 page; nothing of either request ran."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        original = super().get_route_handler()

        async def handler(request: Request) -> Response:
            if request.method == "POST" and not same_origin(request):
                return page(request, "error.html.j2", status=403, title="Refused",
                            message="This form was sent from another site.")
            try:
                return await original(request)
            except SignInRequired as exc:
                target = f"/app/signin?reason={exc.reason}"
                if request.method == "GET":
                    target += "&next=" + quote(request.url.path)
                if request.headers.get("hx-request"):
                    response: Response = HTMLResponse("", headers={"HX-Redirect": target})
                else:
                    response = redirect(request, target)
                if exc.reason != "signed_out":
                    clear_session_cookie(request, response)
                return response
            except CsrfRefused:
                return page(request, "error.html.j2", status=403, title="Refused",
                            message="This form has expired or did not come from this console "
                                    "(CSRF check failed). Reload the page and try again.")

        return handler


def same_origin(request: Request) -> bool:
    """Browsers name the page a POST came from; one from another site is refused even where
    no session is involved yet (sign-in: no logging a victim into someone else's account)."""
    origin = request.headers.get("origin")
    if origin is None or origin == "null":
        return origin is None
    return urlsplit(origin).netloc == request.headers.get("host")


def console_router() -> APIRouter:
    return APIRouter(prefix="/app", route_class=ConsoleRoute, include_in_schema=False)


User = Annotated[ConsoleUser, Depends(current_user)]

STATIC = {"htmx.min.js": "text/javascript", "console.css": "text/css", "emoji.ttf": "font/ttf"}


def static_file(name: str) -> Response:
    if name not in STATIC:
        return Response(status_code=404)
    data = resources.files("sors.console").joinpath("static", name).read_bytes()
    headers = {**SECURITY_HEADERS, "Cache-Control": "public, max-age=3600"}
    return Response(data, media_type=STATIC[name], headers=headers)

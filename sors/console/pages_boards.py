"""Boards: the list, one board (its items as cards, share link, CSV), and "Save to board"
from any post or profile card (every action the API call of the same name, free)."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response

from sors.console import apicall
from sors.console.auth import check_csrf
from sors.console.pages_posts import _idempotency
from sors.console.render import outcome, page, redirect
from sors.console.routing import User, console_router

router = console_router()


@router.get("/boards")
async def boards(request: Request, user: User) -> Response:
    result = await apicall.call(request, user.principal, "GET", "/api/v1/boards")
    return page(request, "boards.html.j2", title="Boards", result=result,
                boards=result.data["results"] if result.ok else [])


@router.post("/boards")
async def create_board(request: Request, user: User) -> Response:
    form = await check_csrf(request, user)
    result = await apicall.call(request, user.principal, "POST", "/api/v1/boards",
                                json={"name": form.get("name", "")},
                                idempotency_key=_idempotency(form))
    if result.ok:
        return redirect(
            request, f"/app/boards/{result.data['id']}", outcome("Board created", result))
    return redirect(request, "/app/boards", outcome("Board", result))


@router.get("/boards/save")
async def save_form(request: Request, user: User, postId: str | None = None,
                    profileId: str | None = None) -> Response:
    """Where a card's "Save to board" leads: pick a board (or name a new one) and a note."""
    listed = await apicall.call(request, user.principal, "GET", "/api/v1/boards")
    return page(request, "board_save.html.j2", title="Save to board", result=listed,
                boards=listed.data["results"] if listed.ok else [],
                target={"postId": postId} if postId else {"profileId": profileId or ""})


@router.post("/boards/save")
async def save(request: Request, user: User) -> Response:
    form = await check_csrf(request, user)
    target = ({"postId": form["postId"]} if form.get("postId")
              else {"profileId": form.get("profileId", "")})
    board_id = form.get("boardId", "")
    if not board_id:  # a new board, named on the same form
        made = await apicall.call(request, user.principal, "POST", "/api/v1/boards",
                                  json={"name": form.get("name", "")},
                                  idempotency_key=_idempotency(form))
        if not made.ok:
            return redirect(request, "/app/boards", outcome("Board", made))
        board_id = made.data["id"]
    body = {**target, **({"note": form["note"]} if form.get("note", "").strip() else {})}
    result = await apicall.call(request, user.principal, "POST",
                                f"/api/v1/boards/{board_id}/items", json=body)
    if not result.ok:
        return redirect(request, "/app/boards", outcome("Save to board", result))
    verb = "Saved to the board" if result.data["created"] else "Already on the board"
    return redirect(request, f"/app/boards/{board_id}", outcome(verb, result))


@router.get("/boards/{board_id}")
async def board(request: Request, user: User, board_id: str) -> Response:
    result = await apicall.call(request, user.principal, "GET", f"/api/v1/boards/{board_id}")
    if not result.ok:
        return page(request, "error.html.j2", status=result.status, title="Board",
                    message=(result.problem or {}).get("detail"), result=result)
    return page(request, "board.html.j2", title=result.data["name"], board=result.data,
                result=result, window="three_months")


@router.get("/boards/{board_id}/csv")
async def board_csv(request: Request, user: User, board_id: str) -> Response:
    result = await apicall.call(request, user.principal, "GET", f"/api/v1/boards/{board_id}",
                                accept="text/csv")
    if not result.ok:
        return page(request, "error.html.j2", status=result.status, title="CSV export",
                    result=result, message=None)
    headers = {"Content-Disposition": f'attachment; filename="sors-{board_id}.csv"',
               "Cache-Control": "no-store"}
    return Response(result.body, media_type="text/csv; charset=utf-8", headers=headers)


@router.post("/boards/{board_id}/items/{item_id}/delete")
async def remove_item(request: Request, user: User, board_id: str, item_id: str) -> Response:
    await check_csrf(request, user)
    result = await apicall.call(request, user.principal, "DELETE",
                                f"/api/v1/boards/{board_id}/items/{item_id}")
    return redirect(request, f"/app/boards/{board_id}", outcome("Removed from the board", result))


@router.post("/boards/{board_id}/share")
async def share(request: Request, user: User, board_id: str) -> Response:
    form = await check_csrf(request, user)
    method = "DELETE" if form.get("action") == "revoke" else "POST"
    result = await apicall.call(request, user.principal, method,
                                f"/api/v1/boards/{board_id}/share")
    said = "Share link revoked" if method == "DELETE" else "Share link ready"
    return redirect(request, f"/app/boards/{board_id}", outcome(said, result))


@router.post("/boards/{board_id}/delete")
async def delete_board(request: Request, user: User, board_id: str) -> Response:
    await check_csrf(request, user)
    result = await apicall.call(request, user.principal, "DELETE", f"/api/v1/boards/{board_id}")
    return redirect(request, "/app/boards", outcome("Board deleted", result))

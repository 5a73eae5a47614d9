"""Boards API (every route free, listed in the price list), and the key-less read of a
shared board."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Request, Response
from fastapi.responses import HTMLResponse
from sqlalchemy.ext.asyncio import AsyncSession

from sors.boards import errors, page, service
from sors.boards.schemas import (
    BoardDetail,
    BoardIn,
    BoardItemIn,
    BoardList,
    BoardOut,
    Deleted,
    ItemSaved,
    SharedBoard,
    ShareOut,
    ShareRevoked,
)
from sors.catalog.search import csv_export
from sors.kit.errors import NotFound
from sors.kit.principal import current_account_id
from sors.kit.problems import link, problems
from sors.kit.responses import ModelResponse
from sors.kit.routing import Context, SorsRoute, get_session

router = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["boards"])
Session = Annotated[AsyncSession, Depends(get_session)]
AccountId = Annotated[str, Depends(current_account_id)]
BoardId = Annotated[str, Path(max_length=64)]


def _skill(key: str) -> dict[str, str]:
    return {"x-sors-skill": key}


def _board_links(expr: str) -> dict[str, dict]:
    ops = ("get_board", "add_board_item", "share_board", "delete_board")
    return {
        "".join(w.title() for w in op.split("_")): link(op, **{"path.boardId": expr})
        for op in ops
    }


def _item_columns() -> list[csv_export.Column]:
    """One row per item: the item, then the post's columns prefixed `post_` (blank on a
    profile's row), then the profile's prefixed `profile_` (blank on a post's row), each as
    it was when the item was saved (`saved_at`)."""
    cols: list[csv_export.Column] = [
        ("item_id", lambda r: r["id"]), ("kind", lambda r: r["kind"]),
        ("note", lambda r: r["note"]), ("added_at", lambda r: r["addedAt"]),
        ("saved_at", lambda r: r["savedAt"]),
    ]
    cols += [(f"post_{name}", lambda r, get=get: get(r["post"]) if r["post"] else None)
             for name, get in csv_export.POST_COLUMNS if name != "score"]
    cols += [(f"profile_{name}", lambda r, get=get: get(r["profile"]) if r["profile"] else None)
             for name, get in csv_export.PROFILE_COLUMNS]
    return cols


ITEM_COLUMNS = _item_columns()


def _with_csv(responses: dict) -> dict:
    ok = responses.setdefault(200, {})
    ok.setdefault("content", {})["text/csv"] = {"schema": {"type": "string"}}
    ok["description"] = "The board (JSON), or its items as CSV for `Accept: text/csv`"
    return responses


def _answer(request: Request, board: BoardDetail | SharedBoard) -> Response:
    """The board as built (its items carry the catalog's records), or its items as CSV."""
    if not csv_export.wants_csv(request.headers.get("accept")):
        return ModelResponse(board)
    rows = [item.model_dump(warnings=False) for item in board.items]  # records as built
    return Response(csv_export.render(rows, ITEM_COLUMNS), media_type="text/csv; charset=utf-8")


@router.post("/boards", response_model=BoardOut, summary="Create a board",
             openapi_extra=_skill("create_board"),
             description="A named board to keep posts and profiles on (name 1-100 characters). "
             f"At most {service.MAX_BOARDS} boards per account (409 `board_limit_reached`). "
             "Free.",
             responses=problems(409, body=True, links=_board_links("$response.body#/id")))
async def create_board(ctx: Context, account_id: AccountId, body: BoardIn) -> BoardOut:
    return await service.create_board(
        ctx.session, account_id, body.name, ctx.runtime.settings.base_url, ctx.now)


@router.get("/boards", response_model=BoardList, summary="Boards of this account",
            openapi_extra=_skill("list_boards"),
            description="This account's boards, newest first, with their item counts and "
            "share links. Free.",
            responses=problems(links=_board_links("$response.body#/results/0/id")))
async def list_boards(ctx: Context, account_id: AccountId) -> BoardList:
    return BoardList(results=await service.list_boards(
        ctx.session, account_id, ctx.runtime.settings.base_url))


@router.get("/boards/{boardId}", response_model=BoardDetail, summary="A board and its items",
            openapi_extra=_skill("get_board"),
            description="The board with its items, the last added first, each with the post's "
            "or profile's record as it was when saved (`savedAt`); `Accept: text/csv` answers "
            "the items as CSV. Another account's board is 404. Free.",
            responses=_with_csv(problems(404)))
async def get_board(request: Request, ctx: Context, account_id: AccountId,
                    boardId: BoardId) -> Response:
    return _answer(request, await service.get_board(
        ctx.session, account_id, boardId, ctx.runtime.settings.base_url, ctx.now,
        ctx.runtime.settings.jobs.baseline_min_age_hours))


@router.delete("/boards/{boardId}", response_model=Deleted, summary="Delete a board",
               openapi_extra=_skill("delete_board"),
               description="Deletes the board, its items and its share link. Free.",
               responses=problems(404))
async def delete_board(session: Session, account_id: AccountId, boardId: BoardId) -> Deleted:
    return await service.delete_board(session, account_id, boardId)


@router.post("/boards/{boardId}/items", response_model=ItemSaved,
             summary="Save a post or a profile to a board",
             openapi_extra=_skill("add_board_item"),
             description="Saves `postId` or `profileId` (exactly one) with an optional `note` "
             "(up to 1,000 characters), keeping the record as it is now. One already on the "
             "board is not added twice: the answer is the item there (`created: false`), "
             "its note replaced when one is sent (its record stays the one saved). At most "
             f"{service.MAX_ITEMS} items per board (409 `board_item_limit_reached`). Free.",
             responses=problems(404, 409, body=True, notes={
                 404: "No such board (`not_found`), post (`post_not_found`) or profile "
                      "(`profile_not_found`)"}, links={"DeleteBoardItem": link(
                 "delete_board_item", **{"path.boardId": "$request.path.boardId",
                                         "path.itemId": "$response.body#/item/id"})}))
async def add_item(ctx: Context, account_id: AccountId, boardId: BoardId,
                   body: BoardItemIn) -> ModelResponse:
    # Rendered as built: the item carries the catalog's record (see BoardItemOut.of).
    return ModelResponse(await service.add_item(
        ctx.session, account_id, boardId, body, ctx.now,
        ctx.runtime.settings.jobs.baseline_min_age_hours))


@router.delete("/boards/{boardId}/items/{itemId}", response_model=Deleted,
               summary="Remove an item from a board",
               openapi_extra=_skill("delete_board_item"),
               description="Removes the item (the post or profile itself stays). Free.",
               responses=problems(404))
async def delete_item(ctx: Context, account_id: AccountId, boardId: BoardId,
                      itemId: Annotated[str, Path(max_length=64)]) -> Deleted:
    return await service.delete_item(ctx.session, account_id, boardId, itemId, ctx.now)


@router.post("/boards/{boardId}/share", response_model=ShareOut,
             summary="Share a board read-only",
             openapi_extra=_skill("share_board"),
             description="A signed read-only link to the board that anyone can open without a "
             "key, until it is revoked (DELETE on this path). A board already shared answers "
             "its live link. Free.",
             responses=problems(404))
async def share_board(request: Request, ctx: Context, account_id: AccountId,
                      boardId: BoardId) -> ShareOut:
    return await service.share(ctx.session, request.app.state.signer, account_id, boardId,
                               ctx.runtime.settings.base_url, ctx.now)


@router.delete("/boards/{boardId}/share", response_model=ShareRevoked,
               summary="Revoke a board's share link",
               openapi_extra=_skill("unshare_board"),
               description="The share link stops working at once (410 `share_revoked`); "
               "sharing again makes a new link. Free.",
               responses=problems(404))
async def unshare_board(session: Session, account_id: AccountId,
                        boardId: BoardId) -> ShareRevoked:
    return await service.revoke_share(session, account_id, boardId)


def _with_html(responses: dict) -> dict:
    ok = responses[200]
    ok["content"]["text/html"] = {"schema": {"type": "string"}}
    ok["description"] = ("The board (JSON), its items as CSV for `Accept: text/csv`, or a "
                         "read-only web page for a browser (`Accept: text/html`)")
    return responses


@router.get("/shared/boards/{token}", response_model=SharedBoard,
            summary="A shared board (no key)",
            description="What a board's share link shows: its name and items, each with the "
            "record kept when it was saved (never a live read of the catalog), read-only, "
            "with no key (rate limited per client IP); `Accept: text/csv` answers the items "
            "as CSV, and a browser (`Accept: text/html`) gets a page to read on a phone: the "
            "posts with thumbnails, their scores explained, the notes and each saved "
            "analysis. A link that does not verify is 404; a revoked one is 410 "
            "`share_revoked`. Free.",
            responses=_with_html(_with_csv(problems(404, 410, key=False))))
async def get_shared_board(request: Request, ctx: Context,
                           token: Annotated[str, Path(max_length=255)]) -> Response:
    browser = page.wants_html(request.headers.get("accept"))
    try:
        board = await service.shared_board(
            ctx.session, request.app.state.signer, token, ctx.now,
            ctx.runtime.settings.jobs.baseline_min_age_hours)
    except (NotFound, errors.ShareRevoked) as exc:
        if not browser:
            raise
        html, nonce = page.error_page(exc.title, exc.detail)
        return HTMLResponse(html, status_code=exc.status, headers=page.headers(nonce))
    if browser:
        html, nonce = await page.render(
            ctx.session, board, simulated=ctx.runtime.settings.platform_source == "sim")
        return HTMLResponse(html, headers=page.headers(nonce))
    return _answer(request, board)

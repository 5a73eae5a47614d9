"""Boards (free, per account): named collections of posts and profiles with notes, and a
revocable read-only share link. An item shows the post's or profile's record as it was when
saved (its snapshot), never a live read of the catalog: a board, and above all its key-less
share link, must not become a free way to re-read records a read is charged for.

Limits: 100 boards per account, 500 items per board (409). A post or profile already on a
board is not added twice: saving it again answers the item there (`created: false`),
with its note replaced when one is sent.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from sors.boards import repository as repo
from sors.boards.errors import BoardItemLimitReached, BoardLimitReached, ShareRevoked
from sors.boards.models import Board, BoardItem
from sors.boards.schemas import (
    BoardDetail,
    BoardItemIn,
    BoardItemOut,
    BoardOut,
    Deleted,
    ItemSaved,
    SharedBoard,
    ShareOut,
)
from sors.boards.schemas import ShareRevoked as Unshared  # the answer, not the error
from sors.catalog.records import repository as catalog_repo
from sors.catalog.records import service as catalog
from sors.catalog.records.build import flat_post
from sors.catalog.records.errors import PostNotFound, ProfileNotFound
from sors.kit.clock import isoformat
from sors.kit.errors import NotFound
from sors.kit.ids import new_id
from sors.kit.security import Signer, TokenError

MAX_BOARDS = 100
MAX_ITEMS = 500
SHARE_PURPOSE = "board-share"
SHARE_PATH = "/api/v1/shared/boards/"


def share_url(base_url: str, board: Board) -> str | None:
    if board.share_token is None:
        return None
    return f"{base_url.rstrip('/')}{SHARE_PATH}{board.share_token}"


async def _owned(
    session: AsyncSession, account_id: str, board_id: str, *, for_update: bool = False
) -> Board:
    board = await repo.get_board(session, account_id, board_id, for_update=for_update)
    if board is None:  # another account's board is indistinguishable from a missing one
        raise NotFound(f"No board {board_id!r} for this account.")
    return board


# ---- boards ---------------------------------------------------------------------------------


async def create_board(
    session: AsyncSession, account_id: str, name: str, base_url: str, now: datetime
) -> BoardOut:
    await repo.lock_account_boards(session, account_id)
    if await repo.count_boards(session, account_id) >= MAX_BOARDS:
        raise BoardLimitReached(
            f"An account can have at most {MAX_BOARDS} boards; delete one first."
        )
    board = Board(id=new_id("brd"), account_id=account_id, name=name, created_at=now,
                  updated_at=now)
    await repo.add(session, board)
    return BoardOut.of(board, 0, share_url(base_url, board))


async def list_boards(session: AsyncSession, account_id: str, base_url: str) -> list[BoardOut]:
    return [BoardOut.of(b, n, share_url(base_url, b))
            for b, n in await repo.list_boards(session, account_id)]


async def get_board(
    session: AsyncSession, account_id: str, board_id: str, base_url: str, now: datetime,
    min_age_hours: float,
) -> BoardDetail:
    """The board with its items (as built, see `BoardItemOut.of`)."""
    board = await _owned(session, account_id, board_id)
    items = await item_records(session, await repo.items(session, board.id), now, min_age_hours)
    out = BoardOut.of(board, len(items), share_url(base_url, board))
    return BoardDetail(**dict(out), items=items)


async def delete_board(session: AsyncSession, account_id: str, board_id: str) -> Deleted:
    board = await _owned(session, account_id, board_id, for_update=True)
    await repo.delete_board(session, board.id)
    return Deleted(id=board_id, status="deleted")


# ---- items ----------------------------------------------------------------------------------


async def add_item(
    session: AsyncSession, account_id: str, board_id: str, body: BoardItemIn, now: datetime,
    min_age_hours: float,
) -> ItemSaved:
    """The item saved (as built, see `BoardItemOut.of`)."""

    board = await _owned(session, account_id, board_id, for_update=True)
    if body.postId is not None:
        if not await catalog_repo.posts_by_ids(session, [body.postId]):
            raise PostNotFound(f"No post with id {body.postId!r}.")
    elif await catalog_repo.get_profile(session, body.profileId) is None:
        raise ProfileNotFound(f"No profile with id {body.profileId!r}.")
    item = await repo.find_item(session, board.id, post_id=body.postId, profile_id=body.profileId)
    created = item is None
    if item is None:
        if await repo.count_items(session, board.id) >= MAX_ITEMS:
            raise BoardItemLimitReached(
                f"A board holds at most {MAX_ITEMS} items; remove some or start another board."
            )
        item = BoardItem(id=new_id("bdi"), board_id=board.id, post_id=body.postId,
                         profile_id=body.profileId, note=body.note, created_at=now,
                         updated_at=now)
        await _take_snapshots(session, [item], now, min_age_hours)
        await repo.add(session, item)
    elif body.note is not None and body.note != item.note:
        item.note = body.note
        item.updated_at = now
    board.updated_at = now
    await session.flush()
    [record] = await item_records(session, [item], now, min_age_hours)
    return ItemSaved(created=created, item=record)


async def delete_item(
    session: AsyncSession, account_id: str, board_id: str, item_id: str, now: datetime
) -> Deleted:
    board = await _owned(session, account_id, board_id, for_update=True)
    if await repo.get_item(session, board.id, item_id) is None:
        raise NotFound(f"No item {item_id!r} on board {board_id!r}.")
    await repo.delete_item(session, item_id)
    board.updated_at = now
    await session.flush()
    return Deleted(id=item_id, status="deleted")


async def item_records(
    session: AsyncSession, items: Sequence[BoardItem], now: datetime, min_age_hours: float
) -> list[BoardItemOut]:
    """Each item with the record it kept when saved. An item saved before records were kept
    takes its snapshot now, once (see migration 0033)."""
    missing = [i for i in items if i.snapshot is None]
    if missing:
        await _take_snapshots(session, missing, now, min_age_hours)
        await session.flush()
    return [BoardItemOut.of(i) for i in items]


async def _take_snapshots(
    session: AsyncSession, items: Sequence[BoardItem], now: datetime, min_age_hours: float
) -> None:
    """Keep on each item its post's or profile's record as the catalog shows it at `now`
    (what search results show: the flattened post, the profile record), read in one
    statement each."""
    posts = await catalog_repo.posts_by_ids(
        session, [i.post_id for i in items if i.post_id is not None]
    )
    profile_rows = await catalog_repo.get_profiles(
        session, [i.profile_id for i in items if i.profile_id is not None]
    )
    profiles = {p.id: p
                for p in await catalog.profile_records(session, list(profile_rows.values()))}
    for i in items:
        record = (flat_post(posts[i.post_id], now, min_age_hours) if i.post_id is not None
                  else profiles[i.profile_id or ""])
        i.snapshot = record.model_dump(mode="json", warnings=False)
        i.saved_at = now


# ---- sharing --------------------------------------------------------------------------------


async def share(
    session: AsyncSession, signer: Signer, account_id: str, board_id: str, base_url: str,
    now: datetime,
) -> ShareOut:
    """The board's share link; the live one when it is already shared."""
    board = await _owned(session, account_id, board_id, for_update=True)
    if board.share_token is None:
        # A fresh nonce: a link revoked before can never come back to life.
        board.share_token = signer.sign(
            SHARE_PURPOSE, {"b": board.id, "n": secrets.token_urlsafe(9)}
        )
        board.shared_at = now
        await session.flush()
    return ShareOut(url=share_url(base_url, board), sharedAt=isoformat(board.shared_at))


async def revoke_share(session: AsyncSession, account_id: str, board_id: str) -> Unshared:
    board = await _owned(session, account_id, board_id, for_update=True)
    board.share_token = None
    board.shared_at = None
    await session.flush()
    return Unshared(id=board.id, share=None)


async def shared_board(
    session: AsyncSession, signer: Signer, token: str, now: datetime, min_age_hours: float
) -> SharedBoard:
    """What a share link shows (as built, see `BoardItemOut.of`). A token that does not
    verify is 404; one that verifies but is no longer the board's live link (revoked, or the
    board deleted) is 410 / 404."""
    try:
        data = signer.verify(SHARE_PURPOSE, token, None)
    except TokenError:
        data = None
    board_id = data.get("b") if isinstance(data, dict) else None
    if not isinstance(board_id, str):
        raise NotFound("This share link is not valid.")
    board = await repo.get_board_by_id(session, board_id)
    if board is None:
        raise NotFound("This board no longer exists.")
    if board.share_token != token:
        raise ShareRevoked("This share link was revoked by the board's owner.")
    items = await item_records(session, await repo.items(session, board.id), now, min_age_hours)
    return SharedBoard(
        id=board.id, name=board.name, itemCount=len(items), items=items,
        sharedAt=isoformat(board.shared_at), updatedAt=isoformat(board.updated_at),
    )

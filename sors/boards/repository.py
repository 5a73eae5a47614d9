"""Every query of boards: boards of an account, their items, and the share token."""

from __future__ import annotations

from sqlalchemy import delete, func, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from sors.boards.models import Board, BoardItem


async def lock_account_boards(session: AsyncSession, account_id: str) -> None:
    # Serialises board creations per account, so two parallel requests cannot both be the
    # last one under the limit (the account row itself stays free for charges).
    await session.execute(
        text("SELECT pg_advisory_xact_lock(hashtext('boards:' || :a))"), {"a": account_id}
    )


async def count_boards(session: AsyncSession, account_id: str) -> int:
    stmt = select(func.count()).select_from(Board).where(Board.account_id == account_id)
    return int((await session.execute(stmt)).scalar_one())


async def get_board(
    session: AsyncSession, account_id: str, board_id: str, *, for_update: bool = False
) -> Board | None:
    """The board when this account owns it (another account's reads as missing). Locked
    for update, it serialises the changes of its items."""
    stmt = select(Board).where(Board.id == board_id, Board.account_id == account_id)
    if for_update:
        stmt = stmt.with_for_update()
    return (await session.execute(stmt)).scalars().first()


async def get_board_by_id(session: AsyncSession, board_id: str) -> Board | None:
    return await session.get(Board, board_id)


async def list_boards(session: AsyncSession, account_id: str) -> list[tuple[Board, int]]:
    """The account's boards, newest first, each with its number of items."""
    counts = (
        select(BoardItem.board_id, func.count().label("n"))
        .group_by(BoardItem.board_id)
        .subquery()
    )
    stmt = (
        select(Board, func.coalesce(counts.c.n, 0))
        .outerjoin(counts, counts.c.board_id == Board.id)
        .where(Board.account_id == account_id)
        .order_by(Board.id.desc())
    )
    return [(b, int(n)) for b, n in (await session.execute(stmt)).all()]


async def items(session: AsyncSession, board_id: str) -> list[BoardItem]:
    """A board's items, the last added first."""
    stmt = select(BoardItem).where(BoardItem.board_id == board_id).order_by(BoardItem.id.desc())
    return list((await session.execute(stmt)).scalars())


async def count_items(session: AsyncSession, board_id: str) -> int:
    stmt = select(func.count()).select_from(BoardItem).where(BoardItem.board_id == board_id)
    return int((await session.execute(stmt)).scalar_one())


async def find_item(
    session: AsyncSession, board_id: str, *, post_id: str | None, profile_id: str | None
) -> BoardItem | None:
    stmt = select(BoardItem).where(BoardItem.board_id == board_id)
    if post_id is not None:
        stmt = stmt.where(BoardItem.post_id == post_id)
    else:
        stmt = stmt.where(BoardItem.profile_id == profile_id)
    return (await session.execute(stmt)).scalars().first()


async def get_item(session: AsyncSession, board_id: str, item_id: str) -> BoardItem | None:
    stmt = select(BoardItem).where(BoardItem.board_id == board_id, BoardItem.id == item_id)
    return (await session.execute(stmt)).scalars().first()


async def add(session: AsyncSession, obj: Board | BoardItem) -> None:
    session.add(obj)
    await session.flush()


async def delete_item(session: AsyncSession, item_id: str) -> None:
    await session.execute(delete(BoardItem).where(BoardItem.id == item_id))


async def delete_board(session: AsyncSession, board_id: str) -> None:
    await session.execute(delete(Board).where(Board.id == board_id))  # its items go with it

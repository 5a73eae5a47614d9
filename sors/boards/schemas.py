"""Board request bodies and records (camelCase; the posts and profiles on a board keep the
catalog's snake_case records)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from sors.boards.models import Board, BoardItem
from sors.catalog.records.schemas import FlatPost, ProfileRecord
from sors.kit.clock import isoformat
from sors.kit.responses import assemble
from sors.kit.schemas import RequestModel, ResponseModel, Timestamp, trimmed_length

NAME_MAX = 100
NOTE_MAX = 1000


class BoardIn(RequestModel):
    name: Annotated[
        str,
        Field(description=f"1-{NAME_MAX} characters after trimming",
              json_schema_extra={"pattern": trimmed_length(1, NAME_MAX)}),
    ]

    @field_validator("name")
    @classmethod
    def _trim(cls, v: str) -> str:
        v = v.strip()
        if not 1 <= len(v) <= NAME_MAX:
            raise ValueError(f"must be 1-{NAME_MAX} characters after trimming")
        return v


def _one_of_targets(schema: dict[str, Any]) -> None:
    """The document states the rule: exactly one of the two ids, each a string (no null)."""
    schema["oneOf"] = [{"required": ["postId"]}, {"required": ["profileId"]}]
    for name in ("postId", "profileId"):
        schema["properties"][name].pop("default", None)


class BoardItemIn(RequestModel):
    """Exactly one of `postId` and `profileId`."""

    model_config = ConfigDict(**RequestModel.model_config, json_schema_extra=_one_of_targets)

    postId: Annotated[str, Field(min_length=1, max_length=64, description="A pst_ id")] = None  # type: ignore[assignment]
    profileId: Annotated[str, Field(min_length=1, max_length=64, description="A prf_ id")] = None  # type: ignore[assignment]
    note: Annotated[
        str | None,
        Field(description=f"Up to {NOTE_MAX} characters after trimming; saving an item that "
                          "is already on the board replaces its note when one is sent",
              json_schema_extra={"pattern": trimmed_length(0, NOTE_MAX)}),
    ] = None

    @field_validator("note")
    @classmethod
    def _note(cls, v: str | None) -> str | None:
        if v is None:
            return None
        v = v.strip()
        if len(v) > NOTE_MAX:
            raise ValueError(f"must be at most {NOTE_MAX} characters after trimming")
        return v or None

    @model_validator(mode="after")
    def _one_target(self) -> BoardItemIn:
        if (self.postId is None) == (self.profileId is None):
            raise ValueError("send exactly one of postId and profileId")
        return self


# ---- records --------------------------------------------------------------------------------


class ShareOut(ResponseModel):
    url: str = Field(description="The read-only link: GET it with no key (JSON, or CSV for "
                                 "`Accept: text/csv`) until the share is revoked")
    sharedAt: Timestamp


class BoardOut(ResponseModel):
    id: str = Field(examples=["brd_01jc7m0c2v8m3k2q3w4e5r6t7y"])
    name: str
    itemCount: int
    share: ShareOut | None = Field(description="The live share link; null when not shared")
    createdAt: Timestamp
    updatedAt: Timestamp

    @classmethod
    def of(cls, board: Board, item_count: int, share_url: str | None) -> BoardOut:
        share = None
        if share_url is not None:
            share = ShareOut(url=share_url, sharedAt=isoformat(board.shared_at))
        return cls(
            id=board.id, name=board.name, itemCount=item_count, share=share,
            createdAt=isoformat(board.created_at), updatedAt=isoformat(board.updated_at),
        )


class BoardList(ResponseModel):
    results: list[BoardOut]


class BoardItemOut(ResponseModel):
    id: str = Field(examples=["bdi_01jc7m0c2v8m3k2q3w4e5r6t7y"])
    kind: Literal["post", "profile"]
    note: str | None
    addedAt: Timestamp
    updatedAt: Timestamp
    savedAt: Timestamp = Field(
        description="When the item's record was taken: when it was saved (saving it again "
        "changes only its note)")
    post: FlatPost | None = Field(
        description="kind post: the post's record as it was at `savedAt`")
    profile: ProfileRecord | None = Field(
        description="kind profile: the profile's record as it was at `savedAt`")

    @classmethod
    def of(cls, item: BoardItem) -> BoardItemOut:
        """The item with the record it keeps (its snapshot), rebuilt as the catalog built it:
        not validated again, which would only rewrite whole numbers (a projection's views)
        as floats. Routes answering one render it as it is (`ModelResponse`)."""
        record = item.snapshot or {}
        is_post = item.post_id is not None
        return cls(
            id=item.id, kind="post" if is_post else "profile",
            note=item.note, addedAt=isoformat(item.created_at),
            updatedAt=isoformat(item.updated_at), savedAt=isoformat(item.saved_at),
            post=rebuilt(FlatPost, record) if is_post else None,
            profile=None if is_post else rebuilt(ProfileRecord, record),
        )


M = TypeVar("M", bound=BaseModel)


def rebuilt(model: type[M], data: Mapping[str, Any]) -> M:
    """`model` again from its JSON dump (a snapshot): its fields in the model's order (JSONB
    keeps no key order), nested models rebuilt too, nothing validated (the dump was the
    model's own)."""
    return assemble(model, {
        name: _rebuilt_value(info.annotation, data[name])
        for name, info in model.model_fields.items() if name in data
    })


def _rebuilt_value(annotation: Any, value: Any) -> Any:
    nested = next((t for t in (annotation, *get_args(annotation))
                   if isinstance(t, type) and issubclass(t, BaseModel)), None)
    if nested is None:
        return value
    if isinstance(value, dict):
        return rebuilt(nested, value)
    if isinstance(value, list):
        return [rebuilt(nested, v) if isinstance(v, dict) else v for v in value]
    return value


class BoardDetail(BoardOut):
    items: list[BoardItemOut] = Field(description="The last added first")


class SharedBoard(ResponseModel):
    """What a share link shows: the board's name and items, read-only."""

    id: str
    name: str
    itemCount: int
    items: list[BoardItemOut]
    sharedAt: Timestamp
    updatedAt: Timestamp


class ItemSaved(ResponseModel):
    created: bool = Field(description="false: the post or profile was already on the board")
    item: BoardItemOut


class Deleted(ResponseModel):
    id: str
    status: Literal["deleted"]


class ShareRevoked(ResponseModel):
    id: str = Field(description="The board")
    share: None = Field(description="Always null: the board is no longer shared")

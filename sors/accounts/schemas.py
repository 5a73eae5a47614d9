"""Request and response models of the keys endpoints."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from sors.accounts.keys import KeyView
from sors.kit.clock import isoformat
from sors.kit.schemas import RequestModel, ResponseModel

Cap = Annotated[int | None, Field(ge=0, le=1_000_000_000)]
Name = Annotated[str | None, Field(max_length=100)]


class KeyIn(RequestModel):
    name: Name = None
    dailyCreditCap: Cap = None


class KeyPatch(RequestModel):
    name: Name = None
    dailyCreditCap: Cap = None


class KeyOut(ResponseModel):
    keyId: str
    prefix: str = Field(description="The first characters of the key; the key itself is "
                                    "shown only once, at creation.")
    name: str | None
    dailyCreditCap: int | None = Field(description="Credits this key may spend per UTC day; "
                                                   "null = no cap.")
    spentToday: int = Field(description="Credits charged through this key today (UTC).")
    createdAt: str | None
    current: bool = Field(description="True for the key that made this request.")


class KeyCreated(KeyOut):
    apiKey: str = Field(description="The key itself (sors_…); shown only now.")


class KeyList(ResponseModel):
    results: list[KeyOut]


class KeyRevoked(ResponseModel):
    keyId: str
    status: str = "revoked"


def key_out(view: KeyView, current_key_id: str) -> KeyOut:
    k = view.key
    return KeyOut(
        keyId=k.id, prefix=k.prefix, name=k.name, dailyCreditCap=k.daily_credit_cap,
        spentToday=view.spent_today, createdAt=isoformat(k.created_at),
        current=k.id == current_key_id,
    )


def key_created(view: KeyView, current_key_id: str, secret: str) -> KeyCreated:
    return KeyCreated(**key_out(view, current_key_id).model_dump(), apiKey=secret)

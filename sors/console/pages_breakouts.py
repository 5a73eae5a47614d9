"""Breakouts: ideas several creators of one niche each turned into an outlier."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from fastapi import Request
from fastapi.responses import Response

from sors.console import apicall
from sors.console.apicall import BodyValue
from sors.console.pages_search import PLATFORMS, _number
from sors.console.render import page
from sors.console.routing import User, console_router

router = console_router()

KINDS = ("hashtag", "phrase", "format", "sound")
# The fields every breakout has, drawn in their own columns; any other number the API adds
# (a lift, the shares it compares) gets a column of its own, named from its key.
SHOWN = {"kind", "idea", "categoryId", "creatorCount", "postCount", "medianScore", "firstPost",
         "latestPost", "evidence"}


@dataclass(frozen=True)
class Column:
    """A figure beyond the known ones: its key, its heading, how to show its values."""

    key: str
    label: str
    style: Literal["lift", "share", "number"]


def breakouts_body(request: Request) -> dict[str, BodyValue]:
    q = request.query_params
    body: dict[str, BodyValue] = {}
    for name in ("categoryId", "timeFrame", "scoreWindow"):
        if q.get(name):
            body[name] = q[name]
    for name in ("platforms", "kinds"):
        if q.getlist(name):
            body[name] = q.getlist(name)
    for name in ("minCreators", "minScore"):
        if q.get(name, "").strip():
            body[name] = _number(q[name].strip())
    return body


def _label(key: str) -> str:
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", key).lower()
    return words[:1].upper() + words[1:]


def extra_columns(breakouts: Sequence[Mapping[str, Any]]) -> list[Column]:
    """The numeric fields beyond the known ones, in the order the API sends them, each with
    how to show it: a lift as a multiple, a share as a percentage, anything else as is."""
    keys: dict[str, None] = {}
    for b in breakouts:
        for key, value in b.items():
            if key not in SHOWN and isinstance(value, int | float) and not isinstance(value, bool):
                keys.setdefault(key)
    return [Column(key, _label(key), _style(key)) for key in keys]


def _style(key: str) -> Literal["lift", "share", "number"]:
    named = key.lower()
    return "lift" if "lift" in named else "share" if "share" in named else "number"


def category_choices(categories: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """(id, label) per category, a child labelled under its parent ("Food › Baking")."""
    names = {c["id"]: c["name"] for c in categories}
    return [(c["id"], f"{names[c['parentId']]} › {c['name']}" if c.get("parentId") in names
             else c["name"]) for c in categories]


@router.get("/breakouts")
async def breakouts(request: Request, user: User) -> Response:
    categories = await apicall.call(request, user.principal, "GET", "/api/v1/categories")
    result = None
    if request.query_params:  # each submitted form is one paid call
        result = await apicall.call(request, user.principal, "POST", "/api/v1/trends/breakouts",
                                    json=breakouts_body(request))
    data = result.data if result is not None and result.ok else None
    return page(request, "breakouts.html.j2", title="Breakouts", form=request.query_params,
                result=result, data=data,
                categories=category_choices(categories.data) if categories.ok else [],
                columns=extra_columns(data["breakouts"]) if data else [],
                platforms=PLATFORMS, kinds=KINDS,
                status=result.status if result is not None and not result.ok else 200)

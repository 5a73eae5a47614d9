"""Request bodies of the enrichment endpoints and the stored records' contract shapes."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, ConfigDict, Field

from sors.catalog.responses import TranscriptOut, VisualAnalysisOut  # noqa: F401
from sors.enrichment.models import PostMedia
from sors.enrichment.responses import (  # noqa: F401  (the domain's models, in one place)
    JobQueued,
    MediaItem,
    MediaReady,
    TranscriptCompleted,
)
from sors.kit.schemas import RequestModel


def _blank_to_none(v: str | None) -> str | None:
    if v is None:
        return None
    v = v.strip()
    return v or None


# A blank string counts as absent, so `{"url": ""}` is `missing_target`, not a bad URL.
OptionalText = Annotated[str | None, Field(max_length=2048), AfterValidator(_blank_to_none)]


# "Supply one of": `url`, `postId`, or both. Said with if/then rather than anyOf, which
# client generators turn into an untyped body.
TARGET_RULE = {"if": {"not": {"required": ["url"]}}, "then": {"required": ["postId"]}}


class TargetIn(RequestModel):
    """A post named by its public URL, by its id, or by both (which must agree). Neither (or
    only blank ones): 422 `missing_target`."""

    model_config = ConfigDict(json_schema_extra=TARGET_RULE)

    url: OptionalText = None
    postId: OptionalText = None  # the contract's field name


# ---- records (docs/API.md) ---------------------------------------------------------------


def media_item(m: PostMedia, url: str) -> dict[str, Any]:
    return {
        "kind": m.kind,
        "url": url,
        "position": m.position,
        "contentType": m.content_type,
        "width": m.width,
        "height": m.height,
        "durationSeconds": m.duration_seconds,
    }

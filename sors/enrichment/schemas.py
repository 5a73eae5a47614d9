"""Request bodies of the enrichment endpoints and the stored records' contract shapes."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, ConfigDict, Field

from sors.enrichment.models import PostMedia, TranscriptRecord, VisualAnalysisRecord
from sors.enrichment.responses import (  # noqa: F401  (the domain's models, in one place)
    JobQueued,
    MediaItem,
    MediaReady,
    TranscriptCompleted,
    TranscriptOut,
    VisualAnalysisOut,
)
from sors.kit.clock import isoformat
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


SEGMENT_KEYS = ("start", "end", "text")
SCENE_KEYS = ("index", "start", "end", "on_screen_text", "dominant_colors")


def _pick(item: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    # JSONB stores keys in its own order; answer in the documented one.
    return {k: item.get(k) for k in keys}


def transcript_record(t: TranscriptRecord) -> dict[str, Any]:
    return {
        "text": t.text,
        "language": t.language,
        "source": t.source,
        "segments": [_pick(seg, SEGMENT_KEYS) for seg in t.segments or []],
        "created_at": isoformat(t.created_at),
    }


def visual_analysis_record(v: VisualAnalysisRecord) -> dict[str, Any]:
    return {
        "scene_count": v.scene_count,
        "avg_scene_seconds": v.avg_scene_seconds,
        "scenes": [_pick(scene, SCENE_KEYS) for scene in v.scenes or []],
        "on_screen_text": v.on_screen_text,
        "created_at": isoformat(v.created_at),
    }


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

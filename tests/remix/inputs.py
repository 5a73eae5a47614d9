"""Remix inputs from JSON-shaped transcript segments and scenes, as the catalog keeps them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sors.enrichment.analysis import Scene, TranscriptSegment
from sors.remix.engines import RemixInput


def remix_input(
    *, transcript_segments: Sequence[Mapping[str, Any]] = (),
    scenes: Sequence[Mapping[str, Any]] = (), **values: Any,
) -> RemixInput:
    return RemixInput(
        transcript_segments=[TranscriptSegment.from_json(s) for s in transcript_segments],
        scenes=[Scene.from_json(s) for s in scenes],
        **values,
    )

"""The remix a job produces: inputs, the validated result, and the engine's error.

A `Remix` holds exactly the `remix` object of get_remix_result (docs/API.md) but `kept`. Both
engines build a `Remix`, so the invariants below hold whatever wrote it: every text field is
non-empty, segments are numbered 1..n, start at 0 and follow each other without gaps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, StringConstraints, model_validator

from sors.catalog.records.analysis_schemas import StoodOut
from sors.enrichment.analysis import Scene, TranscriptSegment

MAX_SEGMENTS = 40
MAX_TOTAL_SECONDS = 4 * 3600.0  # long YouTube videos; short-form stays far below
# An LLM's arithmetic drifts by a rounding step or two; within this, boundaries are snapped.
TIMING_TOLERANCE = 0.5

RemixErrorCode = Literal["llm_unavailable", "llm_bad_output", "remix_input_insufficient"]


class RemixError(Exception):
    """A remix could not be produced. `message` is safe to show to the API caller."""

    def __init__(self, code: RemixErrorCode, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code: RemixErrorCode = code
        self.message = message

    @property
    def retryable(self) -> bool:
        # A model endpoint that is down may be back on the job's next attempt; bad output after
        # three tries and an input with nothing to adapt will not improve.
        return self.code == "llm_unavailable"



@dataclass(frozen=True, kw_only=True)
class RemixInput:
    """What a remix job knows about the source post, plus what the caller asked for.

    `transcript_segments` and `scenes`: the post's transcript and visual analysis.
    `target_niche` arrives trimmed and 5-500 chars long, `tone` at most 100 chars.
    """

    platform: str
    content_type: str
    caption: str = ""
    duration_seconds: float | None = None
    views: int | None = None
    outlier_score: float | None = None
    handle: str = ""
    transcript_text: str | None = None
    transcript_segments: list[TranscriptSegment] = field(default_factory=list)
    scenes: list[Scene] = field(default_factory=list)
    target_niche: str
    tone: str | None = None
    # What stood out in the source against its creator's usual (its kept analysis, when
    # one was made): the remix keeps these. `keep_hook_type` is the analysed hook's type.
    keep_hook_type: str | None = None
    keep: list[StoodOut] = field(default_factory=list)

    def keep_line(self) -> str | None:
        """One sentence naming what the remix keeps, from the analysis's evidence."""
        if self.keep_hook_type is None and not self.keep:
            return None
        parts = []
        if self.keep_hook_type:
            parts.append(f"the {self.keep_hook_type.replace('_', ' ')} hook")
        for item in self.keep:
            if item.name != "hookType":
                parts.append(f"{item.label} ({item.value})")
        why = " — it stood out against the creator's usual" if self.keep else ""
        return "Keep " + ", ".join(parts) + why + "."

    def has_material(self) -> bool:
        """True when there is any text to adapt (speech, on-screen text or caption)."""
        if (self.transcript_text or "").strip() or (self.caption or "").strip():
            return True
        if any(s.text.strip() for s in self.transcript_segments):
            return True
        return any(s.on_screen_text.strip() for s in self.scenes)


def _limit(max_length: int) -> StringConstraints:
    return StringConstraints(strip_whitespace=True, min_length=1, max_length=max_length)


Label = Annotated[str, _limit(80)]
ShortText = Annotated[str, _limit(300)]
OnScreenText = Annotated[str, _limit(500)]
LongText = Annotated[str, _limit(2000)]
Voiceover = Annotated[str, _limit(4000)]
Description = Annotated[str, _limit(3000)]
ChecklistItem = Annotated[str, _limit(500)]


class ScriptSegment(BaseModel):
    # LLMs answer in snake_case now and then; accept it, always emit camelCase.
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    segment: int = Field(ge=1)
    label: Label
    startSecond: float = Field(
        ge=0, validation_alias=AliasChoices("startSecond", "start_second", "start")
    )
    endSecond: float = Field(gt=0, validation_alias=AliasChoices("endSecond", "end_second", "end"))
    visual: LongText
    voiceover: Voiceover
    onScreenText: OnScreenText = Field(
        validation_alias=AliasChoices("onScreenText", "on_screen_text", "onscreenText")
    )

    @model_validator(mode="after")
    def _ordered(self) -> ScriptSegment:
        if self.endSecond <= self.startSecond:
            raise ValueError(
                f"segment {self.segment}: endSecond ({self.endSecond}) must be greater than "
                f"startSecond ({self.startSecond})"
            )
        return self


class RemixDraft(BaseModel):
    """The remix without `engine`: what a model is asked to write."""

    model_config = ConfigDict(extra="ignore")

    title: ShortText
    description: Description
    script: list[ScriptSegment] = Field(min_length=1, max_length=MAX_SEGMENTS)
    checklist: list[ChecklistItem] = Field(min_length=3, max_length=10)

    @model_validator(mode="after")
    def _timeline(self) -> RemixDraft:
        previous_end = 0.0
        for i, seg in enumerate(self.script):
            if seg.segment != i + 1:
                raise ValueError(f"script[{i}].segment must be {i + 1}, not {seg.segment}")
            if abs(seg.startSecond - previous_end) > TIMING_TOLERANCE:
                where = "0" if i == 0 else f"segment {i}'s endSecond ({previous_end})"
                raise ValueError(
                    f"segment {seg.segment} starts at {seg.startSecond}; segments must be "
                    f"contiguous, so it must start at {where}"
                )
            seg.startSecond = previous_end
            if seg.endSecond <= seg.startSecond:
                raise ValueError(f"segment {seg.segment} has no duration")
            previous_end = seg.endSecond
        if previous_end > MAX_TOTAL_SECONDS:
            raise ValueError(f"the script runs {previous_end} s; at most {MAX_TOTAL_SECONDS} s")
        return self


class Remix(RemixDraft):
    engine: ShortText

    @classmethod
    def from_draft(cls, draft: RemixDraft, engine: str) -> Remix:
        return cls.model_validate({**draft.model_dump(), "engine": engine})

    @property
    def total_seconds(self) -> float:
        return self.script[-1].endSecond

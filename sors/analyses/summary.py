"""The evidence behind each stood-out feature, and the offline summary built from the
findings (sors.analyses.findings, written by sors.analyses.sentences).

The summary is sentences filled from the evidence only; the LLM engine (engine_llm) may
phrase it differently, but `numbers_check` rejects any number it writes that the evidence
does not hold.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from sors.analyses.baseline import Standout
from sors.analyses.features import FeatureSpec
from sors.analyses.wording import count, decimal, times, value_text
from sors.catalog.records.analysis_schemas import Analysis, Coverage, Hook, StoodOut, Timespan
from sors.enrichment.analysis import Scene

OFFLINE_ENGINE = "sors-offline-analysis-v1"
HOOK_FEATURES = frozenset({"hookType", "hookWords"})
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:[.,]\d+)?")


def with_evidence(s: Standout, hook: Hook | None, scenes: Sequence[Scene] | None) -> StoodOut:
    """The stood-out feature with the timestamps and transcript line that show it."""
    f = s.feature
    timestamps: list[Timespan] = []
    line = None
    if (f.name in HOOK_FEATURES and hook and hook.startSecond is not None
            and hook.endSecond is not None):
        timestamps = [Timespan(startSecond=hook.startSecond, endSecond=hook.endSecond)]
        line = hook.text
    elif f.name in ("timeToFirstCut", "cutsPerMinute") and scenes:
        timestamps = [Timespan(startSecond=sc.start, endSecond=sc.end) for sc in scenes]
    return StoodOut(
        name=f.name, label=f.label, unit=f.unit, value=f.value, baseline=f.baseline,
        percentile=f.percentile, outliers=s.outliers, ordinary=s.ordinary,
        strength=s.strength, timestamps=timestamps, transcriptLine=line,
    )


_SOURCE = {"speech": "spoken", "on_screen_text": "on screen", "caption": "the caption's opening"}


def hook_sentence(hook: Hook | None) -> str:
    """The hook as the viewer met it, where it came from and when."""
    if hook is None or not hook.text:
        return ""
    kind = value_text("hookType", "", hook.type or "other")
    where = _SOURCE.get(hook.source or "", "")
    heard = [s for s in hook.supportedBy if s != "caption"]
    if hook.source == "on_screen_text" and heard:
        where += " and heard"
    if hook.startSecond is not None and hook.endSecond is not None and hook.source != "caption":
        where += f", {decimal(hook.startSecond, 2)}-{decimal(hook.endSecond, 2)} s"
    if "caption" in hook.supportedBy:
        where += "; the caption says it too"
    return f"Its hook is \u201c{hook.text}\u201d ({where}), {kind}."


def _head(a: Analysis) -> str:
    head = (f"This post scored {times(a.score)} its creator's usual views."
            if a.score is not None else "This post has no outlier score yet.")
    if a.basis == "metadata":
        head += (" Its media could not be fetched, so this reads what the catalog already "
                 "holds: its caption, numbers, timing and its creator's history.")
    return head


# Said first on a post flagged `engagement_anomaly` (catalog.ingest.scoring), whoever phrases
# the rest: its views are likely bought, so what "worked" is no idea to copy.
ANOMALY_NOTE = (
    "Careful: its likes and comments per view sit far below the creator's usual, the shape "
    "of promoted or botted views; read it as an anomaly, not an idea to copy."
)


def with_anomaly_note(summary: str, anomaly: bool) -> str:
    if not anomaly or summary.startswith(ANOMALY_NOTE):
        return summary
    return f"{ANOMALY_NOTE} {summary}"


def offline_summary(
    a: Analysis, thin: Sequence[tuple[FeatureSpec, Coverage]], enough: bool,
    brief: Sequence[str] = (),
) -> str:
    """Sentences filled from the breakdown's evidence only (`brief`: the findings as said
    after the comparison is named; their own texts otherwise)."""
    parts = [_head(a)]
    c = a.comparison
    if c is None or c.postCount == 0:
        parts.append("There are no other posts to compare it with yet.")
        return " ".join(p for p in [*parts, hook_sentence(a.hook)] if p)
    why = f" ({c.reason})" if c.reason else ""
    parts.append(f"Compared with {c.text}{why}:")
    parts.append(hook_sentence(a.hook))
    said = list(brief) if len(brief) == len(a.findings) else [f.text for f in a.findings]
    unusual = [t for f, t in zip(a.findings, said, strict=True) if f.kind == "unusual"]
    shared = [t for f, t in zip(a.findings, said, strict=True) if f.kind == "shared"]
    parts += unusual
    if not unusual:
        parts.append("Nothing stood out: no feature of it sits at or beyond the 10th or 90th "
                     "percentile of those posts.")
        if shared:
            parts.append("What it shares with their outliers:")
        elif enough:
            parts.append("Nor does it share a feature with their outliers more than with "
                         "their other posts.")
        else:
            outliers = c.outlierCount
            parts.append(f"They hold {count(outliers, 'outlier')}, too few to tell what "
                         "separates outliers from the other posts.")
    parts += shared
    if a.findings and c.outlierCount == 0:
        parts.append("Not one of those posts is an outlier, so this cannot tell whether "
                     "outliers share what it does.")
    if thin:
        listed = ", ".join(f"{spec.label} ({cov.measured} of {cov.posts})" for spec, cov in thin)
        parts.append(f"Measured the same way on too few posts to compare: {listed}.")
    return " ".join(p for p in parts if p)


def _numbers(text: str) -> list[float]:
    return [float(n.replace(",", ".")) for n in _NUMBER.findall(text)]


def _walk(obj: object) -> Iterable[object]:
    if isinstance(obj, dict):
        for v in obj.values():
            yield from _walk(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _walk(v)
    else:
        yield obj


def evidence_numbers(evidence: object) -> set[float]:
    """Every number the evidence holds, as itself, as a percentage of a share, and in the
    texts it quotes (a hook that says "3 habits")."""
    out: set[float] = set()
    for v in _walk(evidence):
        if isinstance(v, bool) or v is None:
            continue
        if isinstance(v, int | float):
            out.add(float(v))
            if 0 <= v <= 1:
                out.add(round(100 * float(v)))
        elif isinstance(v, str):
            out.update(_numbers(v))
    return out


def numbers_check(text: str, evidence: object) -> list[float]:
    """The numbers in `text` the evidence does not hold (rounding to the evidence's
    precision, up to one decimal, is allowed). Empty: the text may be shown."""
    known = evidence_numbers(evidence)
    foreign = []
    for n in _numbers(text):
        if not any(abs(n - k) <= 0.051 or round(k) == n for k in known):
            foreign.append(n)
    return foreign

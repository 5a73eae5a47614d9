"""The evidence behind each stood-out feature, and the offline summary built from it.

The summary is sentences filled from the evidence only; the LLM engine (engine_llm) may
phrase it differently, but `numbers_check` rejects any number it writes that the evidence
does not hold.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from sors.analyses.baseline import Standout
from sors.analyses.hooks import HOOK_LABELS
from sors.catalog.records.analysis_schemas import Hook, StoodOut, Timespan
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


def _fmt(v: object) -> str:
    if isinstance(v, float):
        return f"{v:.1f}".rstrip("0").rstrip(".") if v != int(v) else str(int(v))
    return str(v)


def _value_text(item: StoodOut) -> str:
    name, v = item.name, item.value
    if name == "hookType":
        return f"a {HOOK_LABELS.get(str(v), v)} hook"
    if isinstance(v, bool):
        return f"{'a' if v else 'no'} {item.label}"
    if name == "publishHour":
        return f"publishing at {v}:00 UTC"
    unit = f" {item.unit}" if item.unit else ""
    return f"{item.label} of {_fmt(v)}{unit}"


def _sentence(item: StoodOut) -> str:
    b = item.baseline
    assert b is not None  # a feature stands out against a baseline
    out, usual = item.outliers, item.ordinary
    if b.median is not None:
        base = f"the creator's median is {_fmt(b.median)}, percentile {_fmt(item.percentile)}"
        side = "the same side of the median"
    else:
        base = f"{_fmt(round(100 * (b.share or 0.0)))}% of the creator's posts do the same"
        side = "the same"
    where = ""
    if item.transcriptLine and item.timestamps:
        t = item.timestamps[0]
        where = f' ("{item.transcriptLine}", {_fmt(t.startSecond)}-{_fmt(t.endSecond)} s)'
    return (
        f"It has {_value_text(item)}{where}; {base}. "
        f"{_fmt(round(100 * out.share))}% of their {out.postCount} outliers are on "
        f"{side}, against {_fmt(round(100 * usual.share))}% of their "
        f"{usual.postCount} ordinary posts."
    )


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
    score: float | None, peer_count: int, outlier_count: int, stood_out: Sequence[StoodOut]
) -> str:
    head = (
        f"This post scored {_fmt(round(score, 1))}x its creator's usual views"
        if score is not None
        else "This post has no outlier score yet"
    )
    head += f", compared with {peer_count} of their other posts."
    if not stood_out:
        why = (
            " Nothing in it departs from the creator's usual in a way that also separates "
            "their outliers from their ordinary posts."
        )
        if outlier_count < 2:
            why = (
                f" The creator has {outlier_count} other outliers, too few "
                "to tell what separates them from their ordinary posts."
            )
        return head + why
    return " ".join([head, *(_sentence(i) for i in stood_out)])


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

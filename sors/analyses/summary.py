"""The evidence behind each stood-out feature, and the offline summary built from it.

The summary is sentences filled from the evidence only; the LLM engine (engine_llm) may
phrase it differently, but `numbers_check` rejects any number it writes that the evidence
does not hold.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from sors.analyses.hooks import HOOK_LABELS

OFFLINE_ENGINE = "sors-offline-analysis-v1"
HOOK_FEATURES = frozenset({"hookType", "hookWords"})
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:[.,]\d+)?")


def with_evidence(
    item: dict[str, Any], hook: dict[str, Any] | None, scenes: list[dict[str, Any]] | None
) -> dict[str, Any]:
    """The stood-out item with the timestamps and transcript line that show it."""
    timestamps: list[dict[str, float]] = []
    line = None
    if item["name"] in HOOK_FEATURES and hook and hook.get("startSecond") is not None:
        timestamps = [{"startSecond": hook["startSecond"], "endSecond": hook["endSecond"]}]
        line = hook["text"]
    elif item["name"] in ("timeToFirstCut", "cutsPerMinute") and scenes:
        timestamps = [
            {"startSecond": float(s["start"]), "endSecond": float(s["end"])} for s in scenes
        ]
    return {**item, "timestamps": timestamps, "transcriptLine": line}


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.1f}".rstrip("0").rstrip(".") if v != int(v) else str(int(v))
    return str(v)


def _value_text(item: dict[str, Any]) -> str:
    name, v = item["name"], item["value"]
    if name == "hookType":
        return f"a {HOOK_LABELS.get(v, v)} hook"
    if isinstance(v, bool):
        return f"{'a' if v else 'no'} {item['label']}"
    if name == "publishHour":
        return f"publishing at {v}:00 UTC"
    unit = f" {item['unit']}" if item.get("unit") else ""
    return f"{item['label']} of {_fmt(v)}{unit}"


def _sentence(item: dict[str, Any]) -> str:
    b = item["baseline"]
    out, usual = item["outliers"], item["ordinary"]
    if "median" in b:
        base = f"the creator's median is {_fmt(b['median'])}, percentile {_fmt(item['percentile'])}"
        side = "the same side of the median"
    else:
        base = f"{_fmt(round(100 * b['share']))}% of the creator's posts do the same"
        side = "the same"
    where = ""
    if item.get("transcriptLine") and item.get("timestamps"):
        t = item["timestamps"][0]
        where = f' ("{item["transcriptLine"]}", {_fmt(t["startSecond"])}-{_fmt(t["endSecond"])} s)'
    return (
        f"It has {_value_text(item)}{where}; {base}. "
        f"{_fmt(round(100 * out['share']))}% of their {out['postCount']} outliers are on "
        f"{side}, against {_fmt(round(100 * usual['share']))}% of their "
        f"{usual['postCount']} ordinary posts."
    )


def offline_summary(context: dict[str, Any], stood_out: list[dict[str, Any]]) -> str:
    score = context.get("score")
    head = (
        f"This post scored {_fmt(round(score, 1))}x its creator's usual views"
        if score is not None
        else "This post has no outlier score yet"
    )
    head += f", compared with {context['peerCount']} of their other posts."
    if not stood_out:
        why = (
            " Nothing in it departs from the creator's usual in a way that also separates "
            "their outliers from their ordinary posts."
        )
        if context.get("outlierCount", 0) < 2:
            why = (
                f" The creator has {context.get('outlierCount', 0)} other outliers, too few "
                "to tell what separates them from their ordinary posts."
            )
        return head + why
    return " ".join([head, *(_sentence(i) for i in stood_out)])


def _numbers(text: str) -> list[float]:
    return [float(n.replace(",", ".")) for n in _NUMBER.findall(text)]


def _walk(obj: Any) -> Iterable[Any]:
    if isinstance(obj, dict):
        for v in obj.values():
            yield from _walk(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _walk(v)
    else:
        yield obj


def evidence_numbers(evidence: Any) -> set[float]:
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


def numbers_check(text: str, evidence: Any) -> list[float]:
    """The numbers in `text` the evidence does not hold (rounding to the evidence's
    precision, up to one decimal, is allowed). Empty: the text may be shown."""
    known = evidence_numbers(evidence)
    foreign = []
    for n in _numbers(text):
        if not any(abs(n - k) <= 0.051 or round(k) == n for k in known):
            foreign.append(n)
    return foreign

"""What is true to say about a post: each feature against the right group of posts, measured
the same way, and the findings that follow (docs/API.md, "Findings").

- The group: the creator's own posts when they are enough to tell outliers from the rest
  (MIN_OUTLIERS outliers and MIN_ORDINARY others), otherwise the niche's (posts of similar
  creators of a similar age, sors.analyses.cohort). Per feature, only the posts where it was
  measured the way it was on this post count (speech features among transcribed posts,
  scene features among analysed ones); with fewer than MIN_MEASURED of them the feature
  falls back to the other group, else it is not compared and its coverage says why.
- unusual: the post sits at or beyond the group's 10th or 90th percentile (numeric), or has
  a value at most RARE of the group's posts have (others). Each says how the group's
  outliers and other posts fall on the same side.
- shared: a value the group's outliers have clearly more often than its other posts
  (SHARED_SEPARATION), which this post has too.
- stoodOut keeps its rule (sors.analyses.baseline): departure and separation together.

Pure functions; the sentences are written by sors.analyses.sentences.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sors.analyses import sentences
from sors.analyses.baseline import (
    MAX_STOOD_OUT,
    MIN_DEPARTURE,
    MIN_ORDINARY,
    MIN_OUTLIERS,
    MIN_SEPARATION,
    Found,
    Peer,
    Standout,
    categorical,
    num,
    numeric,
    same_value,
)
from sors.analyses.features import FEATURES, FeatureSpec, FeatureValue
from sors.analyses.wording import display
from sors.catalog.records.analysis_schemas import (
    AnalysisComparison,
    Coverage,
    FeatureOut,
    Finding,
    Group,
    GroupShare,
    Split,
)

MIN_MEASURED = 8
TAIL = 10.0  # percent at each end
RARE = 0.10
SHARED_SEPARATION = 0.25
MAX_UNUSUAL = 5
MAX_SHARED = 3


@dataclass(frozen=True)
class Cohort:
    """A group of posts to compare with, and how it is named."""

    group: Group
    peers: list[Peer]
    comparison: AnalysisComparison

    @property
    def enough(self) -> bool:
        """Enough to tell its outliers from its other posts."""
        outliers = sum(1 for p in self.peers if p.outlier)
        return outliers >= MIN_OUTLIERS and len(self.peers) - outliers >= MIN_ORDINARY


@dataclass(frozen=True)
class Compared:
    rows: list[FeatureOut]
    standouts: list[Standout]
    findings: list[Finding]
    thin: list[tuple[FeatureSpec, Coverage]]  # measured on too few posts to compare
    brief: list[str]  # the findings as the summary says them, after naming the comparison


@dataclass(frozen=True)
class _Set:
    cohort: Cohort
    peers: list[Peer]  # measured the same way


def _measured(peers: Sequence[Peer], name: str, way: str | None) -> list[Peer]:
    return [p for p in peers if p.values.get(name) is not None and p.measured.get(name) == way]


def _choose(primary: Cohort, other: Cohort | None, name: str, way: str | None) -> _Set | None:
    """The group a feature is compared in: the primary when enough of its posts were
    measured the same way, else the other, else the primary with no outliers to tell."""
    first = _Set(primary, _measured(primary.peers, name, way))
    second = _Set(other, _measured(other.peers, name, way)) if other else None
    for choice in (first, second):
        if choice and len(choice.peers) >= MIN_MEASURED and _splittable(choice.peers):
            return choice
    for choice in (first, second):
        if choice and len(choice.peers) >= MIN_MEASURED:
            return choice
    return None


def _splittable(peers: Sequence[Peer]) -> bool:
    outliers = sum(1 for p in peers if p.outlier)
    return outliers >= MIN_OUTLIERS and len(peers) - outliers >= MIN_ORDINARY


def _split(group: list[Peer], on: Callable[[Peer], bool]) -> Split | None:
    if not group:
        return None
    n = sum(1 for p in group if on(p))
    return Split(postCount=len(group), count=n, share=round(n / len(group), 3))


def _tail(spec: FeatureSpec, value: FeatureValue, found: Found) -> Callable[[Peer], bool] | None:
    """Who is on the post's side when it is unusual (None when it is not)."""
    if spec.kind == "numeric":
        pct, med = found.percentile, found.baseline.median
        v = num(value)
        if pct is None or med is None or v == med:
            return None
        if pct <= TAIL:
            return lambda p: num(p.values[spec.name]) <= v
        if pct >= 100 - TAIL:
            return lambda p: num(p.values[spec.name]) >= v
        return None
    if (found.baseline.share or 0.0) <= RARE:
        return lambda p: same_value(spec, p.values[spec.name], value)
    return None


def _middle(spec: FeatureSpec, value: FeatureValue, found: Found) -> Callable[[Peer], bool]:
    """Who is on the post's side in general (numeric: the same side of the median)."""
    if spec.kind == "numeric":
        med = found.baseline.median or 0.0
        above = num(value) > med
        return lambda p: (num(p.values[spec.name]) > med) == above
    return lambda p: same_value(spec, p.values[spec.name], value)


def _coverage(cohort: Cohort, name: str, way: str | None, used: int) -> Coverage | None:
    if way in (None, "metadata"):
        return None
    everyone = len(cohort.peers)
    return None if used >= everyone else Coverage(measured=used, posts=everyone,
                                                  method=str(way))


def compare(
    values: dict[str, FeatureValue], measured: dict[str, str], primary: Cohort,
    other: Cohort | None,
) -> Compared:
    """Every feature with its baseline, what stood out, and the findings (unusual first,
    strongest first; then shared)."""
    rows: list[FeatureOut] = []
    standouts: list[Standout] = []
    unusual: list[tuple[float, tuple[Finding, str]]] = []
    shared: list[tuple[float, tuple[Finding, str]]] = []
    thin: list[tuple[FeatureSpec, Coverage]] = []
    for spec in FEATURES:
        value, way = values.get(spec.name), measured.get(spec.name)
        base = {"name": spec.name, "label": spec.label, "unit": spec.unit or None,
                "value": value, "display": display(spec.name, spec.label, value, spec.unit)}
        chosen = None if value is None else _choose(primary, other, spec.name, way)
        if chosen is None:
            cover = None
            if value is not None:
                n = len(_measured(primary.peers, spec.name, way))
                cover = _coverage(primary, spec.name, way, n) or Coverage(
                    measured=n, posts=len(primary.peers), method=str(way))
                thin.append((spec, cover))
            rows.append(FeatureOut(**base, baseline=None, percentile=None, coverage=cover))
            continue
        group = chosen.peers
        found = (numeric if spec.kind == "numeric" else categorical)(spec, value, group)
        row = FeatureOut(**base, baseline=found.baseline, percentile=found.percentile,
                         comparedWith=chosen.cohort.group,
                         coverage=_coverage(chosen.cohort, spec.name, way, len(group)))
        rows.append(row)
        outliers = [p for p in group if p.outlier]
        others = [p for p in group if not p.outlier]
        tail = _tail(spec, value, found)
        if tail is not None:
            rarity = (abs((found.percentile or 50.0) - 50.0) / 50.0 if spec.kind == "numeric"
                      else 1.0 - (found.baseline.share or 0.0))
            unusual.append((rarity, _finding("unusual", row, chosen, tail, way)))
        if len(outliers) < MIN_OUTLIERS or len(others) < MIN_ORDINARY:
            continue
        side = _middle(spec, value, found)
        in_outliers = sum(1 for p in outliers if side(p)) / len(outliers)
        in_others = sum(1 for p in others if side(p)) / len(others)
        separation = in_outliers - in_others
        if (tail is None and separation >= SHARED_SEPARATION and in_outliers >= 0.5):
            shared.append((separation, _finding("shared", row, chosen, side, way)))
        if found.departure >= MIN_DEPARTURE and found.side(outliers) - found.side(
                others) >= MIN_SEPARATION:
            standouts.append(Standout(
                row,
                GroupShare(postCount=len(outliers), share=round(found.side(outliers), 3)),
                GroupShare(postCount=len(others), share=round(found.side(others), 3)),
                round(found.departure * (found.side(outliers) - found.side(others)), 3),
            ))
    unusual.sort(key=lambda x: -x[0])
    shared.sort(key=lambda x: -x[0])
    standouts.sort(key=lambda c: -c.strength)
    kept = unusual[:MAX_UNUSUAL] + shared[:MAX_SHARED]
    return Compared(rows, standouts[:MAX_STOOD_OUT], [f for _, (f, _) in kept], thin,
                    [b for _, (_, b) in kept])


def _finding(
    kind: str, row: FeatureOut, chosen: _Set, on: Callable[[Peer], bool], way: str | None
) -> tuple[Finding, str]:
    """The finding, and its text as the summary says it."""
    group = chosen.peers
    outliers = _split([p for p in group if p.outlier], on)
    others = _split([p for p in group if not p.outlier], on)
    finding = Finding(
        kind="unusual" if kind == "unusual" else "shared", feature=row.name, label=row.label,
        text="", value=row.value, display=row.display, percentile=row.percentile,
        comparedWith=chosen.cohort.group, postCount=len(group), outliers=outliers,
        others=others,
    )
    c = chosen.cohort.comparison
    text = sentences.finding_text(finding, row, c, group, way)
    brief = sentences.finding_text(finding, row, c, group, way, brief=True)
    return finding.model_copy(update={"text": text}), brief

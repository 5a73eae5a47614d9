"""Findings as sentences a strategist can send: "It runs 15.7 s: shorter than 97% of the
creator's 59 other posts (their median: 37.5 s). 2 of 3 outliers among them are as short or
shorter, against 4% of the 56 other posts."

Every number comes from the finding itself (its value, its group's counts and shares), so a
rephrasing model is checked against them (sors.analyses.summary.numbers_check).
"""

from __future__ import annotations

from collections.abc import Sequence

from sors.analyses.baseline import Peer, num
from sors.analyses.features import FeatureValue
from sors.analyses.wording import (
    compact,
    count,
    decimal,
    ends,
    hour,
    none_or,
    plural,
    seconds,
    share_of,
    value_text,
    verb,
)
from sors.catalog.records.analysis_schemas import AnalysisComparison, FeatureOut, Finding
from sors.platforms import taxonomy

# Posts measured a particular way, as the text names them.
_WAY = {"speech": "transcribed ", "scenes": "analysed ", "media": "analysed "}

_SUBJECT = {
    "durationSeconds": "It runs {v}",
    "hookWords": "Its hook is {v} long",
    "speakingRate": "It is spoken at {v}",
    "timeToFirstCut": "Its first cut comes at {v}",
    "cutsPerMinute": "It cuts {v}",
    "slideCount": "It has {v}",
    "textDensity": "Its slides carry {v}",
    "captionLength": "Its caption is {v} long",
    "hashtagCount": "It has {v}",
    "likeRate": "It drew {v}",
    "commentRate": "It drew {v}",
    "shareRate": "It drew {v}",
}
_ENDS = {
    "hookWords": ("shorter", "longer"), "slideCount": ("fewer", "more"),
    "hashtagCount": ("fewer", "more"), "textDensity": ("fewer", "more"),
    "cutsPerMinute": ("fewer", "more"),
}


def amount(name: str, v: float) -> str:
    """A numeric feature's value with its words: "15.7 s", "9 words", "4.2 likes per 100
    views"."""
    whole = round(v)
    match name:
        case "durationSeconds" | "timeToFirstCut":
            return seconds(v)
        case "hookWords":
            return count(whole, "word")
        case "speakingRate":
            return f"{decimal(v, 0)} words a minute"
        case "cutsPerMinute":
            return f"{decimal(v)} {plural(v, 'time')} a minute"
        case "slideCount":
            return count(whole, "slide")
        case "textDensity":
            return f"{decimal(v)} {plural(v, 'word')} a slide"
        case "captionLength":
            return count(whole, "character")
        case "hashtagCount":
            return count(whole, "hashtag")
        case "likeRate":
            return f"{decimal(v)} likes per 100 views"
        case "commentRate":
            return f"{decimal(v)} comments per 1,000 views"
        case "shareRate":
            return f"{decimal(v)} shares per 1,000 views"
    return decimal(v)


def category_name(category_id: str | None) -> str:
    c = taxonomy.by_id().get(category_id or "")
    return c.name if c else "similar"


def follower_range(c: AnalysisComparison) -> str:
    if not c.followerRange:
        return "any size"
    lo, hi = c.followerRange
    return f"{compact(lo)}-{compact(hi)} followers"


def niche_creators(c: AnalysisComparison, creators: int) -> str:
    """"34 Food creators of 50K-200K followers"."""
    return f"{creators:,} {category_name(c.categoryId)} {plural(creators, 'creator')} of " \
           f"{follower_range(c)}"


def whose(c: AnalysisComparison, n: int, way: str | None, creators: int) -> str:
    """The posts a feature was compared with: "the creator's 59 other posts", "12
    transcribed posts by 5 Food creators of 50K-200K followers"."""
    adj = _WAY.get(way or "", "")
    if c.group == "creator":
        return f"the creator's {n:,} other {adj}{plural(n, 'post')}"
    return f"{n:,} {adj}{plural(n, 'post')} by {niche_creators(c, creators)}"


def comparison_text(c: AnalysisComparison) -> str:
    """The whole group, as the summary names it."""
    if c.group == "creator":
        return f"the creator's {c.postCount:,} other {plural(c.postCount, 'post')}"
    age = ""
    if c.ageDays:
        lo, hi = c.ageDays
        age = f", published {decimal(lo, 0)}-{decimal(hi, 0)} days before it was analysed"
    return (f"{c.postCount:,} {plural(c.postCount, 'post')} by "
            f"{niche_creators(c, c.creatorCount)}{age}")


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _does(name: str, value: FeatureValue) -> tuple[str, str]:
    """(what the post does, the verb others do it with) for a non-numeric feature."""
    if isinstance(value, bool):
        return "", "do"
    label_value = value_text(name, "", value)
    match name:
        case "hookType":
            return f"opens with {label_value}", "do"
        case "publishHour":
            return f"was published within an hour of {hour(int(num(value)))} UTC", "were"
        case "publishWeekday":
            return f"was published on a {str(value).capitalize()}", "were"
        case "format":
            return f"is {label_value}", "are"
    return f"has {label_value}", "do"


def _phrase(row: FeatureOut) -> tuple[str, str]:
    if isinstance(row.value, bool):
        return f"has {'a' if row.value else 'no'} {row.label}", "do"
    return _does(row.name, row.value)


def _split_text(f: Finding, verb_phrase: str) -> str:
    """How the group's outliers and other posts fall on the post's side ("" when the group
    holds no outlier, which the summary says once, or when no post is on its side)."""
    o, x = f.outliers, f.others
    if o is None or (o.count == 0 and (x is None or x.count == 0)):
        return ""
    if o.count == 0:  # never a capitalised "None" at the start of a sentence
        head = f"Of the {count(o.postCount, 'outlier')} among them, none {verb_phrase}"
    else:
        head = f"{_cap(share_of(o.count, o.postCount, 'outlier'))} among them {verb_phrase}"
    if x is None:
        return head + "."
    return f"{head}, against {share_of(x.count, x.postCount, 'other post')}."


def _join(*parts: str) -> str:
    return " ".join(p for p in parts if p)


def _numeric_text(f: Finding, row: FeatureOut, who: str, group: Sequence[Peer]) -> str:
    assert row.baseline is not None and row.baseline.median is not None
    low_word, high_word = _ENDS.get(row.name) or ends(row.name)
    v, med = num(row.value), row.baseline.median
    word = low_word if v < med else high_word
    subject = _SUBJECT.get(row.name, "Its " + row.label + " is {v}").format(
        v=amount(row.name, v))
    if f.kind == "unusual":
        others = [num(p.values[row.name]) for p in group]
        beyond = sum(1 for x in others if (x > v if v < med else x < v)) / len(others)
        than = f"any of {who}" if beyond >= 1 else none_or(beyond, len(others), who)
        head = f"{subject}: {word} than {than} (their median: {amount(row.name, med)})."
        many = f.outliers is not None and f.outliers.count != 1
        return _join(head, _split_text(f, ('are' if many else 'is') + f' {word} or equal'))
    o, x = f.outliers, f.others
    assert o is not None and x is not None
    return (f"{subject}, {word} than the median of {who} ({amount(row.name, med)}), like "
            f"{share_of(o.count, o.postCount, 'outlier')} among them; "
            f"{share_of(x.count, x.postCount, 'other post')} {verb(x.count, 'is')}.")


def finding_text(
    f: Finding, row: FeatureOut, c: AnalysisComparison, group: Sequence[Peer], way: str | None,
    *, brief: bool = False,
) -> str:
    """The finding as sentences, its comparison named (`brief`: as the summary says it
    after naming the comparison, "those posts" for all of them)."""
    who = whose(c, len(group), way, len({p.profile_id for p in group}))
    if brief and c.group == "niche" and len(group) == c.postCount:
        who = "those posts"
    if row.baseline is not None and row.baseline.median is not None:
        return _numeric_text(f, row, who, group)
    doing, does = _phrase(row)
    share = (row.baseline.share if row.baseline else None) or 0.0
    if f.kind == "shared":
        o, x = f.outliers, f.others
        assert o is not None and x is not None
        return (f"It {doing}, like {share_of(o.count, o.postCount, 'outlier')} among {who}; "
                f"{share_of(x.count, x.postCount, 'other post')} {does}.")
    n = len(group)
    if isinstance(row.value, bool) and not row.value:
        head = f"It {doing}, where {none_or(1 - share, n, who)} have one."
    else:
        usual = ""
        if row.name == "hookType" and row.baseline and row.baseline.usual:
            usual = f" (most often {value_text('hookType', '', row.baseline.usual)})"
        only = "only " if share > 0 else ""
        head = f"It {doing}: {only}{none_or(share, n, who)} {does}{usual}."
    return _join(head, _split_text(f, does + " the same"))

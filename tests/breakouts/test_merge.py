"""Overlapping phrase breakouts merge into the longest phrase their posts say, and only
then."""

from __future__ import annotations

from sors.breakouts.merge import apply, carries, words


def _row(kind: str, idea: str, evidence: list[str], category: str | None = "food") -> dict:
    return {"kind": kind, "idea": idea, "category_id": category, "evidence": evidence}


def test_words_are_read_as_phrases_read_them() -> None:
    assert words("Sheet-Pan DINNER! #easy @chef https://x.y/z Crème") == [
        "sheet", "pan", "dinner", "creme"]
    assert carries("My sheet pan dinner, again", ("sheet", "pan", "dinner"))
    assert not carries("sheet pan then dinner", ("sheet", "pan", "dinner"))


def test_two_halves_of_one_idea_become_it_and_keep_the_better_place() -> None:
    captions = {"a": "Sheet pan dinner tonight", "b": "Easy sheet pan dinner",
                "c": "one more sheet pan dinner #food", "d": "a sheet pan dinner for two"}
    rows = [_row("hashtag", "sheetpan", ["a"]), _row("phrase", "pan dinner", ["a", "b", "c"]),
            _row("format", "tiktok:video", ["a"]), _row("phrase", "sheet pan", ["b", "d"])]
    out = apply(rows, captions.get)
    assert [(r["kind"], r["idea"]) for r in out] == [
        ("hashtag", "sheetpan"), ("phrase", "sheet pan dinner"), ("format", "tiktok:video")]
    assert out[1]["evidence"] == ["a", "b", "c", "d"]


def test_a_chain_grows_while_it_holds() -> None:
    captions = {str(i): f"Travel gets easier after {i} trips" for i in range(4)}
    rows = [_row("phrase", "travel gets", ["0", "1"]), _row("phrase", "gets easier", ["2"]),
            _row("phrase", "easier after", ["3"])]
    [merged] = apply(rows, captions.get)
    assert merged["idea"] == "travel gets easier after"


def test_halves_that_the_posts_do_not_join_stay_apart() -> None:
    captions = {"a": "sheet pan eggs", "b": "sheet pan eggs again", "c": "one pan dinner",
                "d": "best pan dinner"}
    rows = [_row("phrase", "sheet pan", ["a", "b"]), _row("phrase", "pan dinner", ["c", "d"])]
    assert [r["idea"] for r in apply(rows, captions.get)] == ["sheet pan", "pan dinner"]
    # Nor across categories.
    joined = {"a": "sheet pan dinner", "b": "sheet pan dinner"}
    rows = [_row("phrase", "sheet pan", ["a"], "food"),
            _row("phrase", "pan dinner", ["b"], "fitness")]
    assert [r["idea"] for r in apply(rows, joined.get)] == ["sheet pan", "pan dinner"]

"""The Breakouts page draws whatever numbers the API's breakouts carry: the known columns,
and any further figure (a lift, the shares it compares) in a column of its own."""

from __future__ import annotations

from starlette.datastructures import QueryParams

from sors.console.pages_breakouts import Column, category_choices, extra_columns
from sors.console.render import cost, env

POST = {"id": "pst_1", "handle": "mia.makes", "outlier_scores": {"three_months": 12.5}}


def breakout(**extra: object) -> dict[str, object]:
    return {"kind": "phrase", "idea": "cold brew", "categoryId": "food.coffee",
            "creatorCount": 4, "postCount": 6, "medianScore": 11.1, "firstPost": POST,
            "latestPost": POST, "evidence": [POST], **extra}


def render(data: dict[str, object]) -> str:
    return env().get_template("breakouts.html.j2").render(
        form=QueryParams("minCreators=2"), data=data, result=None, user=None, csrf="",
        flash=None, path="/app/breakouts", cost=cost, simulated=True, platforms=("tiktok",),
        kinds=("hashtag", "phrase"), categories=[("food.coffee", "Food › Coffee")],
        columns=extra_columns(data["breakouts"]))  # type: ignore[arg-type]


def test_a_lift_and_its_shares_get_columns_of_their_own() -> None:
    rows = [breakout(lift=3.42, outlierShare=0.41, ordinaryShare=0.12), breakout()]
    assert extra_columns(rows) == [
        Column("lift", "Lift", "lift"),
        Column("outlierShare", "Outlier share", "share"),
        Column("ordinaryShare", "Ordinary share", "share"),
    ]
    html = render({"timeFrame": "one_month", "scoreWindow": "three_months", "minScore": 3,
                   "minCreators": 2, "categoryId": "food.coffee", "breakouts": rows})
    assert '<th scope="col" class="num" data-column="lift">Lift</th>' in html
    assert '<td class="num" data-column="lift">3.4×</td>' in html
    assert '<td class="num" data-column="outlierShare">41.00%</td>' in html
    assert '<td class="num" data-column="ordinaryShare">12.00%</td>' in html
    # A breakout without the figure shows a dash there, not an error.
    assert html.count('data-column="lift">—</td>') == 1
    assert 'href="/app/posts/pst_1"' in html and "11.1×" in html


def test_without_further_figures_only_the_known_columns_show() -> None:
    assert extra_columns([breakout()]) == []
    html = render({"timeFrame": "all_time", "scoreWindow": "three_months", "minScore": 1,
                   "minCreators": 2, "categoryId": None, "breakouts": [breakout()]})
    assert "data-column" not in html and "at any time" in html


def test_categories_are_labelled_under_their_parent() -> None:
    cats = [{"id": "food", "name": "Food", "parentId": None},
            {"id": "food.coffee", "name": "Coffee", "parentId": "food"}]
    assert category_choices(cats) == [("food", "Food"), ("food.coffee", "Food › Coffee")]

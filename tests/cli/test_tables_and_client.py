"""What the people's commands print, without a server: numbers and scores as a reader says
them, tables that fit the terminal by cutting or leaving out columns (never wrapping), the
API's problems as sentences, and where the API and key come from."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from sors.cli import tables
from sors.cli.client import ApiError, base_of, problem_message, resolve
from sors.cli.people import profile_ref
from sors.cli.tables import Col


def render(table, width: int) -> list[str]:
    console = Console(width=width, record=True, force_terminal=False, color_system=None)
    console.print(table)
    return [line.rstrip() for line in console.export_text().splitlines()]


def test_numbers_read_as_people_say_them() -> None:
    assert [tables.compact(n) for n in (None, 7, 999, 1000, 48_612, 1_250_000, 3e9)] == [
        "-", "7", "999", "1K", "48.6K", "1.2M", "3B"]
    assert [tables.times(s) for s in (None, 0.14, 22.24, 104.4)] == ["-", "0.1×", "22.2×", "104×"]
    assert tables.minute("2026-11-25T21:57:25.456889Z") == "2026-11-25 21:57"
    assert tables.day("2026-03-18T10:40:25Z") == "2026-03-18"


POST = {
    "id": "pst_01m8abcw13xbaysv6k2km41n7n", "platform": "instagram", "handle": "beanwithjonas",
    "views": 148_866, "score": 14.64, "published_at": "2026-09-19T10:00:00Z",
    "caption": "Trying cold brew concentrate for 30 days #coffee #barista #espresso #fyp",
}


def test_a_narrow_terminal_keeps_ids_whole_and_leaves_out_what_does_not_fit() -> None:
    lines = render(tables.posts_table([POST] * 3, 80), 80)
    assert lines[0].split() == ["score", "views", "creator", "id"]  # no room for a caption
    assert all(len(line) <= 80 for line in lines)
    assert POST["id"] in lines[1] and "instagram:@beanwithjonas" in lines[1]


def test_a_wide_terminal_shows_the_caption_cut_with_an_ellipsis() -> None:
    lines = render(tables.posts_table([POST], 120), 120)
    assert lines[0].split() == ["score", "views", "creator", "published", "caption", "id"]
    assert "Trying cold brew" in lines[1] and "…" in lines[1] and POST["id"] in lines[1]
    assert max(len(line) for line in lines) <= 120
    full = render(tables.posts_table([POST], 200), 200)
    assert POST["caption"] in full[1] and "…" not in full[1]


def test_fit_drops_optional_columns_first_then_the_flexible_one() -> None:
    cols = [Col("a"), Col("b", optional=True), Col("text", flex=5)]
    rows = [["x" * 10, "y" * 10, "z" * 30]]
    assert tables.fit(cols, rows, 60) == [(0, 10), (1, 10), (2, 30)]
    assert tables.fit(cols, rows, 30) == [(0, 10), (1, 10), (2, 6)]
    assert tables.fit(cols, rows, 25) == [(0, 10), (2, 13)]
    assert tables.fit(cols, rows, 14) == [(0, 10)]


def test_a_summary_wraps_long_values_instead_of_cutting_them() -> None:
    url = "https://www.tiktok.com/@leo.lingo/video/7618543665724715037"
    lines = render(tables.facts([("url", url), ("views", "148.9K")], 50), 50)
    assert "".join(line.split(maxsplit=1)[-1] for line in lines[:2]).replace(" ", "") == url
    assert all(len(line) <= 50 for line in lines)


def test_the_ledger_names_a_charge_once() -> None:
    entries = [{"createdAt": "2026-09-25T10:00:00Z", "kind": "charge", "credits": -1,
                "balanceAfter": 9_999, "skill": "get_profile", "reason": "get_profile"},
               {"createdAt": "2026-09-25T10:01:00Z", "kind": "grant", "credits": 50,
                "balanceAfter": 10_049, "skill": None, "reason": "welcome"}]
    lines = render(tables.ledger_table(entries, 80), 80)
    assert lines[2].split()[-1] == "get_profile" and "get_profile get_profile" not in lines[2]
    assert "+50" in lines[3] and lines[3].endswith("welcome")
    assert tables.to_csv(entries, "ledger").splitlines()[0].startswith("entryId,createdAt,kind")


def test_problems_read_as_sentences() -> None:
    problem = {
        "type": "/errors/unknown_field", "title": "Unknown field", "status": 422,
        "detail": "bogus: unknown field 'bogus'", "code": "unknown_field",
        "errors": [{"field": "bogus", "message": "unknown field 'bogus'"},
                   {"field": "page", "message": "must be at least 1"}],
        "requestId": "req_1",
    }
    assert problem_message(422, problem).splitlines() == [
        "Unknown field (HTTP 422, unknown_field): bogus: unknown field 'bogus'",
        "  page: must be at least 1",
        "  request id: req_1",
    ]
    credits = {"title": "Insufficient credits", "status": 402, "detail": "Top up.",
               "code": "insufficient_credits", "required": 5, "balance": 2}
    assert "  required: 5" in problem_message(402, credits).splitlines()
    assert problem_message(502, "<html>Bad gateway</html>") == "HTTP 502: <html>Bad gateway</html>"


def test_the_api_and_key_default_to_the_demo_of_the_data_dir(tmp_path: Path) -> None:
    assert base_of("http://h:8000/api/v1/") == base_of("http://h:8000") == "http://h:8000"
    with pytest.raises(ApiError, match="no API key"):
        resolve(None, None, tmp_path, "http://127.0.0.1:8000")
    (tmp_path / "demo_api_key").write_text("sors_demo\n")
    assert resolve(None, None, tmp_path, "http://127.0.0.1:8731") == (
        resolve("http://127.0.0.1:8731/api/v1", "sors_demo", tmp_path, "http://other"))
    assert resolve("http://x/api/v1", "k", tmp_path, "http://d").key == "k"


@pytest.mark.parametrize(("ref", "platform", "expected"), [
    ("prf_01abc", None, "prf_01abc"),
    ("tiktok:@Fit.Anna", None, ("tiktok", "fit.anna")),
    ("@fit.anna", "tiktok", ("tiktok", "fit.anna")),
    ("https://www.tiktok.com/@fit.anna", None, ("tiktok", "fit.anna")),
    ("https://www.youtube.com/@CoffeeLab/videos", None, ("youtube", "coffeelab")),
])
def test_a_profile_is_named_by_id_url_or_platform_and_handle(ref, platform, expected) -> None:
    assert profile_ref(ref, platform) == expected


def test_a_bare_handle_asks_for_its_platform() -> None:
    with pytest.raises(ValueError, match="which platform"):
        profile_ref("@fit.anna", None)
    with pytest.raises(ValueError, match="not a TikTok profile URL"):
        profile_ref("https://www.tiktok.com/tag/coffee", None)

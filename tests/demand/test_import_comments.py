"""`sors import` keeps the comments real exports carry: an Instagram export's
`latestComments` and their replies (count, texts and handles exact), Apify's TikTok comment
dataset, the Data API's commentThreads answer; a second import changes nothing, and a
comment of a post the catalog does not hold is skipped, saying so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_import import imported
from tests.demand.helpers import GOEDUITJE, KUMPARAN, THREADS, kumparan_post, youtube_video
from tests.factories.world import rows, sim_time_restored

pytestmark = pytest.mark.usefixtures("clean", "sim_time_restored")
__all__ = ["sim_time_restored"]

CAPTURED = "2025-09-04T13:39:02Z"  # the export's file name says when it was captured
STORED = """
SELECT c.platform_comment_id AS id, c.text, c.author_handle, c.parent_platform_id AS parent,
       c.likes, c.replies, p.platform_post_id AS post, c.kind, c.noise, c.updated_at
  FROM comments c JOIN posts p ON p.id = c.post_id ORDER BY c.platform_comment_id
"""


def file_comments(path: Path) -> tuple[int, dict[str, tuple[Any, ...]]]:
    """The export's comment records read straight from its JSON (not through sors): how many
    there are, and each comment id's (text, handle, post, parent, likes); a comment listed
    twice (among the latest and as a reply) keeps the reply's parent."""
    records, out = 0, {}
    for post in json.loads(path.read_text()):
        for c in post.get("latestComments") or []:
            records += 1
            out.setdefault(c["id"], (c["text"], c["ownerUsername"].lower(), post["shortCode"],
                                     None, c["likesCount"]))
            for r in c.get("replies") or []:
                records += 1
                out[r["id"]] = (r["text"], r["ownerUsername"].lower(), post["shortCode"],
                                c["id"], r["likesCount"])
    return records, out


async def test_the_instagram_export_keeps_every_comment_with_its_handle_and_twice_is_once(
    db, pg_url: str, tmp_path: Path
) -> None:
    records, expected = file_comments(GOEDUITJE)
    # 84 comments and 19 replies; 6 of the replies are also among the 84: 97 comments.
    assert records == 103 and len(expected) == 97
    report = imported(pg_url, tmp_path, str(GOEDUITJE), "--observed-at", CAPTURED)
    [f] = report["files"]
    assert f["posts"]["new"] == 99
    assert f["comments"] == {"new": 97, "updated": 0, "skipped": 0}
    stored = await rows(db, STORED)
    assert {r["id"]: (r["text"], r["author_handle"], r["post"], r["parent"], r["likes"])
            for r in stored} == expected
    # Nothing else about the person is kept: the table has no column for it.
    [columns] = await rows(db, "SELECT array_agg(column_name::text) AS c FROM "
                               "information_schema.columns WHERE table_name = 'comments'")
    assert not {"owner_id", "profile_pic_url", "full_name"} & set(columns["c"])
    # Typed: the Dutch question is a question, the heart-only comments are set apart.
    by_id = {r["id"]: r for r in stored}
    assert by_id["18111044044518804"]["kind"] == "question"  # "…weten jullie misschien…?"
    assert by_id["18099037543593378"]["noise"] == "emoji_only"  # "❤️❤️❤️❤️❤️"

    again = imported(pg_url, tmp_path, str(GOEDUITJE), "--observed-at", CAPTURED)["files"][0]
    assert again["comments"] == {"new": 0, "updated": 0, "skipped": 97}
    assert again["skipped"]["comments already kept as they are"] == 97
    assert await rows(db, STORED) == stored  # not one row rewritten, not even updated_at


async def test_a_comment_dataset_waits_for_its_post_then_imports_once(
    db, pg_url: str, tmp_path: Path
) -> None:
    items = json.loads(KUMPARAN.read_text())
    first = imported(pg_url, tmp_path, str(KUMPARAN))["files"][0]
    # The file carries no capture time; it was captured after its newest comment.
    assert first["format"] == "apify-tiktok-comments"
    assert first["observedAt"] == "2025-05-25T06:13:40Z"
    assert first["comments"] == {"new": 0, "updated": 0, "skipped": 500}
    assert first["skipped"] == {
        "comments: the catalog has no such post: import or crawl the post first": 500}
    assert await rows(db, "SELECT id FROM comments") == []

    await kumparan_post(db)
    second = imported(pg_url, tmp_path, str(KUMPARAN))["files"][0]
    assert second["comments"] == {"new": 500, "updated": 0, "skipped": 0}
    stored = {r["id"]: r for r in await rows(db, STORED)}
    assert {i["cid"]: (i["text"], i["uniqueId"].lower(), i["diggCount"], i["replyCommentTotal"])
            for i in items} == {k: (r["text"], r["author_handle"], r["likes"], r["replies"])
                                for k, r in stored.items()}
    third = imported(pg_url, tmp_path, str(KUMPARAN))["files"][0]
    assert third["comments"] == {"new": 0, "updated": 0, "skipped": 500}


async def test_a_comment_threads_answer_imports_its_threads_without_names(
    db, pg_url: str, tmp_path: Path
) -> None:
    await youtube_video(db)
    answer = json.loads(THREADS.read_text())
    f = imported(pg_url, tmp_path, str(THREADS))["files"][0]
    assert f["format"] == "youtube-api-comment-threads"
    assert f["comments"]["new"] == len(answer["items"]) == 98
    stored = {r["id"]: r for r in await rows(db, STORED)}
    for item in answer["items"]:
        top = item["snippet"]["topLevelComment"]["snippet"]
        row = stored[item["id"]]
        assert (row["text"], row["likes"], row["replies"]) == (
            top["textOriginal"], top["likeCount"], item["snippet"]["totalReplyCount"])
        # 2022 answers name the author ("Amit Sharma"), not a handle: no name is kept.
        assert row["author_handle"] is None
    # The campaign pasted word for word under the video by two accounts is spam.
    copies = [r for r in stored.values() if "Clover Cage - Frozen In Time" in r["text"]]
    assert len(copies) == 2 and {r["noise"] for r in copies} == {"spam"}

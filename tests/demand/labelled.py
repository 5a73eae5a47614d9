"""The labelled sample that measures demand.classify, and its precision per kind.

- real: tests/fixtures/demand/labels_real.csv — 185 comments of the six recorded files
  (Instagram, TikTok, YouTube; Dutch, Indonesian, English, Arabic, Spanish), labelled by hand
  by what they mean: a random sample of 150 of the 718 comment records (random.Random(46)),
  and every comment the rules typed question, request, part_two or confusion, so each
  predicted one is judged. Keyed by platform and comment id (the texts stay in the files).
- simulated: the comments of 60 simulated creators' 8 latest posts, each labelled with the
  kind it was written as (sim/comments.py `written`). The rules and the templates were
  written together, so this half says the rules read the world's five languages, not that
  they generalise; the real half is the honest one.

    PYTHONPATH=. .venv/bin/python -m tests.demand.labelled
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from sors.demand.classify import label
from sors.platforms import exports
from sors.platforms.sim.comments import written
from sors.platforms.sim.world import SimWorld

FIXTURES = Path(__file__).parents[1] / "fixtures"
REAL_FILES = (
    "apify/instagram/profile_posts_goeduitje_2025-09-04.json",
    "apify/comments/tiktok_comments_kumparan_2025-05-25.json",
    "apify/comments/instagram_comments_Dbv_-xLBwQg_2026-08-12.json",
    "apify/comments/instagram_comments_DcuVssYgD6J_2026-09-05_first8.json",
    "youtube_api/commentThreads_list_7ghhRHRP6t4_2022-12.json",
    "youtube_api/commentThreads_list_F1UP7wRCPH8_page1_2019.json",
)
KINDS = ("question", "request", "part_two", "confusion", "objection", "praise")


def real() -> Iterator[tuple[str, str]]:
    """(text, hand label) of the real half."""
    texts = {}
    for name in REAL_FILES:
        parsed = exports.parse_file(FIXTURES / "sources" / name,
                                    observed_at=datetime(2026, 1, 1, tzinfo=UTC))
        texts.update({(c.platform, c.platform_comment_id): c.text for c in parsed.comments})
    with (FIXTURES / "demand" / "labels_real.csv").open() as f:
        for row in csv.DictReader(f):
            yield texts[(row["platform"], row["platform_comment_id"])], row["label"]


def simulated(creators: int = 60, posts: int = 8) -> Iterator[tuple[str, str]]:
    world, at = SimWorld(0), datetime(2026, 9, 22, 10, tzinfo=UTC)
    for platform, handle in world.sample_handles(creators):
        for post in world.crawl(platform, handle, at, size=posts).posts:
            for comment, kind in written(post, world.seed, at):
                yield comment.text, kind


def predicted(text: str) -> str:
    found = label(text)
    return found.noise or found.kind


def precision(sample: list[tuple[str, str]], kind: str) -> tuple[int, int, int]:
    """(right, predicted, labelled) for one kind."""
    guesses = [(predicted(t), truth) for t, truth in sample]
    return (sum(1 for p, t in guesses if p == kind == t), sum(1 for p, _ in guesses if p == kind),
            sum(1 for _, t in guesses if t == kind))


def table() -> str:
    halves = {"real": list(real()), "simulated": list(simulated())}
    halves["both"] = halves["real"] + halves["simulated"]
    lines = ["| kind | " + " | ".join(f"{h} precision (recall)" for h in halves) + " |",
             "|---|" + "---:|" * len(halves)]
    for kind in KINDS:
        cells = []
        for sample in halves.values():
            right, guessed, labelled = precision(sample, kind)
            p = f"{right / guessed:.2f}" if guessed else "—"
            r = f"{right / labelled:.2f}" if labelled else "—"
            cells.append(f"{p} ({r}) of {guessed}")
        lines.append(f"| {kind} | " + " | ".join(cells) + " |")
    sizes = ", ".join(f"{h} {len(s)}" for h, s in halves.items())
    return "\n".join(lines) + f"\n\nComments: {sizes}."


if __name__ == "__main__":
    print(table())

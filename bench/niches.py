"""Niches of real creators: the share of profiles in every real export the tests load
(tests/fixtures/sources) that the classifier places in a niche, and each one's niche beside
its bio and first captions, for a hand check (docs/PERFORMANCE.md, "Niches for real
captions").

    .venv/bin/python bench/niches.py [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

from sors.platforms import exports, taxonomy

SOURCES = Path(__file__).parents[1] / "tests" / "fixtures" / "sources"


def profiles() -> list[dict[str, object]]:
    when = datetime(2026, 11, 1, tzinfo=UTC)
    channels: dict[str, object] = {}
    files = sorted(SOURCES.rglob("*.json"), key=lambda f: "channels_list" not in f.name)
    out = []
    for f in files:
        try:
            parsed = exports.parse_file(f, observed_at=when, channels=channels)  # type: ignore[arg-type]
        except exports.ImportFileError:
            continue  # e.g. a channel tab without an @handle
        if parsed.format == "youtube-api-channels":
            channels.update({s.profile.platform_user_id: s.profile for s in parsed.snapshots})
        for snap in parsed.snapshots:
            recent = sorted(snap.posts, key=lambda p: p.published_at, reverse=True)
            captions = [p.caption for p in recent]
            out.append({
                "file": f.name, "platform": snap.profile.platform, "handle": snap.profile.handle,
                "posts": len(snap.posts),
                "niches": taxonomy.classify_profile(snap.profile.bio, snap.profile.display_name,
                                                    captions),
                "bio": (snap.profile.bio or "")[:80], "caption": (captions[0] or "")[:100]
                if captions else "",
                "latin": taxonomy._latin_share(" ".join(c or "" for c in captions)) >= 0.5,
            })
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    found = profiles()
    placed = [p for p in found if p["niches"]]
    with_posts = [p for p in found if p["posts"]]
    summary = {
        "profiles": len(found), "placed": len(placed),
        "share": round(len(placed) / len(found), 3) if found else None,
        "profilesWith3Posts": len([p for p in found if int(p["posts"]) >= 3]),  # type: ignore[call-overload]
        "placedWith3Posts": len([p for p in placed if int(p["posts"]) >= 3]),  # type: ignore[call-overload]
        "withPosts": len(with_posts),
        "latinScript": len([p for p in found if p["latin"]]),
        "placedLatinScript": len([p for p in placed if p["latin"]]),
    }
    if args.json:
        json.dump({"summary": summary, "profiles": found}, sys.stdout, ensure_ascii=False,
                  indent=1)
        return
    for p in found:
        if int(p["posts"]) >= 3 or p["niches"]:  # type: ignore[call-overload]
            print(f"{p['platform']:9} {p['handle'][:24]:24} {p['posts']:>3} "
                  f"{','.join(p['niches']) or '-':32} | {p['caption']!s:.70}")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()

"""`sors import PATH…`: load exports a team already holds into the catalog."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

import orjson
import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from sors.cli.common import console, err, fail, with_runtime
from sors.config import Settings
from sors.kit.db import Database

if TYPE_CHECKING:
    from sors.catalog.ingest.imports import ImportSummary
    from sors.demand.service import KeepSummary
    from sors.platforms.base import ProfileSnapshot
    from sors.platforms.exports import ParsedFile

# Profiles ingested per statement set inside a file's one transaction (the progress step).
CHUNK = 200


class Counts(TypedDict):
    new: int
    updated: int
    skipped: int


class FileReport(TypedDict):
    """One imported file, as `--json` prints it."""

    file: str
    format: str
    observedAt: str
    observedFrom: str
    records: int
    recordsSkipped: int
    profiles: Counts
    posts: Counts
    comments: Counts
    skipped: dict[str, int]  # why records were skipped → how many


class FileFailure(TypedDict):
    file: str
    error: str


def _parse_when(value: str | None) -> datetime | None:
    if value is None:
        return None
    from sors.platforms.live.common import parse_rfc3339

    when = parse_rfc3339(value)
    if when is None:
        fail(f"--observed-at {value!r} is not an ISO 8601 time (e.g. 2026-11-20T14:00:00Z)", 2)
    return when


def import_command(paths: list[Path], format: str | None, observed_at: str | None,
                   as_json: bool) -> None:
    from sors.platforms import exports

    when = _parse_when(observed_at)
    if format is not None and format not in exports.FORMATS:
        fail(f"--format {format!r}: one of " + ", ".join(exports.FORMATS), 2)
    files = [
        p for path in paths for p in (sorted(path.glob("*.json*")) if path.is_dir() else [path])
    ]
    if not files:
        fail("no files to import", 2)
    # Channels first: videos.list answers name their channel only by id.
    parsed: list[ParsedFile] = []
    failures: list[FileFailure] = []
    channels: dict[str, ProfileSnapshot] = {}
    ordered = sorted(files, key=lambda f: 0 if _is_channels(f, format) else 1)
    for f in ordered:
        try:
            one = exports.parse_file(f, format=format, observed_at=when, channels=channels)
        except exports.ImportFileError as exc:
            failures.append({"file": str(f), "error": str(exc)})
            continue
        if one.format == "youtube-api-channels":
            channels.update({s.profile.platform_user_id: s.profile for s in one.snapshots
                             if s.profile.platform_user_id is not None})
        parsed.append(one)

    results = with_runtime(lambda rt: _ingest_all(rt.database, rt.settings, parsed, quiet=as_json))
    report = {"files": results, "failed": failures}
    if as_json:
        print(orjson.dumps(report, option=orjson.OPT_INDENT_2).decode())
    else:
        _print(results, failures)
    if failures:
        raise typer.Exit(1)


def _is_channels(path: Path, format: str | None) -> bool:
    if format is not None:
        return format == "youtube-api-channels"
    try:
        head = path.read_bytes()[:4096]
    except OSError:
        return False
    return b"youtube#channelListResponse" in head


async def _ingest_all(
    db: Database, settings: Settings, parsed: list[ParsedFile], *, quiet: bool
) -> list[FileReport]:
    from sors.catalog.ingest.imports import ImportSummary, import_snapshots
    from sors.demand.service import keep, label_comments

    out: list[FileReport] = []
    total = sum(max(1, len(s.posts)) for p in parsed for s in p.snapshots)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  console=err, disable=quiet or total < 500) as progress:
        task = progress.add_task("importing", total=total)
        for one in parsed:
            progress.update(task, description=f"importing {one.path.name}")
            summary = ImportSummary()
            # Typed before the file's transaction opens (a language model may be asked).
            labelled = await label_comments(settings, one.comments)
            async with db.transaction() as s:  # one file, one transaction
                for i in range(0, len(one.snapshots), CHUNK):
                    chunk = one.snapshots[i:i + CHUNK]
                    part = await import_snapshots(s, chunk, one.observed_at, settings)
                    _merge(summary, part)
                    progress.advance(task, sum(max(1, len(c.posts)) for c in chunk))
                # After the posts they belong to, in the same transaction.
                kept = await keep(s, labelled, now=one.observed_at, settings=settings,
                                  source="import")
            for reason in one.skipped:
                summary.skip(reason.split(": ", 1)[-1] if reason.startswith("record ") else reason)
            for reason, n in kept.reasons.items():
                summary.skip(f"comments: {reason}", n)
            if kept.unchanged:
                summary.skip("comments already kept as they are", kept.unchanged)
            out.append(_report(one, summary, kept))
    return out


def _report(one: ParsedFile, summary: ImportSummary, kept: KeepSummary) -> FileReport:
    return FileReport(
        file=str(one.path), format=one.format,
        observedAt=one.observed_at.isoformat().replace("+00:00", "Z"),
        observedFrom=one.observed_from, records=one.records, recordsSkipped=len(one.skipped),
        profiles=Counts(new=summary.profiles_new, updated=summary.profiles_updated,
                        skipped=summary.profiles_skipped),
        posts=Counts(new=summary.posts_new, updated=summary.posts_updated,
                     skipped=summary.posts_skipped),
        comments=Counts(new=kept.new, updated=kept.updated,
                        skipped=kept.unchanged + kept.skipped),
        skipped=dict(summary.reasons),
    )


def _merge(into: ImportSummary, part: ImportSummary) -> None:
    for name in ("profiles_new", "profiles_updated", "profiles_skipped",
                 "posts_new", "posts_updated", "posts_skipped"):
        setattr(into, name, getattr(into, name) + getattr(part, name))
    for reason, n in part.reasons.items():
        into.skip(reason, n)


def _print(results: list[FileReport], failures: list[FileFailure]) -> None:
    table = Table("file", "profiles new", "upd", "skip", "posts new", "upd", "skip",
                  "comments new", "upd", "skip", title="sors import")
    for r in results:
        p, q, c = r["profiles"], r["posts"], r["comments"]
        table.add_row(Path(r["file"]).name, *(str(x) for x in (
            p["new"], p["updated"], p["skipped"], q["new"], q["updated"], q["skipped"],
            c["new"], c["updated"], c["skipped"])))
    if results:
        console.print(table)
    for r in results:
        console.print(f"  {Path(r['file']).name}: {r['format']}, {r['records']} records, "
                      f"observed at {r['observedAt']} ({r['observedFrom']})", soft_wrap=True)
    reasons: dict[str, int] = {}
    for r in results:
        for reason, n in r["skipped"].items():
            reasons[reason] = reasons.get(reason, 0) + n
    for reason, n in sorted(reasons.items(), key=lambda kv: -kv[1]):
        console.print(f"  skipped {n}: {reason}", soft_wrap=True)
    for f in failures:
        err.print(f"[red]not imported:[/red] {f['error']}", soft_wrap=True)

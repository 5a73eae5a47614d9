"""Sounds, and the daily rollups that trends of sounds and hashtags read (migration 0034).

Ingest writes the sounds and the hashtag uses of each new post and marks the publication
days of every crawled post (`trend_dirty`); a scheduled statement (catalog.usage.rollup)
recomputes the marked days of the last ROLLUP_DAYS into `sound_days`, `hashtag_days` and
`niche_days`, so a trends request reads a few hundred rows whatever the catalog's size.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import BigInteger, Float, ForeignKey, Index, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from sors.kit.db import Base


class Sound(Base):
    """The audio posts use, one row per (platform, key): `sound_key` is the platform's id
    when a source gives it exactly, else `post:<post id>` for an original sound, else
    `name:<title>|<author>` (sors.platforms.sounds)."""

    __tablename__ = "sounds"
    __table_args__ = (Index("uq_sounds_key", "platform", "sound_key", unique=True),)

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    platform: Mapped[str] = mapped_column(String(16))
    sound_key: Mapped[str] = mapped_column(String(300))
    title: Mapped[str | None] = mapped_column(Text)
    author: Mapped[str | None] = mapped_column(Text)
    is_original: Mapped[bool]
    first_seen_at: Mapped[datetime]


class HashtagUse(Base):
    """A creator used a hashtag on a day (UTC, by publication): what "creators" of a
    hashtag in a window counts exactly. Written by ingest for new posts."""

    __tablename__ = "hashtag_uses"

    tag: Mapped[str] = mapped_column(Text, primary_key=True)
    day: Mapped[date] = mapped_column(primary_key=True)
    profile_id: Mapped[str] = mapped_column(
        ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True
    )
    platform: Mapped[str] = mapped_column(String(16))
    niche: Mapped[str] = mapped_column(String(64))  # the creator's main niche then; '' none


class TrendDirty(Base):
    """A day whose posts a crawl saw (append-only, so concurrent crawls never wait on one
    another): the rollup recomputes it and deletes its marks."""

    __tablename__ = "trend_dirty"
    __table_args__ = (Index("ix_trend_dirty_day", "day"),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    day: Mapped[date]
    marked_at: Mapped[datetime] = mapped_column(server_default=text("now()"))


class _Counts:
    """What each rollup row counts over the posts of its key (live posts of active
    creators): all of them, those beating their creator's three-month average (score > 1),
    those at least 3× it (outliers), and those with a score at all."""

    posts: Mapped[int]
    beat: Mapped[int]
    outliers: Mapped[int]
    scored: Mapped[int]


class SoundDay(_Counts, Base):
    """A sound's posts of one day in one niche; only sounds two or more creators used."""

    __tablename__ = "sound_days"
    __table_args__ = (Index("ix_sound_days_sound", "sound_id", "day"),)

    day: Mapped[date] = mapped_column(primary_key=True)
    niche: Mapped[str] = mapped_column(String(64), primary_key=True)
    sound_id: Mapped[str] = mapped_column(
        ForeignKey("sounds.id", ondelete="CASCADE"), primary_key=True
    )
    creators: Mapped[int]
    views: Mapped[int] = mapped_column(BigInteger)


class HashtagDay(_Counts, Base):
    __tablename__ = "hashtag_days"

    day: Mapped[date] = mapped_column(primary_key=True)
    niche: Mapped[str] = mapped_column(String(64), primary_key=True)
    platform: Mapped[str] = mapped_column(String(16), primary_key=True)
    tag: Mapped[str] = mapped_column(Text, primary_key=True)
    creators: Mapped[int]


class NicheDay(_Counts, Base):
    """All posts of a niche on a platform on a day: the base of shares and lift."""

    __tablename__ = "niche_days"

    day: Mapped[date] = mapped_column(primary_key=True)
    niche: Mapped[str] = mapped_column(String(64), primary_key=True)
    platform: Mapped[str] = mapped_column(String(16), primary_key=True)


class IdeaBoilerplate(Base):
    """An idea (hashtag, phrase) that says nothing about a niche, found from the data
    (catalog.usage.boilerplate): breakouts and hashtag trends leave it out. A row of kind
    '-' says when the table was computed."""

    __tablename__ = "idea_boilerplate"

    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    idea: Mapped[str] = mapped_column(Text, primary_key=True)
    population: Mapped[str] = mapped_column(String(40))  # e.g. "tiktok:slideshow", "tiktok"
    niches: Mapped[int]  # niches of the population carrying it
    share: Mapped[float] = mapped_column(Float)  # its mean share of their posts
    computed_at: Mapped[datetime]

"""Server-side SVG charts: a post's views over time, a profile's posts as a scatter.

Drawn as plain SVG markup (no script, no library), so they render offline, print, and read
with a screen reader through their title and description.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from html import escape
from typing import TYPE_CHECKING

from markupsafe import Markup

from sors.console.render import compact

if TYPE_CHECKING:
    from sors.console.repository import ScatterPoint

W, H = 640, 260
PAD_L, PAD_R, PAD_T, PAD_B = 56, 16, 14, 34
OUTLIER_SCORE = 3.0  # the highlight threshold (a post ≥ 3× its profile's average)


def _x(t: float, t0: float, t1: float) -> float:
    span = (t1 - t0) or 1.0
    return PAD_L + (t - t0) / span * (W - PAD_L - PAD_R)


def _y(v: float, v0: float, v1: float) -> float:
    span = (v1 - v0) or 1.0
    return H - PAD_B - (v - v0) / span * (H - PAD_T - PAD_B)


def _frame(label: str, desc: str, body: list[str]) -> Markup:
    # Every interpolated text above went through html.escape; the rest is numbers.
    return Markup(  # noqa: S704
        f'<svg class="chart" viewBox="0 0 {W} {H}" role="img" aria-labelledby="ct cd" '
        f'xmlns="http://www.w3.org/2000/svg"><title id="ct">{escape(label)}</title>'
        f'<desc id="cd">{escape(desc)}</desc>'
        f'<line class="axis" x1="{PAD_L}" y1="{H - PAD_B}" x2="{W - PAD_R}" y2="{H - PAD_B}"/>'
        f'<line class="axis" x1="{PAD_L}" y1="{PAD_T}" x2="{PAD_L}" y2="{H - PAD_B}"/>'
        + "".join(body) + "</svg>"
    )


def _date_ticks(t0: float, t1: float) -> list[str]:
    out = []
    for i in range(4):
        t = t0 + (t1 - t0) * i / 3
        x = _x(t, t0, t1)
        anchor = ("start", "middle", "middle", "end")[i]  # the end labels stay inside
        out.append(f'<text class="tick" x="{x:.1f}" y="{H - 12}" text-anchor="{anchor}">'
                   f'{datetime.fromtimestamp(t).strftime("%b %d")}</text>')
    return out


def growth_chart(points: Sequence[tuple[datetime, int]]) -> Markup | None:
    """Views over time from the post's snapshots; None with fewer than two."""
    if len(points) < 2:
        return None
    ts = [p[0].timestamp() for p in points]
    vs = [float(p[1]) for p in points]
    t0, t1, v1 = ts[0], ts[-1], max(vs) * 1.05 or 1.0
    coords = " ".join(
        f"{_x(t, t0, t1):.1f},{_y(v, 0, v1):.1f}" for t, v in zip(ts, vs, strict=True))
    body = [f'<polyline class="line" points="{coords}"/>']
    body += [f'<circle class="dot" cx="{_x(t, t0, t1):.1f}" cy="{_y(v, 0, v1):.1f}" r="3">'
             f'<title>{datetime.fromtimestamp(t):%Y-%m-%d %H:%M}: {compact(v)} views</title>'
             f'</circle>' for t, v in zip(ts, vs, strict=True)]
    for frac in (0.0, 0.5, 1.0):
        v = v1 * frac
        body.append(f'<text class="tick" x="{PAD_L - 6}" y="{_y(v, 0, v1) + 4:.1f}" '
                    f'text-anchor="end">{compact(v)}</text>')
    body += _date_ticks(t0, t1)
    desc = (f"{len(points)} snapshots from {points[0][0]:%Y-%m-%d} ({compact(vs[0])} views) "
            f"to {points[-1][0]:%Y-%m-%d} ({compact(vs[-1])} views)")
    return _frame("Views over time", desc, body)


def scatter(posts: Sequence[ScatterPoint], window_label: str) -> Markup | None:
    """Each post: publish date against views (log scale); outliers in the accent colour."""
    hidden = sum(1 for p in posts if p.views is None)
    # A hidden count is a gap, never a dot at 1 view along the bottom.
    posts = [p for p in posts if p.views is not None]
    if not posts:
        return None
    ts = [p.published_at.timestamp() for p in posts]
    logs = [math.log10(max(p.views or 0, 1)) for p in posts]
    t0, t1 = min(ts), max(ts)
    l0, l1 = math.floor(min(logs)), math.ceil(max(logs)) or 1
    if l1 == l0:
        l1 += 1
    body = []
    outliers = 0
    for p, t, lv in zip(posts, ts, logs, strict=True):
        hot = p.score is not None and p.score >= OUTLIER_SCORE
        outliers += hot
        score = "—" if p.score is None else f"{p.score:.1f}×"
        body.append(
            f'<a href="/app/posts/{escape(p.id)}"><circle class="{"hot" if hot else "pt"}" '
            f'cx="{_x(t, t0, t1):.1f}" cy="{_y(lv, l0, l1):.1f}" r="{5 if hot else 3.5}">'
            f'<title>{p.published_at:%Y-%m-%d}: {compact(p.views)} views, score {score}'
            f'</title></circle></a>'
        )
    for e in range(int(l0), int(l1) + 1):
        body.append(f'<text class="tick" x="{PAD_L - 6}" y="{_y(e, l0, l1) + 4:.1f}" '
                    f'text-anchor="end">{compact(10 ** e)}</text>')
    body += _date_ticks(t0, t1)
    desc = (f"{len(posts)} posts; {outliers} at or above {OUTLIER_SCORE:g}× the "
            f"{window_label} average are highlighted")
    if hidden:
        desc += f"; {hidden} with hidden views not drawn"
    return _frame("Posts: views against publish date", desc, body)

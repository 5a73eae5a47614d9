"""A rising post's views by age against its creator's curve: the p10-p90 band, the median
line, and the post's own snapshots, as plain SVG (as sors.console.charts draws)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup

from sors.console.charts import PAD_B, PAD_L, PAD_R, PAD_T, H, W, _frame
from sors.console.render import compact


def _xh(h: float, h1: float) -> float:
    # Age on a square-root scale: the first hours, where rising posts are found, get room.
    return PAD_L + math.sqrt(max(h, 0.0) / h1) * (W - PAD_L - PAD_R)


def _yv(v: float, v1: float) -> float:
    return H - PAD_B - (max(v, 0.0) / v1) * (H - PAD_T - PAD_B)


def rising_chart(curve: Sequence[Mapping[str, Any]], snapshots: Sequence[Mapping[str, Any]],
                 *, age_hours: float | None = None) -> Markup | None:
    """The post's views at each crawl over its creator's p10-p90 band at the same ages;
    None without snapshots or without a curve."""
    pts = [(0.0, 0.0)] + [(float(s["ageHours"]), float(s["views"])) for s in snapshots
                          if s.get("views") is not None]
    band = [c for c in curve if c.get("p10") is not None and c.get("p90") is not None]
    if len(pts) < 2 or not band:
        return None
    h1 = max(pts[-1][0], age_hours or 0.0) * 1.15 or 1.0
    band = [c for c in band if c["ageHours"] <= h1] or band[:1]
    v1 = max([v for _, v in pts] + [c["p90"] for c in band]) * 1.05 or 1.0
    upper = [(0.0, 0.0)] + [(c["ageHours"], c["p90"]) for c in band]
    lower = [(c["ageHours"], c["p10"]) for c in reversed(band)] + [(0.0, 0.0)]
    poly = " ".join(f"{_xh(h, h1):.1f},{_yv(v, v1):.1f}" for h, v in upper + lower)
    median = " ".join(f"{_xh(h, h1):.1f},{_yv(v, v1):.1f}"
                      for h, v in [(0.0, 0.0)] + [(c["ageHours"], c["p50"]) for c in band])
    line = " ".join(f"{_xh(h, h1):.1f},{_yv(v, v1):.1f}" for h, v in pts)
    body = [
        f'<polygon class="band" points="{poly}"><title>The creator\'s p10-p90 at each age'
        f'</title></polygon>',
        f'<polyline class="median" points="{median}"/>',
        f'<polyline class="line" points="{line}"/>',
    ]
    body += [f'<circle class="dot" cx="{_xh(h, h1):.1f}" cy="{_yv(v, v1):.1f}" r="3">'
             f'<title>{h:.1f} h: {compact(v)} views</title></circle>' for h, v in pts[1:]]
    for frac in (0.0, 0.5, 1.0):
        body.append(f'<text class="tick" x="{PAD_L - 6}" y="{_yv(v1 * frac, v1) + 4:.1f}" '
                    f'text-anchor="end">{compact(v1 * frac)}</text>')
    for h in (1, 6, 24, 72, 168, 720):
        if h <= h1:
            body.append(f'<text class="tick" x="{_xh(h, h1):.1f}" y="{H - 12}" '
                        f'text-anchor="middle">{h if h < 168 else h // 24}{"h" if h < 168 else "d"}'
                        f'</text>')
    last_h, last_v = pts[-1]
    desc = (f"{len(pts) - 1} snapshots; {compact(last_v)} views at {last_h:.1f} hours, against "
            f"the creator's p10-p90 band over {len(band)} ages")
    return _frame("Views by age against the creator's curve", desc, body)

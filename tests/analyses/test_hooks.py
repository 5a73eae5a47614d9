"""Hook types by rule, and the simulated world's hooks: every template recognised, the
documented shares among ordinary posts, outliers leaning on their niche's types."""

from __future__ import annotations

from collections import Counter

import pytest

from sors.analyses.hooks import HOOK_TYPES, classify_hook
from sors.platforms.sim import content
from sors.platforms.sim.rng import Rng


@pytest.mark.parametrize(
    ("hook", "kind"),
    [
        ("How to fall asleep in two minutes", "how_to"),
        ("How to sleep better?", "how_to"),
        ("Three habits changed my mornings forever.", "number_list"),
        ("Did you know your pillow is the problem?", "question"),
        ("I tried cold showers for 30 days straight.", "challenge"),
        ("Last year I was broke and tired.", "story"),
        ("The secret nobody tells you about rent.", "reveal"),
        ("Stop stretching before you run.", "contrarian"),
        ("This is the best pasta you will ever make", "bold_claim"),
        ("POV: your cat hears the can opener", "direct_address"),
        ("Pasta night.", "other"),
        ("", "other"),
    ],
)
def test_rules_name_the_type_the_hook_opens_with(hook: str, kind: str) -> None:
    assert classify_hook(hook) == kind


def test_every_simulated_hook_template_is_recognised_for_every_topic() -> None:
    assert set(content.HOOK_TEMPLATES) == set(HOOK_TYPES) - {"other"}
    for niche in content.niches().values():
        for topic in niche.topics:
            for kind, templates in content.HOOK_TEMPLATES.items():
                for template in templates:
                    assert classify_hook(template.format(t=topic)) == kind, (kind, template)


def test_ordinary_hooks_follow_the_shares_and_outliers_lean_on_their_niche() -> None:
    niche = content.niches()["fitness.yoga"] if "fitness.yoga" in content.niches() else next(
        iter(content.niches().values())
    )
    rng = Rng(7)
    ordinary = Counter(
        content.hook_line(rng.random(), niche, "x", outlier=False)[0] for _ in range(20000)
    )
    for kind, share in content.HOOK_SHARES.items():
        assert ordinary[kind] / 20000 == pytest.approx(share, abs=0.015)
    outliers = Counter(
        content.hook_line(rng.random(), niche, "x", outlier=True)[0] for _ in range(20000)
    )
    leaning = content.leaning_hook_types(niche.id)
    lean_share = sum(outliers[k] for k in leaning) / 20000
    base_share = sum(content.HOOK_SHARES[k] for k in leaning)
    assert lean_share == pytest.approx(
        content.OUTLIER_LEAN + (1 - content.OUTLIER_LEAN) * base_share, abs=0.02
    )
    # Niches do not all lean the same way.
    assert len({content.leaning_hook_types(n) for n in content.niches()}) >= 10

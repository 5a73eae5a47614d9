"""The niche taxonomy and its keyword classifier (pure code, no database)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sors.platforms import taxonomy
from sors.platforms.sim import SimWorld
from sors.platforms.taxonomy import CATEGORIES, MAX_LEAVES, by_id, classify, descendants, tokenize


@pytest.fixture(autouse=True)
def _fresh_limits() -> None:
    """Replaces the package's autouse fixture of the same name, which needs the app and
    its database: nothing here touches either."""


# ---- shape ------------------------------------------------------------------------------


def test_about_forty_categories_in_two_levels() -> None:
    assert 35 <= len(CATEGORIES) <= 50
    ids = [c.id for c in CATEGORIES]
    assert len(ids) == len(set(ids))
    tops = [c for c in CATEGORIES if c.parent_id is None]
    assert 8 <= len(tops) <= 12
    cats = by_id()
    for c in CATEGORIES:
        assert c.name and c.keywords and all(k for k in c.keywords)
        if c.parent_id is not None:
            parent = cats[c.parent_id]
            assert parent.parent_id is None  # two levels, no deeper
            assert c.id.startswith(parent.id + ".")
    for top in tops:
        assert 2 <= len([c for c in CATEGORIES if c.parent_id == top.id]) <= 5


def test_descendants() -> None:
    assert descendants("fitness")[0] == "fitness"
    assert set(descendants("fitness")) == {"fitness"} | {
        c.id for c in CATEGORIES if c.parent_id == "fitness"
    }
    assert descendants("fitness.yoga") == ["fitness.yoga"]
    with pytest.raises(KeyError):
        descendants("knitting")


def test_tokenize_folds_case_accents_and_plurals() -> None:
    assert tokenize("Cafés & #Jalapeños!") == ["cafe", "jalapeno"]
    assert tokenize("CRÈME brûlée") == ["creme", "brulee"]
    assert tokenize("glass dogs") == ["glass", "dog"]  # 'ss' is not a plural
    assert tokenize("") == []


# ---- classify ---------------------------------------------------------------------------


def test_nothing_clear_gives_nothing() -> None:
    assert classify([]) == []
    assert classify(["", "Hello there, happy Monday"]) == []
    assert classify(["I did some yoga once"]) == []  # a passing mention


def test_a_clear_niche_with_its_parent() -> None:
    texts = ["Morning yoga flow for stiff backs", "Vinyasa sequence #yoga", "Pilates core"]
    assert classify(texts) == ["fitness.yoga", "fitness"]


def test_accent_and_case_insensitive() -> None:
    texts = ["CAFÉ-style LATTE at home", "Espresso dialing in", "cold brew #coffee"]
    assert classify(texts)[0] == "food.coffee"


def test_phrases_match() -> None:
    assert classify(["Golden retriever puppy", "dog training recall"])[0] == "pets.dogs"
    assert "finance.investing" in classify(["Index fund vs the S&P 500", "compound interest"])


def test_generic_words_give_the_top_level_only() -> None:
    texts = ["New workout at the gym", "gym workout", "fitness workout again"]
    assert classify(texts) == ["fitness"]


def test_several_niches_best_first_at_most_three() -> None:
    texts = [
        "sourdough bread and croissant dough",
        "sourdough starter, bread again",
        "espresso and latte",
        "budget travel, hostel life",
        "valorant clutch",
        "python coding",
    ]
    out = classify(texts)
    leaves = [c for c in out if "." in c]
    assert leaves[0] == "food.baking"
    assert len(leaves) <= MAX_LEAVES
    for leaf in leaves:  # each leaf brings its parent
        assert leaf.split(".")[0] in out
    assert classify(texts) == out  # deterministic


def test_one_stuffed_caption_does_not_outweigh_many() -> None:
    stuffed = "yoga vinyasa pilates mobility stretching asana yogi downward dog"
    texts = [stuffed] + ["sourdough bread"] * 4
    assert classify(texts)[0] == "food.baking"


@pytest.mark.parametrize("seed", [0, 5])
def test_finds_the_niche_of_simulated_profiles(seed: int) -> None:
    world = SimWorld(seed)
    now = datetime(2026, 11, 22, tzinfo=UTC)
    # Sampled handles (niche named in the handle) and arbitrary ones (niche drawn at random).
    handles = world.sample_handles(120) + [("youtube", f"someone{i}") for i in range(60)]
    first = anywhere = 0
    for platform, handle in handles:
        snap = world.crawl(platform, handle, now)  # type: ignore[arg-type]
        got = classify([snap.profile.bio or ""] + [p.caption or "" for p in snap.posts])
        niche = world.niche_of(platform, handle)  # type: ignore[arg-type]
        first += bool(got) and got[0] == niche
        anywhere += niche in got
    assert first >= 0.9 * len(handles)
    assert anywhere >= 0.95 * len(handles)


def test_only_grams_starting_a_keyword_are_looked_up() -> None:
    """`_candidate_grams` (what classification looks up) finds every keyword that all the
    1- to 3-word runs of a text would find: simulated captions and bios, accented and
    emoji-laden text included."""
    from sors.platforms.taxonomy import _MAX_PHRASE, _candidate_grams, _keyword_index

    def every_gram(tokens: list[str]) -> set[tuple[str, ...]]:
        return {tuple(tokens[i:i + n]) for n in range(1, _MAX_PHRASE + 1)
                for i in range(len(tokens) - n + 1)}

    world = SimWorld(3)
    now = datetime(2026, 11, 22, tzinfo=UTC)
    texts = ["Crème brûlée & JALAPEÑOS 🌶️ air fryer recipes", "home workout, strength training",
             "día de campo: meal prep ideas"]
    for platform, handle in world.sample_handles(40):
        snap = world.crawl(platform, handle, now)  # type: ignore[arg-type]
        texts += [snap.profile.bio or ""] + [p.caption or "" for p in snap.posts]
    index = _keyword_index()
    found = 0
    for text in texts:
        tokens = tokenize(text)
        want = {g for g in every_gram(tokens) if g in index}
        assert {g for g in _candidate_grams(tokens) if g in index} == want, text
        found += len(want)
    assert found > 100  # the texts do hit keywords


# ---- real captions (tests/fixtures/sources: real exports) --------------------------------


def test_hashtags_split_into_words_and_mentions_and_links_say_nothing() -> None:
    text = taxonomy.niche_text(
        "Men's self-care #menselfcare #GlowWithConfidence #AIInterviewCoach #JobSearch2025 "
        "@kossof.salon.spa https://example.org/coffee"
    )
    words = text.split()
    assert {"selfcare", "Glow", "Confidence", "AI", "Interview", "Coach", "2025"} <= set(words)
    assert "kossof" not in text and "coffee" not in text


def test_a_caption_in_another_script_speaks_through_its_hashtags_alone() -> None:
    words = taxonomy.niche_text("써마지는 이 정도 효과 #피부멜로디 #skincare").split()
    assert len(words) == 2 and words[1] == "skincare" and "효과" not in words


def test_real_creators_from_the_recorded_exports_get_their_niche() -> None:
    from pathlib import Path

    from sors.platforms import exports

    sources = Path(__file__).parents[1] / "fixtures" / "sources" / "apify"
    found = {}
    for f in (sources / "tiktok").glob("*.json"), (sources / "instagram").glob("*.json"):
        for path in f:
            parsed = exports.parse_file(path, observed_at=datetime(2026, 9, 1, tzinfo=UTC))
            for snap in parsed.snapshots:
                recent = sorted(snap.posts, key=lambda p: p.published_at, reverse=True)
                found[snap.profile.handle] = taxonomy.classify_profile(
                    snap.profile.bio, snap.profile.display_name, (p.caption for p in recent))
    # Hand-checked: a salon-spa, three hair colourists, an AI commentator.
    assert found["kossof.salon.spa"][:2] == ["beauty.hair", "beauty"]
    assert found["jennymastercolorist"][0] == "beauty.hair"
    assert found["joanna_artistry"][0] == "beauty.hair"  # captions that are only hashtags
    assert found["nuancedaiman"][0] == "tech.ai"


def test_face_lifting_is_not_weightlifting() -> None:
    caption = "Where does Thermage work best? Forehead tightening, eyelid lifting, jawline lifting"
    assert "fitness.strength" not in taxonomy.classify([caption] * 5)

"""The niche taxonomy shipped with the code, and the keyword classifier that uses it.

Two levels: a top-level niche (`fitness`) and its children (`fitness.yoga`). Ids are stable
API values (clients filter search by them), so rename a display name freely but never an id.

`classify` is deliberately simple and deterministic: the same bio and captions always give
the same categories, which keeps re-crawls from flapping and makes the result explainable
("it says yoga and vinyasa in 14 captions"). Keywords are matched on normalised tokens
(lower-case, accents removed, a plural 's' dropped) and on two- and three-word phrases.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache


@dataclass(frozen=True, slots=True)
class Category:
    id: str
    name: str
    parent_id: str | None
    keywords: tuple[str, ...]


def _c(id: str, name: str, keywords: str) -> Category:
    parent = id.rsplit(".", 1)[0] if "." in id else None
    return Category(id, name, parent, tuple(k.strip() for k in keywords.split(",")))


# Keywords avoid words every niche uses ("tips", "review", "code", "market") so that one
# caption cannot pull a profile into an unrelated niche.
CATEGORIES: tuple[Category, ...] = (
    _c("fitness", "Fitness", "fitness, workout, gym, exercise, fitfam, personal trainer, gains"),
    _c("fitness.yoga", "Yoga & Pilates",
       "yoga, yogi, vinyasa, asana, pilates, mobility, stretching, downward dog, sun salutation"),
    _c("fitness.strength", "Strength Training",
       "weightlifting, deadlift, squat, bench press, powerlifting, hypertrophy, legday, "
       "dumbbell, barbell, lifting heavy, lift heavy"),
    _c("fitness.running", "Running",
       "running, runner, marathon, 5k, 10k, half marathon, trail run, runtok, long run"),
    _c("fitness.home_workouts", "Home Workouts",
       "hiit, bodyweight, homeworkout, home workout, burpee, no equipment, resistance band, "
       "living room workout"),
    _c("food", "Food", "food, recipe, cooking, foodie, kitchen, delicious, foodtok"),
    _c("food.baking", "Baking",
       "baking, bake, sourdough, bread, cake, cookie, pastry, croissant, dough, oven, brioche"),
    _c("food.home_cooking", "Home Cooking",
       "dinner, weeknight, pasta, one pot, skillet, jalapeno, taco, stir fry, mealprep, sheet pan"),
    _c("food.vegan", "Vegan & Plant-Based",
       "vegan, plantbased, plant based, tofu, dairy free, dairyfree, vegetarian, chickpea, "
       "lentil, tempeh"),
    _c("food.coffee", "Coffee",
       "coffee, espresso, latte, barista, cafe, cold brew, pour over, cappuccino, matcha, "
       "coffeetok"),
    _c("beauty", "Beauty", "beauty, glam, selfcare, beautytok"),
    _c("beauty.makeup", "Makeup",
       "makeup, eyeliner, lipstick, foundation, contour, mascara, eyeshadow, blush, concealer, "
       "grwm"),
    _c("beauty.skincare", "Skincare",
       "skincare, serum, moisturizer, spf, sunscreen, retinol, acne, cleanser, glass skin, "
       "niacinamide"),
    _c("beauty.hair", "Hair",
       "hair, hairstyle, curl, braid, haircut, curly hair, blowout, hairstylist, hairtok, scalp"),
    _c("fashion", "Fashion", "fashion, outfit, ootd, wardrobe, lookbook, styling, fashiontok"),
    _c("fashion.streetwear", "Streetwear",
       "streetwear, sneaker, hoodie, hypebeast, jordan, fit check, cargo, baggy jeans"),
    _c("fashion.thrifting", "Thrifting & Vintage",
       "thrift, thrifted, thrifting, secondhand, thrift haul, upcycle, upcycled, vintage, "
       "charity shop"),
    _c("tech", "Tech", "tech, technology, techtok"),
    _c("tech.gadgets", "Gadgets",
       "gadget, unboxing, smartphone, iphone, android, headphone, laptop, tablet, smartwatch, "
       "earbud"),
    _c("tech.programming", "Programming",
       "coding, programming, python, javascript, developer, software, programmer, debugging, "
       "frontend, backend"),
    _c("tech.ai", "AI",
       "ai, chatgpt, machine learning, llm, artificial intelligence, neural network, prompt, "
       "chatbot, automation"),
    _c("finance", "Finance", "finance, money, financial, wealth, moneytok, financetok"),
    _c("finance.investing", "Investing",
       "investing, stock market, s&p 500, etf, dividend, portfolio, index fund, "
       "compound interest, investor, brokerage"),
    _c("finance.budgeting", "Budgeting",
       "budget, budgeting, saving, debt, frugal, emergency fund, paycheck, cash stuffing, "
       "sinking fund"),
    _c("finance.crypto", "Crypto",
       "crypto, bitcoin, ethereum, blockchain, altcoin, defi, btc, eth, cryptocurrency, hodl"),
    _c("travel", "Travel", "travel, trip, traveling, wanderlust, vacation, traveltok, itinerary"),
    _c("travel.backpacking", "Backpacking",
       "backpacking, backpacker, hostel, budget travel, solo travel, carry on, backpack, "
       "overnight bus"),
    _c("travel.city_guides", "City Guides",
       "city guide, hidden gem, neighborhood, museum, things to do, local spot, rooftop, old town"),
    _c("travel.vanlife", "Van Life",
       "vanlife, van life, campervan, camping, road trip, overlanding, van build, campsite"),
    _c("gaming", "Gaming", "gaming, gamer, videogame, gamingtok, controller, console"),
    _c("gaming.fps", "Shooters",
       "fps, valorant, warzone, call of duty, shooter, headshot, clutch, counter strike, sniper"),
    _c("gaming.retro", "Retro Gaming",
       "retro, nintendo, snes, game boy, arcade, emulator, n64, cartridge, sega, retrogaming"),
    _c("gaming.speedrunning", "Speedrunning",
       "speedrun, speedrunning, speedrunner, world record, any%, personal best, glitch, "
       "speedrun route, wr"),
    _c("education", "Education", "education, learn, learning, lesson, explained, studytok, edutok"),
    _c("education.languages", "Languages",
       "spanish, french, japanese, vocabulary, grammar, fluent, language learning, "
       "pronunciation, verb, polyglot"),
    _c("education.science", "Science",
       "science, physics, chemistry, biology, experiment, astronomy, planet, molecule, "
       "scientist, sciencetok"),
    _c("education.history", "History",
       "history, historical, ancient, empire, medieval, century, roman, pharaoh, dynasty, "
       "historytok"),
    _c("comedy", "Comedy", "comedy, funny, humor, joke, comedian, lol"),
    _c("comedy.sketches", "Sketches", "sketch, skit, parody, impression, sketch comedy, roommate"),
    _c("comedy.pranks", "Pranks", "prank, pranked, prankster, hidden camera, scare, prank war"),
    _c("pets", "Pets", "pet, pets, petsoftiktok, animal, adopt"),
    _c("pets.dogs", "Dogs",
       "dog, puppy, pup, doggo, dogsoftiktok, golden retriever, dog training, leash, fetch"),
    _c("pets.cats", "Cats", "cat, kitten, kitty, catsoftiktok, meow, litter, purr, catnip"),
)  # fmt: skip


@cache
def by_id() -> dict[str, Category]:
    return {c.id: c for c in CATEGORIES}


def children(category_id: str) -> list[Category]:
    return [c for c in CATEGORIES if c.parent_id == category_id]


def descendants(category_id: str) -> list[str]:
    """The category and everything under it (its own id first). Unknown id: KeyError."""
    if category_id not in by_id():
        raise KeyError(category_id)
    out = [category_id]
    for child in children(category_id):
        out.extend(descendants(child.id))
    return out


# ---- classification -------------------------------------------------------------------

_TOKEN_RE = re.compile(r"[a-z0-9]+%?")
_MAX_PHRASE = 3
_HITS_CAP_PER_TEXT = 3  # one keyword-stuffed caption must not outweigh a dozen plain ones
_MIN_LEAF_HITS = 2  # below this, a niche is a passing mention, not what the profile is about
_MIN_PARENT_HITS = 3
_PARENT_WEIGHT = 0.5  # "workout" says fitness but not which kind of fitness
_RELATIVE_CUTOFF = 0.35  # secondary niches must be at least this close to the best
MAX_LEAVES = 3


def _fold(text: str) -> str:
    folded = text.casefold()
    if folded.isascii():  # most text: nothing to decompose (ingest classifies every crawl)
        return folded
    decomposed = unicodedata.normalize("NFKD", folded)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _stem(token: str) -> str:
    if len(token) >= 4 and token.endswith("s") and not token.endswith("ss"):
        return token[:-1]
    return token


def tokenize(text: str) -> list[str]:
    """Lower-case, accent-free, singular-ish tokens: 'Cafés & #Jalapeños' -> cafe, jalapeno."""
    return [_stem(t) for t in _TOKEN_RE.findall(_fold(text))]


@cache
def _keyword_index() -> dict[tuple[str, ...], tuple[str, ...]]:
    """Normalised keyword phrase -> the ids of the categories that list it."""
    index: dict[tuple[str, ...], list[str]] = {}
    for cat in CATEGORIES:
        for kw in cat.keywords:
            phrase = tuple(tokenize(kw))
            if phrase and cat.id not in index.setdefault(phrase, []):
                index[phrase].append(cat.id)
    return {k: tuple(v) for k, v in index.items()}


@cache
def _keyword_starts() -> frozenset[str]:
    """The first word of every keyword phrase: a word that starts none starts no match."""
    return frozenset(phrase[0] for phrase in _keyword_index())


def _candidate_grams(tokens: list[str]) -> set[tuple[str, ...]]:
    """Every run of 1 to `_MAX_PHRASE` tokens that starts with a keyword's first word: the
    only runs that can be keywords."""
    starts = _keyword_starts()
    out: set[tuple[str, ...]] = set()
    for i, token in enumerate(tokens):
        if token in starts:
            out.update(tuple(tokens[i : i + n]) for n in range(1, _MAX_PHRASE + 1)
                       if i + n <= len(tokens))
    return out


_MENTION_OR_URL = re.compile(r"@[\w.]+|https?://\S+|www\.\S+")
_HASHTAG = re.compile(r"#(\w+)")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
# A run-together lower-case hashtag ("#menselfcare", "#coffeeaddict") is read for keywords
# it starts or ends with, from this length up: shorter ones hide in other words ("cat").
_MIN_AFFIX = 4


@lru_cache(maxsize=65536)  # hashtags repeat across a creator's captions and across creators
def _hashtag_words(tag: str) -> str:
    """'AIInterviewCoach' -> 'AI Interview Coach'; 'menselfcare' -> 'menselfcare selfcare'."""
    if any("A" <= ch <= "Z" for ch in tag):
        return " ".join(_CAMEL.findall(tag))
    folded = _fold(tag)
    joined = _joined_keywords()
    found = [folded]
    for n in range(_MIN_AFFIX, len(folded)):
        for part in (folded[:n], folded[-n:]):
            if part in joined:
                found.append(joined[part])
    return " ".join(found)


@cache
def _joined_keywords() -> dict[str, str]:
    """Each keyword phrase run together ("coldbrew") -> its words ("cold brew")."""
    return {"".join(p): " ".join(p) for p in _keyword_index() if len("".join(p)) >= _MIN_AFFIX}


def _latin_share(text: str) -> float:
    if text.isascii():
        return 1.0
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return 1.0
    return sum(1 for ch in letters if _fold(ch).isascii()) / len(letters)


def niche_text(text: str) -> str:
    """What of a bio or caption says its niche: words and hashtags (split into words), not
    mentions, links or emoji. A text mostly in a non-Latin script speaks through its
    hashtags alone (its words cannot match the keyword lists, and would only mislead)."""
    if "@" in text or "http" in text or "www." in text:
        text = _MENTION_OR_URL.sub(" ", text)
    if "#" not in text:
        return text if _latin_share(text) >= 0.5 else ""
    tags = [_hashtag_words(t) for t in _HASHTAG.findall(text)]
    body = _HASHTAG.sub(" ", text)
    if _latin_share(body) < 0.5:
        return " ".join(tags)
    return " ".join([body, *tags])


def _hits(texts: Iterable[str]) -> dict[str, int]:
    """Per category: distinct keywords found in each text (capped), summed over the texts."""
    index = _keyword_index()
    totals: dict[str, int] = {}
    for text in texts:
        if not text:
            continue
        per_text: dict[str, int] = {}
        for gram in _candidate_grams(tokenize(niche_text(text))):
            for cat_id in index.get(gram, ()):
                per_text[cat_id] = per_text.get(cat_id, 0) + 1
        for cat_id, n in per_text.items():
            totals[cat_id] = totals.get(cat_id, 0) + min(n, _HITS_CAP_PER_TEXT)
    return totals


def classify(texts: Iterable[str]) -> list[str]:
    """Category ids for a profile from its bio and captions, best first.

    Up to MAX_LEAVES leaf ids, each followed by its parent when that is not already listed.
    A profile that only uses its niche's generic words ("workout", "recipe") gets the
    top-level niche alone. Nothing clear: an empty list.
    """
    hits = _hits(texts)
    cats = by_id()
    scored: list[tuple[float, str]] = []
    for cat_id, n in hits.items():
        parent = cats[cat_id].parent_id
        if parent is not None and n >= _MIN_LEAF_HITS:
            scored.append((n + _PARENT_WEIGHT * hits.get(parent, 0), cat_id))
    if not scored:
        parents = [
            (n, cat_id)
            for cat_id, n in hits.items()
            if cats[cat_id].parent_id is None and n >= _MIN_PARENT_HITS
        ]
        if not parents:
            return []
        best_n = max(n for n, _ in parents)
        winners = sorted(cat_id for n, cat_id in parents if n == best_n)
        return winners[:1]
    # Ties broken by id so the answer never depends on dict order.
    scored.sort(key=lambda item: (-item[0], item[1]))
    best = scored[0][0]
    out: list[str] = []
    for score, cat_id in scored[:MAX_LEAVES]:
        if score < best * _RELATIVE_CUTOFF:
            break
        out.append(cat_id)
        parent_id = cats[cat_id].parent_id
        if parent_id is not None and parent_id not in out:
            out.append(parent_id)
    return out


CAPTIONS_READ = 20


def classify_profile(bio: str | None, display_name: str | None,
                     captions_newest_first: Iterable[str | None]) -> list[str]:
    """A creator's categories from the bio, the display name, and the newest 20 captions
    (what the creator is about now; it also bounds the work)."""
    recent = [c or "" for _, c in zip(range(CAPTIONS_READ), captions_newest_first,
                                       strict=False)]
    return classify([bio or "", display_name or "", *recent])

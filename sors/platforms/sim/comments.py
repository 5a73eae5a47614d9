"""Comments on simulated posts: what the audience says follows the post's topic — questions
about it, requests for a part 2 or another video, confusion, complaints, praise, some emoji
and spam — in English mostly, and Dutch, Spanish, Portuguese and German.

A post's comments are a pure function of (world seed, post id): the same every fetch, and
a comment is visible once its time has come. How many a post has grows like the square
root of its comment count (an outlier, with many more views, has several times as many).

Each niche also has two planted questions (`planted`): one its posts answer (their topic,
asked back) and one none of the world's posts answer, written under a share of the niche's
posts, so demand search's `covered` can be checked against both.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

from sors.platforms.base import CommentSnapshot, PostSnapshot
from sors.platforms.sim.content import FIRST_NAMES, niches
from sors.platforms.sim.rng import Rng, stable_int

MAX_PER_POST = 40
# Share of a niche's posts that carry each planted question (when they have comments).
PLANTED_SHARE = 0.3
LANGUAGES = ("en", "nl", "es", "pt", "de")
LANGUAGE_WEIGHTS = (0.72, 0.07, 0.08, 0.07, 0.06)
KINDS = ("question", "request", "part_two", "confusion", "objection", "praise", "other",
         "emoji", "spam")
KIND_WEIGHTS = (0.22, 0.1, 0.07, 0.05, 0.07, 0.3, 0.08, 0.08, 0.03)

# "{t}" the post's topic, "{o}" another topic of its niche, "{tip}" one of the niche's tips.
TEMPLATES: dict[str, dict[str, tuple[str, ...]]] = {
    "question": {
        "en": ("How long does {t} take?", "What do you use for {t}?",
               "How often should I do {t}?", "Is {t} good for beginners?",
               "Where did you learn {t}?", "What's the first step of {t}?"),
        "nl": ("Hoe lang duurt {t}?", "Wat gebruik je voor {t}?", "Hoe begin ik met {t}?"),
        "es": ("¿Cuánto tarda {t}?", "¿Qué usas para {t}?", "¿Cómo empiezo con {t}?"),
        "pt": ("Quanto tempo leva {t}?", "O que você usa para {t}?", "Como começo com {t}?"),
        "de": ("Wie lange dauert {t}?", "Was benutzt du für {t}?", "Wie fange ich mit {t} an?"),
    },
    "request": {
        "en": ("Can you make a video on {o}?", "Please do {o} next!",
               "Would love a full tutorial on {t}", "Can you show {o} step by step?"),
        "nl": ("Kun je ook een video maken over {o}?", "Graag een video over {o}"),
        "es": ("¿Puedes hacer un video de {o}?", "Por favor haz uno de {o}"),
        "pt": ("Pode fazer um vídeo sobre {o}?", "Por favor faz um de {o}"),
        "de": ("Kannst du bitte ein Video über {o} machen?", "Mach bitte mehr zu {o}"),
    },
    "part_two": {
        "en": ("Part 2 please!!", "We need a part 2 of {t}", "Next part when?"),
        "nl": ("Deel 2 graag!", "Wanneer komt deel 2?"),
        "es": ("¡Parte 2 por favor!", "Queremos la segunda parte"),
        "pt": ("Parte 2 por favor!", "Cadê a próxima parte?"),
        "de": ("Teil 2 bitte!", "Wann kommt der nächste Teil?"),
    },
    "confusion": {
        "en": ("I don't understand the second step", "I'm confused, {tip_lower}",
               "This makes no sense to me"),
        "nl": ("Ik snap het niet helemaal", "Wat bedoel je met de tweede stap"),
        "es": ("No entiendo el segundo paso", "Estoy confuso con el final"),
        "pt": ("Não entendi a segunda parte", "Como assim no final"),
        "de": ("Ich verstehe das nicht ganz", "Was meinst du mit dem zweiten Schritt"),
    },
    "objection": {
        "en": ("This doesn't work, tried it twice", "Way too expensive for most people",
               "Wrong, {tip_lower}", "Clickbait title"),
        "nl": ("Dit werkt niet bij mij", "Veel te duur"),
        "es": ("No funciona, lo intenté", "Demasiado caro, no funciona para mí"),
        "pt": ("Não funciona, tentei duas vezes", "Muito caro"),
        "de": ("Funktioniert nicht bei mir", "Viel zu teuer"),
    },
    "praise": {
        "en": ("Love this! 😍", "Amazing {t} 🔥", "So good, thank you!", "Best video on {t}"),
        "nl": ("Wat mooi! 😍", "Heerlijk, bedankt!", "Top video"),
        "es": ("¡Me encanta! 😍", "Genial, gracias"),
        "pt": ("Amei! 😍", "Incrível, obrigado"),
        "de": ("Toll, danke! 😍", "Super Video"),
    },
    "other": {
        "en": ("Watching this at 3am", "My sister does this every day", "First time here"),
        "nl": ("Mijn zus doet dit ook", "Ik kijk dit om 3 uur 's nachts"),
        "es": ("Mi hermana hace esto", "Viendo esto a las 3am"),
        "pt": ("Minha irmã faz isso", "Vendo isso às 3 da manhã"),
        "de": ("Meine Schwester macht das auch", "Schaue das um 3 Uhr nachts"),
    },
}
_EMOJI = ("😍😍", "🔥🔥🔥", "👏👏", "❤️", "😂😂😂", "🙌")
_SPAM = ("Check out my page for free followers www.boost-fans.example",
         "Earn $500 a day from home, DM me on telegram")

# The question each niche's posts answer is one of their topics asked back (the topic the
# niche's captions state most plainly, ANSWERED_TOPIC); the one they do not answer is about
# nothing in the simulated world. Chosen so the two stay apart under both offline models:
# the answered one's nearest post scored 0.65 or more, the unanswered one's at most 0.48
# (docs/API.md, "covered").
ANSWERED_TOPIC = {
    "beauty.hair": 7, "beauty.makeup": 6, "beauty.skincare": 3, "comedy.pranks": 7,
    "comedy.sketches": 7, "education.history": 2, "education.languages": 3,
    "education.science": 1, "fashion.streetwear": 0, "fashion.thrifting": 1,
    "finance.budgeting": 3, "finance.crypto": 0, "finance.investing": 7,
    "fitness.home_workouts": 3, "fitness.running": 0, "fitness.strength": 1, "fitness.yoga": 2,
    "food.baking": 1, "food.coffee": 1, "food.home_cooking": 4, "food.vegan": 6,
    "gaming.fps": 2, "gaming.retro": 2, "gaming.speedrunning": 7, "pets.cats": 4,
    "pets.dogs": 5, "tech.ai": 6, "tech.gadgets": 4, "tech.programming": 0,
    "travel.backpacking": 6, "travel.city_guides": 7, "travel.vanlife": 7,
}
UNANSWERED = {
    "beauty.hair": "Is it safe to bleach my hair while pregnant?",
    "beauty.makeup": "Which brands are cruelty-free and sold in Canada?",
    "beauty.skincare": "Is it safe to use on a tattoo?",
    "comedy.pranks": "Did anyone ever call the police on one of these?",
    "comedy.sketches": "Who writes the scripts and do you hire extras?",
    "education.history": "Do you give school visits?",
    "education.languages": "Is Korean harder than Japanese for English speakers?",
    "education.science": "Why does my phone battery die faster in the cold?",
    "fashion.streetwear": "Where can I find size 15 shoes in Europe?",
    "fashion.thrifting": "How do you get the smell out of a secondhand leather jacket?",
    "finance.budgeting": "How do we split bills fairly when my partner earns twice as much?",
    "finance.crypto": "What happens to my coins if I die?",
    "finance.investing": "Should I pay off my student loan before I invest?",
    "fitness.home_workouts": "Should I see a doctor about chest pain?",
    "fitness.running": "What do I do about shin splints that won't go away?",
    "fitness.strength": "Can I lift weights while fasting for Ramadan?",
    "fitness.yoga": "Which insurance covers physiotherapy?",
    "food.baking": "How do I bake this at high altitude without it collapsing?",
    "food.coffee": "Do you ship to Australia?",
    "food.home_cooking": "What can I cook for a toddler who refuses vegetables?",
    "food.vegan": "Where do vegans get enough vitamin B12?",
    "gaming.fps": "Which monitor refresh rate is worth it on a tight budget?",
    "gaming.retro": "Do old consoles work on a 4K TV without lag?",
    "gaming.speedrunning": "How do you keep your hands from cramping in long sessions?",
    "pets.cats": "Is it normal for an older cat to drink this much water?",
    "pets.dogs": "What should I do when my dog eats chocolate?",
    "tech.ai": "Will AI replace translators in the next five years?",
    "tech.gadgets": "Which phone works best with hearing aids?",
    "tech.programming": "How do I negotiate salary for my first developer job?",
    "travel.backpacking": "Do I need travel insurance that covers motorbike accidents?",
    "travel.city_guides": "Is the city accessible for wheelchair users?",
    "travel.vanlife": "How do you get your mail without a permanent address?",
}


def planted(niche_id: str) -> tuple[str, str]:
    """(the question the niche's posts answer, the one no post answers)."""
    topic = niches()[niche_id].topics[ANSWERED_TOPIC[niche_id]]
    return f"Can someone explain {topic}?", UNANSWERED[niche_id]


def comment_count(post: PostSnapshot) -> int:
    return min(MAX_PER_POST, math.isqrt(max(0, post.comments or 0)))


def _comment_id(platform: str, published: int, n: int) -> str:
    if platform == "tiktok":
        return str((published << 32) | (n & 0xFFFFFFFF))
    if platform == "instagram":
        return str(17_800_000_000_000_000 + n % 199_999_999_999_999)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    code = "".join(alphabet[(n >> (6 * i)) % 64] for i in range(20))
    return f"Ug{code}4AaABAg"


def _author(rng: Rng) -> str:
    return f"{rng.choice(FIRST_NAMES)}{rng.choice(('', '.', '_'))}{rng.below(999)}"


def _text(rng: Rng, kind: str, lang: str, topic: str, other: str, tip: str) -> str:
    if kind == "emoji":
        return rng.choice(_EMOJI)
    if kind == "spam":
        return rng.choice(_SPAM)
    template = rng.choice(TEMPLATES[kind][lang])
    return template.format(t=topic, o=other, tip_lower=tip[:1].lower() + tip[1:])


def post_comments(
    post: PostSnapshot, seed: int, now: datetime, limit: int | None = None
) -> list[CommentSnapshot]:
    """The post's comments visible at `now`, most liked first (as platforms list them),
    at most `limit`."""
    found = [c for c, _ in written(post, seed, now)]
    return found if limit is None else found[:limit]


def written(post: PostSnapshot, seed: int, now: datetime) -> list[tuple[CommentSnapshot, str]]:
    """The post's visible comments, most liked first, each with the kind it was written as
    (a template's kind, "question" for the planted ones, "emoji_only" or "spam"): the
    simulated half of the labelled sample that measures demand.classify."""
    niche = niches().get(str(post.extra.get("niche") or ""))
    topic = str(post.extra.get("topic") or "")
    if niche is None or not topic:
        return []
    rng = Rng(stable_int(seed, post.platform, post.platform_post_id, "comments"))
    published = post.published_at.timestamp()
    age = max(0.0, now.timestamp() - published)
    answered, unanswered = planted(niche.id)
    texts: list[tuple[str, str | None, str]] = []  # (text, language, kind)
    if rng.chance(PLANTED_SHARE):
        texts.append((answered, "en", "question"))
    if rng.chance(PLANTED_SHARE):
        texts.append((unanswered, "en", "question"))
    while len(texts) < comment_count(post):
        kind = rng.weighted(KINDS, KIND_WEIGHTS)
        lang = rng.weighted(LANGUAGES, LANGUAGE_WEIGHTS)
        other = rng.choice([t for t in niche.topics if t != topic] or [topic])
        noise = {"emoji": "emoji_only", "spam": "spam"}.get(kind)
        texts.append((_text(rng, kind, lang, topic, other, rng.choice(niche.tips)),
                      None if noise else lang, noise or kind))
    out = []
    for n, (text, lang, kind) in enumerate(texts):
        # Most comments come in the first days: 10 minutes to 30 days, log-uniform.
        delay = rng.log_uniform(600.0, 30 * 86400.0)
        likes = int(rng.lognormal(0.5, 1.6)) if n > 1 or rng.chance(0.5) else rng.below(200)
        author = _author(rng)
        if delay > age:
            continue
        at = int(published + delay)
        out.append((CommentSnapshot(
            platform=post.platform, platform_post_id=post.platform_post_id,
            platform_comment_id=_comment_id(post.platform, at, stable_int(
                seed, post.platform_post_id, "comment", n)),
            text=text, author_handle=author, likes=likes, replies=rng.below(3),
            published_at=datetime.fromtimestamp(at, UTC), language=lang,
        ), kind))
    out.sort(key=lambda c: (-(c[0].likes or 0), c[0].platform_comment_id))
    return out

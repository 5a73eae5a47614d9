"""What a comment asks for, by rules that read English, Dutch, Spanish, Portuguese and
German: `question`, `request`, `part_two`, `confusion`, `objection`, `praise` or `other`;
and whether it is noise set apart from demand (`spam`, `emoji_only`).

The rules run in a fixed order, the most specific first: a request for a second part is
`part_two` before it is a request, "can you make a video on …?" is a `request` before it is a
question, "I don't get step 3" is `confusion` before anything else. A question is a question
mark, or an interrogative that opens the comment (not a "?" inside a quoted title). Every
pattern is a whole-word match on the lower-cased text with accents kept; each list is short
and read from real comments (tests/fixtures/demand/labels.csv measures them, docs/PERFORMANCE.md
gives the figures).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass


def _words(*phrases: str) -> re.Pattern[str]:
    """Any of `phrases` as whole words (a phrase may hold regex pieces)."""
    return re.compile(r"(?<![\w])(?:" + "|".join(phrases) + r")(?![\w])", re.I)


PART_TWO = _words(
    r"part\s*(?:2|two|ii|3|three)", r"pt\.?\s*2", r"next part", r"(?:need|want|make|do) a sequel",
    r"sequel (?:please|pls|plz|when|soon)", r"continuation",
    r"more of (?:this|these)", r"deel\s*(?:2|twee)", r"volgende deel", r"vervolg",
    r"parte\s*(?:2|dos|dois)", r"segunda parte", r"siguiente parte", r"pr[oó]xima parte",
    r"continua[çc][aã]o", r"continuaci[oó]n", r"teil\s*(?:2|zwei)", r"zweiter teil",
    r"n[aä]chste[nr]? teil", r"fortsetzung",
)
REQUEST = _words(
    # English
    r"(?:please|pls|plz) (?:\w+ )?(?:make|do|show|post|share|film|explain|review|try|drop|"
    r"upload|teach|link|sing|play|cover|add|bring|continue|give|tell|write|list|include)",
    r"(?:can|could|would|will) (?:you|u) (?:please |pls |plz )?"
    r"(?:make|do|show|post|share|film|explain|review|try|drop|upload|teach|link|tell us)",
    r"(?:make|do|need|want|film) (?:a|another|more) (?:video|videos|tutorial|reel|one)",
    r"we need (?:a|more|the)", r"(?:recipe|link|tutorial|list|source) (?:please|pls|plz)",
    r"drop the (?:recipe|link|list)", r"would love (?:a|to see|more)",
    r"(?:i|we) want (?:a|more|the) (?:video|recipe|tutorial|part)",
    # Dutch
    r"(?:kun|kan|wil) je (?:ook |eens |misschien )?(?:een )?(?:video |filmpje )?"
    r"(?:maken|laten zien|delen|uitleggen|posten)",
    r"(?:kunnen|willen) jullie (?:ook |eens )?(?:een )?(?:video )?(?:maken|delen|laten zien)",
    r"maak (?:eens|alsjeblieft|aub|ook) ", r"graag (?:een|meer) (?:video|recept|uitleg)",
    r"recept (?:graag|alsjeblieft|aub)",
    # Spanish
    r"(?:puedes|podr[ií]as|podr[ií]an|pueden) "
    r"(?:hacer|subir|compartir|explicar|mostrar|ense[ñn]ar)",
    r"haz (?:un|una|otro|otra|m[aá]s)", r"por favor (?:haz|sube|comparte|explica|muestra)",
    r"sube (?:la|el|m[aá]s)", r"comparte (?:la|el) (?:receta|link|enlace)",
    r"queremos (?:m[aá]s|la|el|un|una)",
    # Portuguese
    r"(?:pode|poderia|podia|podem) (?:fazer|postar|compartilhar|explicar|mostrar|ensinar)",
    r"fa[zç]a? (?:um|uma|outro|outra|mais) (?:v[ií]deo|receita|tutorial)",
    r"por favor (?:fa[zç]a?|posta|poste|mostra|mostre|explica|explique|manda)",
    r"manda (?:a|o) (?:receita|link)", r"queremos mais",
    # German
    r"(?:kannst|k[oö]nntest|w[uü]rdest) du (?:bitte |mal |uns )*"
    r"(?:machen|zeigen|erkl[aä]ren|posten|teilen|ein video|mehr)",
    r"mach (?:bitte |mal |doch )*(?:ein|eine|mehr|noch)", r"bitte (?:mehr|ein video|zeig)",
    r"(?:wir brauchen|ich will|ich m[oö]chte) (?:mehr|ein video|das rezept)",
)
CONFUSION = _words(
    r"(?:i|i'm|im) (?:don'?t|do not|still don'?t) (?:understand|get it|get how|get why)",
    r"(?:i'm|im|i am|so) (?:confused|lost)", r"confusing", r"makes no sense",
    r"doesn'?t make sense", r"what do you mean", r"lost me",
    r"(?:ik )?(?:snap|begrijp|volg) (?:het|er|dit|je)? ?niet", r"verwarrend",
    r"wat bedoel je", r"no (?:entiendo|entend[ií]|comprendo)", r"confus[oa]",
    r"qu[eé] quieres decir", r"n[aã]o (?:entendi|entendo|compreendi)", r"como assim",
    r"(?:verstehe?|check) (?:ich )?(?:das |es )?nicht", r"versteh ich nicht", r"verwirrend",
    r"was meinst du",
)
OBJECTION = _words(
    r"not true", r"fake", r"clickbait", r"doesn'?t work", r"didn'?t work", r"waste of",
    r"too expensive", r"overpriced", r"misleading", r"scam", r"wrong", r"disagree",
    r"terrible", r"worst", r"boring", r"ridiculous", r"bullshit", r"full of shit",
    r"klopt niet", r"onzin", r"te duur", r"werkt niet", r"nep", r"slecht",
    r"no funciona", r"mentira", r"falso", r"estafa", r"muy caro",
    r"n[aã]o funciona", r"golpe", r"muito caro", r"ruim",
    r"stimmt nicht", r"funktioniert nicht", r"falsch", r"zu teuer", r"betrug", r"quatsch",
)
PRAISE = _words(
    r"love", r"loved", r"loving", r"amazing", r"awesome", r"great", r"beautiful", r"nice",
    r"good", r"thank(?:s| you)", r"best", r"perfect", r"wow", r"incredible", r"brilliant",
    r"gorgeous", r"underrated", r"fire", r"goat", r"congrats", r"congratulations",
    r"mooi", r"leuk", r"lekker", r"heerlijk", r"top", r"toppers?", r"geweldig", r"prachtig",
    r"goed gedaan", r"bedankt", r"super", r"aanrader", r"jammie",
    r"me encanta", r"genial", r"incre[ií]ble", r"hermos[oa]", r"gracias", r"excelente",
    r"buen[ií]sim[oa]", r"amei", r"adoro", r"lind[oa]", r"maravilhos[oa]", r"perfeit[oa]",
    r"obrigad[oa]", r"toll", r"klasse", r"danke", r"wunderbar", r"sch[oö]n", r"mega",
)
# An interrogative that opens a sentence makes it a question even without "?", when it
# is one that asks rather than exclaims ("wat mooi!", "wie geil!" are not questions).
_OPENERS = _words(
    r"how (?:do|does|did|can|could|should|to|much|many|long|often|is|are|about)",
    r"what (?:is|are|do|does|did|kind|brand|type|size|temperature|temp|time|about)",
    r"where (?:do|does|did|can|is|are|to)", r"which", r"why (?:do|does|did|is|are|not)",
    r"when (?:do|does|did|is|are|will)", r"can (?:i|we|you|it)", r"should (?:i|we)",
    r"is (?:it|this|that|there)", r"are (?:there|they|these|those)", r"does (?:it|this|that)",
    r"do (?:you|i|they)", r"anyone know", r"any (?:tips|idea|ideas|advice)",
    r"hoe (?:doe|doen|maak|maken|lang|veel|kan|kun|moet|zit|werkt)", r"hoeveel", r"waarom",
    r"waar (?:kan|koop|haal|is|zijn|vind)", r"welke", r"wanneer", r"kan (?:ik|je|dat)",
    r"c[oó]mo (?:se|lo|la|los|las|hago|haces|hiciste|puedo)", r"d[oó]nde", r"cu[aá]nt[oa]s?",
    r"cu[aá]l", r"por qu[eé]", r"como (?:faz|fazer|voc[eê]|vc|se|eu|fa[cç]o)", r"onde",
    r"quant[oa]s?", r"qual", r"wie (?:lange|viel|oft|macht|mache|kann|geht)", r"wieviel",
    r"warum", r"wo (?:kann|gibt|bekomme|kauf)", r"welche[rsn]?", r"gibt es", r"kann man",
)
_SPAM = _words(
    r"https?://\S+", r"www\.\S+", r"\S+\.(?:com|net|ly|io)/\S*", r"check (?:out )?my",
    r"follow me", r"sub4sub", r"subscribe to my", r"visit my", r"dm me", r"whatsapp",
    r"promo code", r"igrocket", r"free followers", r"earn \$?\d+", r"crypto", r"telegram",
)
_MENTION = re.compile(r"@[\w.]+")
# A copied comment of this length or more (its words), written by several accounts, is a
# campaign: the recorded ones run past 200 characters, while the questions an audience
# repeats word for word ("how many grams of flour do you use?") stay well under it.
SPAM_COPY_CHARS = 80


@dataclass(frozen=True, slots=True)
class Label:
    kind: str
    noise: str | None = None  # "spam", "emoji_only"


def _has_letters(text: str) -> bool:
    return any(unicodedata.category(ch)[0] in "LN" for ch in text)


def _opens_with_question(text: str) -> bool:
    """An interrogative that asks opens a sentence of the text, which has no "!"."""
    for sentence in re.split(r"(?<=[.!\n])\s+", text):
        s = sentence.strip().lower()
        if s and "!" not in s and _OPENERS.match(s):
            return True
    return False


def kind_of(text: str) -> str:
    """The comment's kind by the rules (its noise aside)."""
    t = unicodedata.normalize("NFC", text).strip()
    if PART_TWO.search(t) and not CONFUSION.search(t):  # "não entendi a segunda parte"
        return "part_two"
    if REQUEST.search(t):
        return "request"
    if CONFUSION.search(t):
        return "confusion"
    if "?" in t.replace("?!", "!") or "¿" in t or _opens_with_question(t):
        return "question"
    if OBJECTION.search(t):
        return "objection"
    if PRAISE.search(t):
        return "praise"
    return "other"


def noise_of(text: str) -> str | None:
    """`emoji_only` for a comment with no word (only emoji, mentions, punctuation), `spam`
    for a link or a promotion, else None."""
    if not _has_letters(_MENTION.sub(" ", text)):
        return "emoji_only"
    if _SPAM.search(text):
        return "spam"
    return None


def label(text: str) -> Label:
    noise = noise_of(text)
    return Label("other" if noise == "emoji_only" else kind_of(text), noise)


def copied(texts: Sequence[str], authors: Sequence[str | None]) -> set[int]:
    """Positions of long comments written word for word by more than one account (the
    "…took away my depression" campaigns, emoji aside; an author a source does not name
    counts as another account); spam wherever they stand."""
    keys = [_copy_key(t) for t in texts]
    by_text: dict[str, list[str | None]] = {}
    for key, author in zip(keys, authors, strict=True):
        if len(key) >= SPAM_COPY_CHARS:
            by_text.setdefault(key, []).append(author)
    twice = {t for t, who in by_text.items()
             if len(who) > 1 and (len(set(who)) > 1 or None in who)}
    return {i for i, k in enumerate(keys) if k in twice}


def _copy_key(text: str) -> str:
    """The words of a text, lower case (a copy with another emoji at its end is a copy)."""
    kept = "".join(ch if unicodedata.category(ch)[0] in "LN" else " " for ch in text.lower())
    return " ".join(kept.split())


# ---- language --------------------------------------------------------------------------

_STOPWORDS = {
    "en": "the and you this that is are for with what how why can please my your it of to",
    "nl": "de het een en je jij ik niet wat hoe waarom van voor met is zijn ook maar heel",
    "es": "el la los las que de por para con como qué cómo es una un muy pero y más",
    "pt": "o a os as que de para com como não é um uma muito mas e mais você",
    "de": "der die das und ich du nicht ist ein eine mit wie was warum für auch sehr bitte",
}
_STOP = {lang: frozenset(words.split()) for lang, words in _STOPWORDS.items()}
_TOKEN = re.compile(r"[^\W\d_]+", re.U)


def language_of(text: str) -> str | None:
    """en, nl, es, pt or de by their commonest words; None when none stands out (another
    language, or too few words to tell)."""
    words = [w.lower() for w in _TOKEN.findall(text)]
    if not words:
        return None
    scores = {lang: sum(w in stop for w in words) for lang, stop in _STOP.items()}
    best = max(scores.values())
    top = [lang for lang, n in scores.items() if n == best]
    return top[0] if best > 0 and len(top) == 1 else None

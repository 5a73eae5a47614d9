"""The offline remix's lines: what it keeps from the source and what it writes itself.

Without a language model, a source line cannot be retold for another niche: swapping its
topic word gives "Grind your tea shop right before brewing". So the engine keeps a source
line only when nothing in it belongs to the source's subject ("Save this for later", "Wait
for it"), and writes every other line itself from a few sentence frames that are grammatical
around any niche phrase. It says less than the source, but nothing off-niche.

Where a scene's on-screen text and the words heard during it say nearly the same thing but
not quite, the on-screen text wins: it was typed, the transcript was heard ("See milk" for
"Steam milk").
"""

from __future__ import annotations

from difflib import SequenceMatcher

from sors.remix import offline_text as tx

# Words a line may hold and still be about nothing in particular: the filler of short-form
# talk (beyond the stop words), counts and time, and the asks of a call to action.
GENERIC = frozenset(
    """
    tip tips trick tricks hack hacks idea ideas step steps mistake mistakes secret secrets
    rule rules reason reasons way ways thing easy easier easiest quick quicker quickly simple
    simpler fast faster slow minute minutes hour hours day days week weeks month months year
    years result results difference change changed changes changing everything anything
    nothing nobody anyone someone everybody honest honestly truly trust believe tell told
    show shows showed showing found find learn learned learning wish knew thought think
    remember forget missed start started starting stop stopped end ending done again love
    loved hate happen happened happens works worked working worth bad worse worst better big
    small huge whole real free perfect wrong fast level pro beginner beginners mind life
    below send friend friends tag needs needed version game changer ready thank thanks
    favorite favourite point points question questions answer answers story mine yours
    notice noticed seen works tried tries keep kept check checked happy sorry hard harder
    hardest harder truth crazy insane wild later asked ask asking lesson lessons
    """.split()
)

# Frames for the hook, by the source hook's kind; `{core}` is the niche phrase, `{n}` the
# number of points. Each reads well around a bare noun phrase ("specialty tea shop",
# "home espresso", "budget travel").
HOOKS = {
    "question": "What is everyone getting wrong about {core}?",
    "list": "{n} things that changed my {core}.",
    "warning": "Stop making this mistake with your {core}.",
    "curiosity": "Nobody talks about this side of {core}.",
    "how-to": "Here's how to get more out of your {core}.",
    "pov": "POV: your {core} finally works.",
    "story": "I changed one thing about my {core}, and it worked.",
    "statement": "This is the {core} tip nobody gave me.",
    "direct-address": "If you care about {core}, this one is for you.",
    "challenge": "Try this with your {core} for one week.",
    "reveal": "Here's what finally made my {core} work.",
    "contrarian": "Unpopular opinion: most {core} advice is wrong.",
}
HOOK_SCREEN = {
    "question": "What everyone gets wrong",
    "list": "{n} things that changed everything",
    "warning": "Stop making this mistake",
    "curiosity": "Nobody talks about this",
    "how-to": "How to get more out of it",
    "pov": "When it finally works",
    "story": "One change. It worked.",
    "statement": "The tip nobody gave me",
    "direct-address": "This one is for you",
    "challenge": "Try this for one week",
    "reveal": "What finally made it work",
    "contrarian": "Unpopular opinion",
}
# The analysed hook types (sors.analyses) with a frame of their own above or a near one.
ANALYSED_HOOKS = {"number-list": "list", "bold-claim": "statement", "other": ""}
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
            "ninth", "tenth", "eleventh")


def _norm(text: str) -> str:
    return " ".join(w.lower().strip("'’-") for w in tx.WORD.findall(text))


def reconcile(speech: str, screen: str) -> str:
    """The beat's words: each spoken sentence that nearly matches the on-screen text (a
    mis-heard word or two) is replaced by that text; the rest as heard."""
    if not speech or not screen:
        return speech or screen
    shown = _norm(screen)
    out = []
    for sentence in tx.sentences(speech):
        heard = _norm(sentence)
        # Text that only shortens what was said ("half the water") is no disagreement.
        differ = bool(set(heard.split()) - set(shown.split())) and bool(
            set(shown.split()) - set(heard.split()))
        close = differ and SequenceMatcher(None, heard, shown).ratio() >= 0.6
        out.append(_sentence(screen) if close else sentence)
    return " ".join(out)


def _sentence(text: str) -> str:
    """On-screen text as a spoken sentence: capitalised as a sentence, with its full stop."""
    text = " ".join(text.split())
    if text.isupper():
        text = text.lower()
    text = text[:1].upper() + text[1:]
    return text if text[-1:] in ".!?…" else text + "."


def as_sentences(screen: str) -> str:
    """On-screen text split at its " / " joins (merged scenes), each made a sentence."""
    return " ".join(_sentence(part) for part in screen.split(" / ") if part.strip())


def is_generic(line: str, niche: tx.Niche) -> bool:
    """Nothing in the line names a subject, unless it is the target niche's own word."""
    own = set(niche.terms) | set(tx.content_words(niche.core))
    return all(
        w in GENERIC or tx.singular(w) in GENERIC or w in own or tx.singular(w) in own
        for w in tx.content_words(line)
    ) and bool(tx.WORD.search(line))


def kept_sentences(line: str, niche: tx.Niche) -> str:
    """The line's sentences that can be said in any niche (may be empty)."""
    return " ".join(s for s in tx.sentences(line) if is_generic(s, niche))


def hook(kind: str, niche: tx.Niche, points: int) -> tuple[str, str]:
    """(voiceover, on-screen text) written for the niche in the source hook's pattern."""
    kind = kind if kind in HOOKS else "statement"
    n = max(points, 2)
    return (
        HOOKS[kind].format(core=niche.core, n=n),
        HOOK_SCREEN[kind].format(n=n),
    )


def point(number: int, step: bool, niche: tx.Niche) -> tuple[str, str]:
    """A middle beat the engine cannot know the content of: what to say there, for whom."""
    ordinal = ORDINALS[min(number, len(ORDINALS)) - 1]
    word = "step" if step else "tip"
    return (
        f"(Your {ordinal} {word} for {niche.core}, said in one sentence.)",
        f"{word.capitalize()} {number}",
    )


def setup(niche: tx.Niche) -> tuple[str, str]:
    return ("(The problem most people run into with "
            f"{niche.core}, in one sentence.)", "The problem")


def payoff(niche: tx.Niche) -> tuple[str, str]:
    return ("(The result, shown rather than told.)", "The result")


def call_to_action(source: str, niche: tx.Niche) -> tuple[str, str]:
    """The ask of the same kind as the source's."""
    said = source.lower()
    if "comment" in said or "let me know" in said:
        return "Tell me in the comments how it goes.", "Tell me in the comments"
    if "save" in said:
        return "Save this for later.", "Save this"
    if "share" in said or "tag" in said or "send" in said:
        return "Send this to a friend who needs it.", "Send this to a friend"
    return f"Follow for more {niche.core} tips.", "Follow for more"

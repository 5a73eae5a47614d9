"""One rule for naming a post's sound, whatever source read it (docs/API.md, "Sounds").

Sources name the audio a post uses in their own way: Apify's TikTok actors `musicMeta`
(`musicId`, `musicName`, `musicAuthor`, `musicOriginal`), Instagram exports `musicInfo`
(`audio_id`, `song_name`, `artist_name`, `uses_original_audio`), yt-dlp's TikTok extractor
`track` and `artists` (no id). A sound's key on its platform is:

1. the platform's own id, when the source gives it exactly (digits, as a string or a JSON
   integer). Some exports pass TikTok's 19-digit ids through a float64 on the way and write
   the float's shortest decimal (`"7666525849813847000"`, the last digits zeroed, as a
   string or a number): an id above 2^53 that is exactly such a decimal is taken for
   rounded (a real id is that by chance about once in 10^5) and not used;
2. else, for an original sound (the post's own audio), `post:<post id>`: each is distinct,
   as the platform's ids for them are;
3. else `name:<title>|<author>`, lower-cased and trimmed: a licensed track is the same
   track whoever posts it.

So an export that rounds ids and one that does not give two keys for the same licensed
track (`name:…` and the id); within one source the key is stable.
"""

from __future__ import annotations

import re
from decimal import Decimal

from sors.platforms.base import SoundRef

EXACT_INT_LIMIT = 2**53
_DIGITS = re.compile(r"^[0-9]{1,30}$")
_SPACES = re.compile(r"\s+")
# How the platforms label a post's own audio, where the source says no more.
_ORIGINAL_TITLES = ("original sound", "original audio", "som original", "sonido original",
                    "son original", "originalton", "suono originale")


def float_rounded(n: int) -> bool:
    """Whether `n` is the shortest decimal of a float64 above 2^53: what a 19-digit id
    becomes after a pass through a float (JavaScript's Number, a spreadsheet)."""
    return n > EXACT_INT_LIMIT and int(Decimal(repr(float(n)))) == n


def exact_id(value: object) -> str | None:
    """The id as a string when the source gave it exactly, else None (see the module)."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    text = str(value).strip()
    if not _DIGITS.match(text) or not text.strip("0") or float_rounded(int(text)):
        return None
    return text.lstrip("0") or text


def _norm(text: str | None) -> str:
    return _SPACES.sub(" ", (text or "").strip().lower())


def looks_original(title: str | None) -> bool:
    """A title that is the platform's label for a post's own audio."""
    return _norm(title).startswith(_ORIGINAL_TITLES)


def sound_ref(
    *, platform_id: object, title: object, author: object, original: object, post_id: str
) -> SoundRef | None:
    """The sound of a post from what its source says; None when it says nothing."""
    name = str(title).strip() if isinstance(title, str) and title.strip() else None
    by = str(author).strip() if isinstance(author, str) and author.strip() else None
    is_original = bool(original) if isinstance(original, bool) else looks_original(name)
    found = exact_id(platform_id)
    if found is not None:
        return SoundRef(found, name, by, is_original)
    if is_original:
        return SoundRef(f"post:{post_id}", name, by, True)
    if name is None:
        return None
    return SoundRef(f"name:{_norm(name)}|{_norm(by)}", name, by, False)

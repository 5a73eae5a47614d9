"""Platform URLs: parsing and building. Nothing here ever fetches anything.

Callers hand us arbitrary strings, and a URL we accept may later reach a platform adapter,
so the parser is an allow-list: a URL is a post (or profile) URL only when its scheme, host
and path match one of the forms below exactly. Everything else is refused with a typed
error the API maps to 422 (`unsupported_url`, `short_link_not_supported`).

Accepted post URLs (http or https, any host case, query strings, fragments and trailing
slashes ignored, `www.` optional):

- TikTok    tiktok.com/@HANDLE/video/ID, /@HANDLE/photo/ID (ID: 15-21 digits)
- Instagram instagram.com/p/CODE/, /reel/CODE/, /reels/CODE/, /tv/CODE/ and the same after a
            username (/USERNAME/p/CODE/)
- YouTube   youtube.com/watch?v=ID, /shorts/ID, /live/ID, /embed/ID (also on m. and music.),
            youtu.be/ID (ID: exactly 11 of [A-Za-z0-9_-])

Short links (vm./vt.tiktok.com, tiktok.com/t/…, instagram.com/share/…) need a request to
expand, which we refuse to make on a caller's behalf: they get their own error so the
caller knows to expand them first. A scheme-less paste ("www.tiktok.com/@a/video/1…") is
read as https. Handles found in URLs are checked by `handles.normalize_handle`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple
from urllib.parse import parse_qs, unquote, urlsplit

from sors.kit.schemas import STRIPPED
from sors.platforms.base import CONTENT_TYPES, PLATFORMS, Platform
from sors.platforms.handles import PLATFORM_NAMES, InvalidHandle, normalize_handle

# ---- errors ---------------------------------------------------------------------------


class UrlError(ValueError):
    code = "unsupported_url"


class UnsupportedUrl(UrlError):
    """Not a URL of a kind we accept (other host, other path, unsafe form)."""

    code = "unsupported_url"


class ShortLinkNotSupported(UrlError):
    """A platform short link; it must be expanded by the caller first."""

    code = "short_link_not_supported"


# ---- hosts ----------------------------------------------------------------------------

_TIKTOK_HOSTS = frozenset({"tiktok.com", "www.tiktok.com", "m.tiktok.com"})
_TIKTOK_SHORT_HOSTS = frozenset({"vm.tiktok.com", "vt.tiktok.com"})
_INSTAGRAM_HOSTS = frozenset({"instagram.com", "www.instagram.com", "m.instagram.com"})
_YOUTUBE_HOSTS = frozenset({"youtube.com", "www.youtube.com", "m.youtube.com", "music.youtube.com"})
_YOUTU_BE_HOSTS = frozenset({"youtu.be"})

_HOST_PLATFORM: dict[str, Platform] = {
    **dict.fromkeys(_TIKTOK_HOSTS | _TIKTOK_SHORT_HOSTS, "tiktok"),
    **dict.fromkeys(_INSTAGRAM_HOSTS, "instagram"),
    **dict.fromkeys(_YOUTUBE_HOSTS | _YOUTU_BE_HOSTS, "youtube"),
}

_MAX_URL_LENGTH = 2048
_SCHEMELESS_RE = re.compile(r"[A-Za-z0-9.-]+/")


class _Split(NamedTuple):
    platform: Platform
    host: str
    segments: list[str]
    query: str


def _split(url: object) -> _Split:
    """Scheme, host and path checks shared by every parser: the SSRF-relevant part."""
    if not isinstance(url, str):
        raise UnsupportedUrl("The URL must be a string.")
    url = url.strip()
    if not url:
        raise UnsupportedUrl("The URL is empty.")
    if len(url) > _MAX_URL_LENGTH:
        raise UnsupportedUrl("The URL is too long.")
    # Browsers read '\' as '/', and raw non-ASCII hosts can be homoglyphs: both would let
    # a URL mean one host to us and another to whatever follows it, so neither is allowed.
    if not url.isascii() or any(c <= " " or c in "\\\x7f" for c in url):
        raise UnsupportedUrl("The URL contains characters a platform URL never has.")
    if "://" not in url and _SCHEMELESS_RE.match(url):
        url = "https://" + url
    try:
        parts = urlsplit(url)
    except ValueError as exc:  # e.g. a malformed IPv6 literal
        raise UnsupportedUrl("The URL cannot be parsed.") from exc
    if parts.scheme.lower() not in ("http", "https"):
        raise UnsupportedUrl("Only http and https URLs are accepted.")
    netloc = parts.netloc
    if "@" in netloc:
        raise UnsupportedUrl("URLs with user information are not accepted.")
    if ":" in netloc or "[" in netloc:
        raise UnsupportedUrl("URLs with a port or an IP address are not accepted.")
    host = netloc.lower()
    platform = _HOST_PLATFORM.get(host)
    if platform is None:
        raise UnsupportedUrl("Only TikTok, Instagram and YouTube URLs are accepted.")
    segments = [unquote(s) for s in parts.path.split("/") if s]
    return _Split(platform, host, segments, parts.query)


def is_platform_host(url: str) -> bool:
    """True when `url` points at one of the three platforms' own hosts (the SSRF guard).

    http(s) only, no user information, no port. Short-link hosts count as the platforms'
    own; what may be fetched from them is the adapters' decision.
    """
    try:
        _split(url)
    except UrlError:
        return False
    return True


# ---- post URLs ------------------------------------------------------------------------

_TIKTOK_ID = re.compile(r"[0-9]{15,21}")
_IG_SHORTCODE = re.compile(r"[A-Za-z0-9_-]{5,64}")
_YT_ID = re.compile(r"[A-Za-z0-9_-]{11}")

_TIKTOK_KINDS = {"video": "video", "photo": "slideshow"}
# /p/ serves images, carousels and reels alike, so it gives no hint.
_IG_KINDS: dict[str, str | None] = {"p": None, "reel": "reel", "reels": "reel", "tv": "reel"}
_YT_PATH_KINDS = {"shorts": "short", "live": "live", "embed": "video"}

# First path segments that are Instagram pages, never usernames.
_IG_RESERVED = frozenset(
    {
        *_IG_KINDS,
        "explore", "stories", "accounts", "direct", "share", "about", "developer", "legal",
        "web", "api", "graphql", "static", "emails", "challenge", "session", "oauth",
        "privacy", "terms", "create", "lite", "directory", "topics", "locations", "tags",
        "music", "audio", "your_activity", "nametag", "threads", "ar",
    }
)  # fmt: skip
_IG_PROFILE_TABS = frozenset({"reels", "tagged", "guides", "saved", "feed", "igtv"})
_YT_PROFILE_TABS = frozenset(
    {"videos", "shorts", "streams", "featured", "about", "playlists", "community", "posts",
     "podcasts", "releases", "live", "courses", "store"}
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class ParsedPostUrl:
    platform: Platform
    platform_post_id: str
    handle: str | None  # the owner, when the URL names one (YouTube URLs never do)
    content_type_hint: str | None  # what the URL form implies, when it implies anything


class ParsedProfileUrl(NamedTuple):
    platform: Platform
    handle: str


def _url_handle(platform: str, raw: str) -> str:
    try:
        return normalize_handle(platform, raw)
    except InvalidHandle as exc:
        raise UnsupportedUrl(f"The URL does not carry a valid handle: {exc}") from exc


def _short_link(s: _Split) -> bool:
    if s.host in _TIKTOK_SHORT_HOSTS:
        return True
    first = s.segments[0] if s.segments else ""
    return (s.platform == "tiktok" and first == "t") or (
        s.platform == "instagram" and first == "share"
    )


def _tiktok_post(seg: list[str]) -> ParsedPostUrl | None:
    if len(seg) == 3 and seg[0].startswith("@") and seg[1] in _TIKTOK_KINDS:
        if _TIKTOK_ID.fullmatch(seg[2]):
            handle = _url_handle("tiktok", seg[0])
            return ParsedPostUrl("tiktok", seg[2], handle, _TIKTOK_KINDS[seg[1]])
    return None


def _instagram_post(seg: list[str]) -> ParsedPostUrl | None:
    handle: str | None = None
    if len(seg) == 3 and seg[0] not in _IG_RESERVED:
        handle, seg = _url_handle("instagram", seg[0]), seg[1:]
    if len(seg) == 2 and seg[0] in _IG_KINDS and _IG_SHORTCODE.fullmatch(seg[1]):
        return ParsedPostUrl("instagram", seg[1], handle, _IG_KINDS[seg[0]])
    return None


def _youtube_post(s: _Split) -> ParsedPostUrl | None:
    seg = s.segments
    if s.host in _YOUTU_BE_HOSTS:
        vid, hint = (seg[0] if len(seg) == 1 else ""), "video"
    elif seg == ["watch"]:
        values = parse_qs(s.query).get("v") or [""]
        vid, hint = values[0], "video"
    elif len(seg) == 2 and seg[0] in _YT_PATH_KINDS:
        vid, hint = seg[1], _YT_PATH_KINDS[seg[0]]
    else:
        return None
    if _YT_ID.fullmatch(vid):
        return ParsedPostUrl("youtube", vid, None, hint)
    return None


# The canonical forms of post and profile URLs as JSON Schema patterns, for the API document:
# every string they match is accepted by `parse_post_url` / `parse_profile_url`
# (tests/platforms/test_url_patterns.py generates them), so a client that follows them is
# never refused. The parsers accept a little more (a username before an Instagram post's
# code, any letter case, empty path segments, a query string on every form), which the
# descriptions say.
_SCHEME = r"(?:https?://)?"
_TAIL = r"/?(?:\?[!-~]*)?"  # printable ASCII after the path (no space, nor a backslash below)
_TT_HANDLE = r"@[A-Za-z0-9._]{1,23}[A-Za-z0-9_]"
_IG_USER = r"[a-z0-9_](?:[a-z0-9_]|\.(?!\.)){0,28}[a-z0-9_]"
_YT_HANDLE = r"@[A-Za-z0-9._-]{3,30}"
_YT = r"(?:www\.|m\.|music\.)?youtube\.com"
_WS = f"[{STRIPPED}]*"  # what the parsers strip first
POST_URL_PATTERN = (
    "^" + _WS + _SCHEME + "(?:"
    r"(?:www\.|m\.)?tiktok\.com/" + _TT_HANDLE + r"/(?:video|photo)/[0-9]{15,21}"
    r"|(?:www\.|m\.)?instagram\.com/(?:p|reel|reels|tv)/[A-Za-z0-9_-]{5,64}"
    "|" + _YT + r"/(?:shorts|live|embed)/[A-Za-z0-9_-]{11}"
    r"|youtu\.be/[A-Za-z0-9_-]{11}"
    ")" + _TAIL.replace("[!-~]", r"[!-\[\]-~]") + _WS + "$"
    "|^" + _WS + _SCHEME + _YT + r"/watch\?v=[A-Za-z0-9_-]{11}" + _WS + "$"
)
PROFILE_URL_PATTERN = (
    "^" + _WS + _SCHEME + "(?:"
    r"(?:www\.|m\.)?tiktok\.com/" + _TT_HANDLE
    + r"|(?:www\.|m\.)?instagram\.com/(?!(?:" + "|".join(sorted(_IG_RESERVED)) + r")(?:[/?]|$))"
    + _IG_USER
    + "|" + _YT + "/" + _YT_HANDLE
    + ")" + _TAIL.replace("[!-~]", r"[!-\[\]-~]") + _WS + "$"
)


def parse_post_url(url: str) -> ParsedPostUrl:
    """The post a canonical public post URL points at (see the module docstring)."""
    s = _split(url)
    if _short_link(s):
        raise ShortLinkNotSupported(
            "Short links are not supported; open the link and use the full post URL."
        )
    parsed: ParsedPostUrl | None
    if s.platform == "tiktok":
        parsed = _tiktok_post(s.segments)
    elif s.platform == "instagram":
        parsed = _instagram_post(s.segments)
    else:
        parsed = _youtube_post(s)
    if parsed is None:
        raise UnsupportedUrl(
            f"This is not a {PLATFORM_NAMES[s.platform]} post URL we recognise "
            "(profile and other pages are not posts)."
        )
    return parsed


# ---- profile URLs ---------------------------------------------------------------------


def parse_profile_url(url: str) -> ParsedProfileUrl:
    """The profile a profile URL (or a post URL that names its owner) points at."""
    s = _split(url)
    if _short_link(s):
        raise ShortLinkNotSupported(
            "Short links are not supported; open the link and use the full profile URL."
        )
    seg = s.segments
    handle: str | None = None
    if s.platform == "tiktok":
        if len(seg) == 1 and seg[0].startswith("@"):
            handle = _url_handle("tiktok", seg[0])
        elif (post := _tiktok_post(seg)) is not None:
            handle = post.handle
    elif s.platform == "instagram":
        if seg and seg[0] not in _IG_RESERVED:
            if len(seg) == 1 or (len(seg) == 2 and seg[1] in _IG_PROFILE_TABS):
                handle = _url_handle("instagram", seg[0])
            elif (post := _instagram_post(seg)) is not None:
                handle = post.handle
    elif s.host not in _YOUTU_BE_HOSTS and seg and seg[0].startswith("@"):
        if len(seg) == 1 or (len(seg) == 2 and seg[1] in _YT_PROFILE_TABS):
            handle = _url_handle("youtube", seg[0])
    if handle is None:
        raise UnsupportedUrl(
            f"This is not a {PLATFORM_NAMES[s.platform]} profile URL, nor a post URL that "
            "names its owner."
        )
    return ParsedProfileUrl(s.platform, handle)


# ---- builders -------------------------------------------------------------------------

_ID_RE = {"tiktok": _TIKTOK_ID, "instagram": _IG_SHORTCODE, "youtube": _YT_ID}


def post_url(platform: str, handle: str | None, platform_post_id: str, content_type: str) -> str:
    """The canonical public URL of a post. TikTok needs the owner's handle; the others
    ignore it."""
    if platform not in PLATFORMS:
        raise ValueError(f"Unknown platform {platform!r}.")
    if content_type not in CONTENT_TYPES[platform]:
        raise ValueError(f"{content_type!r} is not a {PLATFORM_NAMES[platform]} content type.")
    if not _ID_RE[platform].fullmatch(platform_post_id):
        raise ValueError(f"{platform_post_id!r} is not a {PLATFORM_NAMES[platform]} post id.")
    if platform == "tiktok":
        if handle is None:
            raise ValueError("A TikTok post URL needs the owner's handle.")
        kind = "photo" if content_type == "slideshow" else "video"
        owner = normalize_handle("tiktok", handle)
        return f"https://www.tiktok.com/@{owner}/{kind}/{platform_post_id}"
    if platform == "instagram":
        kind = "reel" if content_type == "reel" else "p"
        return f"https://www.instagram.com/{kind}/{platform_post_id}/"
    if content_type == "short":
        return f"https://www.youtube.com/shorts/{platform_post_id}"
    return f"https://www.youtube.com/watch?v={platform_post_id}"


def profile_url(platform: str, handle: str) -> str:
    h = normalize_handle(platform, handle)
    if platform == "tiktok":
        return f"https://www.tiktok.com/@{h}"
    if platform == "instagram":
        return f"https://www.instagram.com/{h}/"
    return f"https://www.youtube.com/@{h}"

"""URL parsing: every accepted form, every way a URL is refused; the canonical URLs
built; the platforms' hosts."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sors.platforms.base import CONTENT_TYPES
from sors.platforms.handles import InvalidHandle
from sors.platforms.urls import (
    ParsedPostUrl,
    ShortLinkNotSupported,
    UnsupportedUrl,
    UrlError,
    is_platform_host,
    parse_post_url,
    parse_profile_url,
    post_url,
    profile_url,
)

TT_ID = "7301234567890123456"
IG_CODE = "C9xYz_Ab-12"
YT_ID = "dQw4w9WgXcQ"

# ---- post URLs --------------------------------------------------------------------------

ACCEPTED_POSTS = [
    # TikTok
    (f"https://www.tiktok.com/@fit.anna/video/{TT_ID}", "tiktok", TT_ID, "fit.anna", "video"),
    (f"https://www.tiktok.com/@fit.anna/photo/{TT_ID}", "tiktok", TT_ID, "fit.anna", "slideshow"),
    (f"http://tiktok.com/@Fit.Anna/video/{TT_ID}/", "tiktok", TT_ID, "fit.anna", "video"),
    (
        f"https://WWW.TikTok.COM/@fit.anna/video/{TT_ID}?is_from_webapp=1&sender_device=pc#x",
        "tiktok",
        TT_ID,
        "fit.anna",
        "video",
    ),
    (f"https://m.tiktok.com/@fit.anna/video/{TT_ID}", "tiktok", TT_ID, "fit.anna", "video"),
    (f"https://www.tiktok.com/%40fit.anna/video/{TT_ID}", "tiktok", TT_ID, "fit.anna", "video"),
    (f"www.tiktok.com/@fit.anna/video/{TT_ID}", "tiktok", TT_ID, "fit.anna", "video"),
    (
        "https://www.tiktok.com/@a_b/video/123456789012345",
        "tiktok",
        "123456789012345",
        "a_b",
        "video",
    ),
    (
        "https://www.tiktok.com/@a_b/video/123456789012345678901",
        "tiktok",
        "123456789012345678901",
        "a_b",
        "video",
    ),
    # Instagram
    (f"https://www.instagram.com/p/{IG_CODE}/", "instagram", IG_CODE, None, None),
    (f"https://instagram.com/p/{IG_CODE}", "instagram", IG_CODE, None, None),
    (f"https://www.instagram.com/reel/{IG_CODE}/?igsh=abc123", "instagram", IG_CODE, None, "reel"),
    (f"https://www.instagram.com/reels/{IG_CODE}/", "instagram", IG_CODE, None, "reel"),
    (f"https://www.instagram.com/tv/{IG_CODE}/", "instagram", IG_CODE, None, "reel"),
    (f"https://www.instagram.com/Cook.Sam/p/{IG_CODE}/", "instagram", IG_CODE, "cook.sam", None),
    (
        f"https://www.instagram.com/cook.sam/reel/{IG_CODE}/",
        "instagram",
        IG_CODE,
        "cook.sam",
        "reel",
    ),
    (f"https://M.Instagram.com/p/{IG_CODE}/#comments", "instagram", IG_CODE, None, None),
    # YouTube
    (f"https://www.youtube.com/watch?v={YT_ID}", "youtube", YT_ID, None, "video"),
    (f"https://youtube.com/watch?feature=share&v={YT_ID}&t=42s", "youtube", YT_ID, None, "video"),
    (f"https://m.youtube.com/watch?v={YT_ID}", "youtube", YT_ID, None, "video"),
    (f"https://music.youtube.com/watch?v={YT_ID}&list=RD", "youtube", YT_ID, None, "video"),
    (f"https://youtu.be/{YT_ID}?si=Abc123", "youtube", YT_ID, None, "video"),
    (f"http://YOUTU.BE/{YT_ID}", "youtube", YT_ID, None, "video"),
    (f"https://www.youtube.com/shorts/{YT_ID}", "youtube", YT_ID, None, "short"),
    (f"https://youtube.com/shorts/{YT_ID}/?feature=share", "youtube", YT_ID, None, "short"),
    (f"https://www.youtube.com/live/{YT_ID}", "youtube", YT_ID, None, "live"),
    (f"https://www.youtube.com/embed/{YT_ID}?autoplay=1", "youtube", YT_ID, None, "video"),
    (f"https://www.youtube.com/watch?v={YT_ID}#t=10", "youtube", YT_ID, None, "video"),
]


@pytest.mark.parametrize(("url", "platform", "pid", "handle", "hint"), ACCEPTED_POSTS)
def test_parse_post_url_accepts(
    url: str, platform: str, pid: str, handle: str | None, hint: str | None
) -> None:
    assert parse_post_url(url) == ParsedPostUrl(platform, pid, handle, hint)  # type: ignore[arg-type]


SHORT_LINKS = [
    "https://vm.tiktok.com/ZMabc123/",
    "https://vt.tiktok.com/ZSabc123/",
    "http://VM.TIKTOK.COM/ZMabc123",
    "https://www.tiktok.com/t/ZTabc123/",
    "https://tiktok.com/t/ZTabc123",
    "https://www.instagram.com/share/reel/BAabc123/",
    "https://www.instagram.com/share/p/BAabc123",
    "https://instagram.com/share/BAabc123",
]


@pytest.mark.parametrize("url", SHORT_LINKS)
def test_short_links_are_refused_with_their_own_error(url: str) -> None:
    with pytest.raises(ShortLinkNotSupported) as info:
        parse_post_url(url)
    assert info.value.code == "short_link_not_supported"
    with pytest.raises(ShortLinkNotSupported):
        parse_profile_url(url)


REFUSED_POSTS = [
    # other hosts and look-alikes
    f"https://tiktok.com.evil.io/@a_b/video/{TT_ID}",
    f"https://www.youtube.com.evil.io/watch?v={YT_ID}",
    f"https://youtube.com@evil.io/watch?v={YT_ID}",
    f"https://evil.io/@a_b/video/{TT_ID}",
    f"https://nottiktok.com/@a_b/video/{TT_ID}",
    f"https://www.youtube.co/watch?v={YT_ID}",
    f"https://www.y\u043eutube.com/watch?v={YT_ID}",  # Cyrillic 'о'
    f"https://www.youtube-nocookie.com/embed/{YT_ID}",
    f"https://www.youtube.com\\@evil.io/watch?v={YT_ID}",
    # schemes, credentials, ports, IPs
    f"ftp://www.tiktok.com/@a_b/video/{TT_ID}",
    f"javascript:alert('https://youtu.be/{YT_ID}')",
    f"file:///www.tiktok.com/@a_b/video/{TT_ID}",
    f"//www.tiktok.com/@a_b/video/{TT_ID}",
    f"https:/www.tiktok.com/@a_b/video/{TT_ID}",
    f"https://user:pw@www.tiktok.com/@a_b/video/{TT_ID}",
    f"https://user@www.instagram.com/p/{IG_CODE}/",
    f"https://www.tiktok.com:443/@a_b/video/{TT_ID}",
    f"https://youtu.be:8080/{YT_ID}",
    f"http://127.0.0.1/watch?v={YT_ID}",
    f"http://[::1]/watch?v={YT_ID}",
    f"http://[::1/watch?v={YT_ID}",
    # profile and other pages
    "https://www.tiktok.com/@fit.anna",
    "https://www.tiktok.com/@fit.anna/live",
    "https://www.instagram.com/cook.sam/",
    "https://www.instagram.com/explore/",
    "https://www.instagram.com/stories/cook.sam/3141592653589793238/",
    "https://www.youtube.com/@cookwithsam",
    "https://www.youtube.com/channel/UCabcdefghijklmnopqrstuv",
    "https://www.youtube.com/",
    # malformed ids
    "https://www.tiktok.com/@a_b/video/12345678901234",  # 14 digits
    "https://www.tiktok.com/@a_b/video/1234567890123456789012",  # 22 digits
    "https://www.tiktok.com/@a_b/video/73012345678901234x",
    f"https://www.tiktok.com/@a_b/video/{TT_ID}/extra",
    f"https://www.tiktok.com/a_b/video/{TT_ID}",  # no '@'
    f"https://www.tiktok.com/@a-b/video/{TT_ID}",  # invalid handle
    "https://www.instagram.com/p/abcd/",  # shortcode too short
    f"https://www.instagram.com/p/{IG_CODE}/extra/",
    f"https://www.instagram.com/bad..name/p/{IG_CODE}/",
    "https://www.youtube.com/watch?v=dQw4w9WgXc",  # 10 characters
    "https://www.youtube.com/watch?v=dQw4w9WgXcQQ",  # 12 characters
    "https://www.youtube.com/watch?list=PL123",
    "https://www.youtube.com/watch",
    f"https://www.youtube.com/shorts/{YT_ID}/more",
    "https://youtu.be/",
    f"https://youtu.be/{YT_ID}/x",
    # not URLs at all
    "",
    "   ",
    "not a url",
    "https://",
    "https://www.tiktok.com/" + "a" * 3000,
    f"https://www.tiktok.com/@a_b/vi\ndeo/{TT_ID}",  # control characters inside
    f"https://www.tiktok.com/@a b/video/{TT_ID}",
]


@pytest.mark.parametrize("url", REFUSED_POSTS)
def test_parse_post_url_refuses(url: str) -> None:
    with pytest.raises(UnsupportedUrl) as info:
        parse_post_url(url)
    assert info.value.code == "unsupported_url"


@pytest.mark.parametrize("value", [None, 123, b"https://youtu.be/dQw4w9WgXcQ"])
def test_non_strings_are_unsupported(value: object) -> None:
    with pytest.raises(UnsupportedUrl):
        parse_post_url(value)  # type: ignore[arg-type]


def test_error_hierarchy() -> None:
    assert issubclass(UnsupportedUrl, UrlError)
    assert issubclass(ShortLinkNotSupported, UrlError)
    assert issubclass(UrlError, ValueError)
    assert not issubclass(ShortLinkNotSupported, UnsupportedUrl)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_parse_never_fails_with_anything_but_url_errors(text: str) -> None:
    for parse in (parse_post_url, parse_profile_url):
        try:
            parse(text)
        except UrlError:
            pass


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([u for u, *_ in ACCEPTED_POSTS]), st.text(max_size=20))
def test_garbage_appended_to_a_host_is_never_accepted_as_that_host(url: str, junk: str) -> None:
    # Whatever follows the real host in the authority must make it another host, or fail. A
    # path, query or fragment delimiter ends the authority: what follows it is not the host.
    assume(not any(c in junk for c in "/?#\\"))
    scheme, rest = url.split("://", 1) if "://" in url else ("https", url)
    host, _, path = rest.partition("/")
    mangled = f"{scheme}://{host}{junk}.evil.io/{path}"
    with pytest.raises(UrlError):
        parse_post_url(mangled)


# ---- profile URLs -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "platform", "handle"),
    [
        ("https://www.tiktok.com/@Fit.Anna", "tiktok", "fit.anna"),
        ("https://tiktok.com/@fit.anna/?lang=en", "tiktok", "fit.anna"),
        (f"https://www.tiktok.com/@fit.anna/video/{TT_ID}", "tiktok", "fit.anna"),
        (f"https://www.tiktok.com/@fit.anna/photo/{TT_ID}", "tiktok", "fit.anna"),
        ("https://www.instagram.com/cook.sam/", "instagram", "cook.sam"),
        ("https://instagram.com/Cook.Sam?igshid=xyz", "instagram", "cook.sam"),
        ("https://www.instagram.com/cook.sam/reels/", "instagram", "cook.sam"),
        ("https://www.instagram.com/cook.sam/tagged/", "instagram", "cook.sam"),
        (f"https://www.instagram.com/cook.sam/p/{IG_CODE}/", "instagram", "cook.sam"),
        ("https://www.youtube.com/@CookWithSam", "youtube", "cookwithsam"),
        ("https://m.youtube.com/@cook-with-sam/videos", "youtube", "cook-with-sam"),
        ("https://www.youtube.com/@cookwithsam/shorts?view=0", "youtube", "cookwithsam"),
    ],
)
def test_parse_profile_url_accepts(url: str, platform: str, handle: str) -> None:
    assert parse_profile_url(url) == (platform, handle)


@pytest.mark.parametrize(
    "url",
    [
        f"https://www.instagram.com/p/{IG_CODE}/",  # a post that does not name its owner
        f"https://www.instagram.com/reel/{IG_CODE}/",
        f"https://www.youtube.com/watch?v={YT_ID}",
        f"https://youtu.be/{YT_ID}",
        "https://www.youtube.com/channel/UCabcdefghijklmnopqrstuv",
        "https://www.youtube.com/c/CookWithSam",
        "https://www.youtube.com/user/cookwithsam",
        "https://www.youtube.com/@cookwithsam/unknown-tab",
        "https://www.instagram.com/explore/",
        "https://www.instagram.com/accounts/login/",
        "https://www.instagram.com/cook.sam/followers/",
        "https://www.tiktok.com/",
        "https://www.tiktok.com/fit.anna",
        "https://www.tiktok.com/@x",  # a handle too short for TikTok
        "https://evil.io/@fit.anna",
        "https://user@www.tiktok.com/@fit.anna",
    ],
)
def test_parse_profile_url_refuses(url: str) -> None:
    with pytest.raises(UnsupportedUrl):
        parse_profile_url(url)


# ---- builders ---------------------------------------------------------------------------

IDS = {"tiktok": TT_ID, "instagram": IG_CODE, "youtube": YT_ID}


@pytest.mark.parametrize(
    ("platform", "content_type"), [(p, c) for p, cs in CONTENT_TYPES.items() for c in cs]
)
def test_post_url_round_trips(platform: str, content_type: str) -> None:
    url = post_url(platform, "@Some.Body", IDS[platform], content_type)
    assert url.startswith("https://www.")
    parsed = parse_post_url(url)
    assert (parsed.platform, parsed.platform_post_id) == (platform, IDS[platform])
    if platform == "tiktok":
        assert parsed.handle == "some.body"
        assert parsed.content_type_hint == content_type
    if content_type in ("reel", "short"):
        assert parsed.content_type_hint == content_type


def test_post_url_canonical_forms() -> None:
    assert (
        post_url("tiktok", "a_b", TT_ID, "slideshow")
        == f"https://www.tiktok.com/@a_b/photo/{TT_ID}"
    )
    assert (
        post_url("instagram", None, IG_CODE, "carousel")
        == f"https://www.instagram.com/p/{IG_CODE}/"
    )
    assert (
        post_url("instagram", None, IG_CODE, "reel") == f"https://www.instagram.com/reel/{IG_CODE}/"
    )
    assert post_url("youtube", None, YT_ID, "live") == f"https://www.youtube.com/watch?v={YT_ID}"
    assert post_url("youtube", None, YT_ID, "short") == f"https://www.youtube.com/shorts/{YT_ID}"


@pytest.mark.parametrize(
    ("platform", "handle", "pid", "content_type"),
    [
        ("tiktok", None, TT_ID, "video"),  # TikTok URLs need the handle
        ("tiktok", "a_b", TT_ID, "reel"),  # not a TikTok content type
        ("tiktok", "a_b", "abc", "video"),
        ("instagram", None, "x", "image"),
        ("youtube", None, "short", "short"),
        ("myspace", None, YT_ID, "video"),
    ],
)
def test_post_url_refuses_what_it_cannot_build(
    platform: str, handle: str | None, pid: str, content_type: str
) -> None:
    with pytest.raises(ValueError):
        post_url(platform, handle, pid, content_type)


@pytest.mark.parametrize(
    ("platform", "expected"),
    [
        ("tiktok", "https://www.tiktok.com/@cook.sam"),
        ("instagram", "https://www.instagram.com/cook.sam/"),
        ("youtube", "https://www.youtube.com/@cook.sam"),
    ],
)
def test_profile_url_round_trips(platform: str, expected: str) -> None:
    assert profile_url(platform, "@Cook.Sam") == expected
    assert parse_profile_url(expected) == (platform, "cook.sam")


def test_profile_url_refuses_invalid_handles() -> None:
    with pytest.raises(InvalidHandle):
        profile_url("tiktok", "x")


# ---- SSRF guard -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        f"https://www.tiktok.com/@a_b/video/{TT_ID}",
        "https://vm.tiktok.com/ZMabc/",
        "http://instagram.com/cook.sam/",
        f"https://youtu.be/{YT_ID}",
        "https://music.youtube.com/",
        "https://WWW.YOUTUBE.COM/feed",
    ],
)
def test_platform_hosts(url: str) -> None:
    assert is_platform_host(url)


@pytest.mark.parametrize(
    "url",
    [
        "https://tiktok.com.evil.io/",
        "https://youtube.com@evil.io/",
        "https://user:pw@www.youtube.com/",
        "https://www.youtube.com:8443/",
        "gopher://www.youtube.com/",
        "http://169.254.169.254/latest/meta-data",
        "http://localhost/",
        "https://sim.sors.invalid/tiktok/thumb/1.jpg",
        "",
    ],
)
def test_non_platform_hosts(url: str) -> None:
    assert not is_platform_host(url)

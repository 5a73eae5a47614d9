"""The API document's URL patterns promise no more than the parsers keep: every string a
pattern matches (generated from the pattern itself) is a URL the matching parser accepts,
and the forms the patterns leave out are still read by the parsers (the descriptions say
so) — so a client that follows the document is never refused for the URL's form."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sors.platforms import urls

POST = re.compile(urls.POST_URL_PATTERN)
PROFILE = re.compile(urls.PROFILE_URL_PATTERN)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(st.from_regex(POST))
def test_every_url_the_post_pattern_matches_is_a_post_url(url: str) -> None:
    urls.parse_post_url(url)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(st.from_regex(PROFILE))
def test_every_url_the_profile_pattern_matches_is_a_profile_url(url: str) -> None:
    urls.parse_profile_url(url)


def test_the_patterns_match_the_canonical_urls_and_refuse_other_hosts() -> None:
    for u in ("https://www.tiktok.com/@fit.anna/video/7301234567890123456",
              "https://www.instagram.com/reel/Cabc123/", "https://youtu.be/dQw4w9WgXcQ",
              "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
              "www.youtube.com/shorts/dQw4w9WgXcQ?feature=share"):
        assert POST.search(u), u
    for u in ("https://www.tiktok.com/@fit.anna", "https://instagram.com/bake.with.me/",
              "https://www.youtube.com/@CookWithSam"):
        assert PROFILE.search(u), u
    for u in ("https://example.com/@fit.anna", "https://vm.tiktok.com/ZMabc123/",
              "https://www.tiktok.com:8443/@fit.anna", "https://user@www.tiktok.com/@fit.anna",
              "https://www.instagram.com/explore/", "https://www.instagram.com/p/"):
        assert not PROFILE.search(u) and not POST.search(u), u

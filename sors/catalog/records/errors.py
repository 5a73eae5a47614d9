"""The catalog's record errors: an unknown post or profile, a URL that names no post."""

from __future__ import annotations

from sors.kit.errors import ApiError


class PostNotFound(ApiError):
    status = 404
    code = "post_not_found"
    title = "Post not found"


class ProfileNotFound(ApiError):
    status = 404
    code = "profile_not_found"
    title = "Profile not found"


class UnsupportedUrl(ApiError):
    status = 422
    code = "unsupported_url"
    title = "Unsupported URL"


class ShortLinkNotSupported(ApiError):
    status = 422
    code = "short_link_not_supported"
    title = "Short links are not supported"

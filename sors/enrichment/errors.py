"""The enrichment domain's errors: what its requests answer (`ApiError`s), and what its
media work fails with (`EnrichmentError`s, whose `code` a failed job reports)."""

from __future__ import annotations

from sors.kit.errors import ApiError

# ---- requests ----------------------------------------------------------------------------


class MissingTarget(ApiError):
    """Neither the post's `url` nor its `postId` was sent."""

    status = 422
    code = "missing_target"
    title = "Missing target"


class MediaLinkExpired(ApiError):
    status = 410
    code = "link_expired"
    title = "Link expired"


class NotAMediaType(ApiError):
    """A stored file whose type is not an image, video or audio: never served."""

    status = 415
    code = "unsupported_media_type"
    title = "Not a media type"


# ---- media work --------------------------------------------------------------------------


class EnrichmentError(Exception):
    """Base of every enrichment failure; `code` is what a failed job reports."""

    code = "enrichment_failed"
    retryable = False

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r})"


class _CodedError(EnrichmentError):
    code = "enrichment_failed"

    def __init__(self, message: str) -> None:
        super().__init__(type(self).code, message)


class MediaMissing(_CodedError):
    """The media file to analyse does not exist (or is empty)."""

    code = "media_missing"


class ModelUnavailable(_CodedError):
    """A model could not be loaded (not installed, bad path, or a download failed)."""

    code = "model_unavailable"


class UnsupportedMedia(_CodedError):
    """The file is not a video or image we can decode."""

    code = "unsupported_media"


class TranscriptionFailed(_CodedError):
    """The speech model or OCR failed on a decodable file."""

    code = "transcription_failed"


class AnalysisFailed(_CodedError):
    """Shot detection or keyframe extraction failed on a decodable file."""

    code = "analysis_failed"

"""Sounds' errors."""

from __future__ import annotations

from sors.kit.errors import ApiError


class SoundNotFound(ApiError):
    status = 404
    code = "sound_not_found"
    title = "Sound not found"

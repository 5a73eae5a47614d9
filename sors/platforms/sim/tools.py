"""External programs the media pipeline needs, with errors that say how to install them.

Python-side models (faster-whisper, RapidOCR) ship in wheels; these two programs come from
the operating system: ffmpeg assembles the simulated videos, espeak-ng speaks their voice
track. Reading real media needs neither (PyAV and OpenCV bundle their own decoders).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from sors.platforms.base import MediaNotMade


class ToolMissing(MediaNotMade):
    """A required external program (ffmpeg, espeak-ng) is not installed."""

    code = "tool_missing"

    def __init__(self, message: str, *, tool: str = "") -> None:
        super().__init__(message)
        self.tool = tool


@dataclass(frozen=True, slots=True)
class Tool:
    binary: str
    debian_package: str
    used_for: str


TOOLS: dict[str, Tool] = {
    "ffmpeg": Tool("ffmpeg", "ffmpeg", "assembling simulated videos (H.264/AAC)"),
    "espeak-ng": Tool("espeak-ng", "espeak-ng", "the synthesized voice of simulated videos"),
}

# DejaVu is the font the simulated media are drawn with; without it Pillow's built-in font
# is used, which OCR still reads but which looks worse.
FONT_CANDIDATES: tuple[Path, ...] = (
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"),
    Path("/usr/share/fonts/dejavu/DejaVuSans-Bold.ttf"),
    Path("/usr/local/share/fonts/DejaVuSans-Bold.ttf"),
    Path("/Library/Fonts/DejaVuSans-Bold.ttf"),
)
DEBIAN_PACKAGES: tuple[str, ...] = ("ffmpeg", "espeak-ng", "fonts-dejavu-core")


def _which(binary: str) -> str | None:
    return shutil.which(binary)


def require_tool(binary: str) -> str:
    """The absolute path of `binary`, or ToolMissing naming it and its Debian package."""
    found = _which(binary)
    if found:
        return found
    tool = TOOLS.get(binary)
    hint = (
        f" It is needed for {tool.used_for}; install it with `apt-get install "
        f"{tool.debian_package}` (or your system's package manager)."
        if tool
        else ""
    )
    raise ToolMissing(f"required program `{binary}` was not found on PATH.{hint}", tool=binary)


@cache
def font_path() -> Path | None:
    for candidate in FONT_CANDIDATES:
        if candidate.is_file():
            return candidate
    return None


def check_media_tools() -> dict[str, str | None]:
    """Each program (and the font) mapped to its path, or None when missing."""
    status: dict[str, str | None] = {name: _which(name) for name in TOOLS}
    font = font_path()
    status["dejavu-font"] = str(font) if font else None
    return status

"""Real media files for the simulated platforms.

A simulated video is one card per scene: a solid background colour (a different one for each
scene, so shot detection sees a hard cut at every scene change) with the scene's sentence
drawn large (so OCR can read it), while espeak-ng speaks the sentence (so speech-to-text has
a real voice to transcribe). Pillow draws the cards, ffmpeg encodes H.264/AAC.

Output is a pure function of the input: with the same ffmpeg build, same scenes give the
same bytes (bitexact flags, no metadata, and x264 is deterministic for a fixed preset).
"""

from __future__ import annotations

import io
import os
import subprocess
import tempfile
import textwrap
import wave
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from sors.platforms.base import MediaFile, MediaNotMade
from sors.platforms.sim.tools import font_path, require_tool

FPS = 15
VOICE = "en-us"
WORDS_PER_MINUTE = 140  # espeak-ng's default is 175; slower is clearer for small models
WORD_GAP = 2  # extra pause between words, in units of 10 ms: fewer merged words in STT
LEAD_IN = 0.25  # silence before the voice starts in each scene
TAIL = 0.35  # silence after it, before the cut
MIN_SCENE_SECONDS = 1.5  # the shot detector ignores cuts closer than one second
AUDIO_RATE = 22050  # espeak-ng's native rate

# Background colours: neighbours differ in hue and brightness, so every cut is a hard cut.
PALETTE: tuple[tuple[int, int, int], ...] = (
    (33, 92, 168),  # blue
    (240, 196, 25),  # yellow
    (46, 139, 87),  # green
    (214, 69, 65),  # red
    (98, 54, 155),  # purple
    (245, 130, 32),  # orange
    (24, 24, 28),  # near black
    (0, 160, 170),  # teal
    (236, 234, 224),  # off-white
    (180, 40, 120),  # magenta
)
DARK_TEXT = (20, 20, 24)
LIGHT_TEXT = (255, 255, 255)


class RenderFailed(MediaNotMade):
    code = "render_failed"


def scene_colors(count: int, *, color_offset: int = 0) -> list[str]:
    """The background colours (hex) `render_video`/`render_slides` use for `count` cards."""
    return [_hex(_background(i, color_offset)) for i in range(count)]


# ---- drawing -----------------------------------------------------------------------------


def _background(index: int, offset: int) -> tuple[int, int, int]:
    return PALETTE[(index + offset) % len(PALETTE)]


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def _text_color(bg: tuple[int, int, int]) -> tuple[int, int, int]:
    r, g, b = bg
    return DARK_TEXT if 0.299 * r + 0.587 * g + 0.114 * b > 150 else LIGHT_TEXT


@lru_cache(maxsize=64)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    path = font_path()
    if path is not None:
        return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size=size)


def _wrap(
    text: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont, max_width: float
) -> list[str]:
    lines: list[str] = []
    current = ""
    for word in text.split():
        candidate = f"{current} {word}".strip()
        if current and font.getlength(candidate) > max_width:
            lines.append(current)
            current = word
        else:
            current = candidate
    if current:
        lines.append(current)
    return lines


def _layout(
    text: str, width: int, height: int
) -> tuple[ImageFont.FreeTypeFont | ImageFont.ImageFont, list[str], int]:
    """The biggest font (and its wrapped lines) that fits the text in the card's safe area."""
    max_w, max_h = width * 0.86, height * 0.80
    size = max(14, int(min(width, height) * 0.12))
    while True:
        font = _font(size)
        lines = _wrap(text, font, max_w)
        line_h = int(size * 1.3)
        fits = len(lines) * line_h <= max_h and all(font.getlength(ln) <= max_w for ln in lines)
        if fits or size <= 14:
            return font, lines, line_h
        size = max(14, int(size * 0.9))


def draw_card(text: str, width: int, height: int, background: tuple[int, int, int]) -> Image.Image:
    """A solid card with `text` centred in big, wrapped lines."""
    image = Image.new("RGB", (width, height), background)
    text = " ".join(text.split())
    if not text:
        return image
    draw = ImageDraw.Draw(image)
    font, lines, line_h = _layout(text, width, height)
    colour = _text_color(background)
    top = (height - line_h * len(lines)) / 2
    for n, line in enumerate(lines):
        x = (width - font.getlength(line)) / 2
        y = top + n * line_h + line_h / 2
        draw.text((x, y), line, font=font, fill=colour, anchor="lm")
    return image


def _save_jpeg(image: Image.Image, out_path: Path) -> None:
    tmp = out_path.with_name(f".{out_path.name}.part")
    image.save(tmp, format="JPEG", quality=90, optimize=False)
    os.replace(tmp, out_path)


def card_jpeg(text: str, width: int, height: int) -> bytes:
    """The first card (`render_slides`' first slide, `render_video`'s first frame) as JPEG."""
    out = io.BytesIO()
    draw_card(text, width, height, _background(0, 0)).save(out, format="JPEG", quality=85)
    return out.getvalue()


# ---- images ------------------------------------------------------------------------------


def render_slides(
    slides: Sequence[str],
    out_dir: Path,
    *,
    width: int = 720,
    height: int = 720,
    color_offset: int = 0,
) -> list[MediaFile]:
    """One JPEG per slide (`slide_00.jpg`, …), text drawn big and wrapped."""
    out_dir.mkdir(parents=True, exist_ok=True)
    files: list[MediaFile] = []
    for i, text in enumerate(slides):
        path = out_dir / f"slide_{i:02d}.jpg"
        _save_jpeg(draw_card(text, width, height, _background(i, color_offset)), path)
        files.append(
            MediaFile(
                kind="image",
                path=path,
                content_type="image/jpeg",
                position=i,
                width=width,
                height=height,
            )
        )
    return files


def render_thumbnail(
    text: str,
    out_path: Path,
    *,
    width: int = 480,
    height: int = 360,
    color_offset: int = 0,
) -> MediaFile:
    """A JPEG thumbnail card with `text` on it."""
    out_path.parent.mkdir(parents=True, exist_ok=True)
    _save_jpeg(draw_card(text, width, height, _background(0, color_offset)), out_path)
    return MediaFile(
        kind="thumbnail",
        path=out_path,
        content_type="image/jpeg",
        width=width,
        height=height,
    )


# ---- video -------------------------------------------------------------------------------


def speak(
    text: str,
    wav_path: Path,
    *,
    voice: str = VOICE,
    words_per_minute: int = WORDS_PER_MINUTE,
    word_gap: int = WORD_GAP,
) -> np.ndarray:
    """`text` spoken by espeak-ng in `voice` (e.g. "en-gb", "en-us+f3"), as int16 mono
    samples at AUDIO_RATE; `wav_path` is where espeak-ng writes it."""
    espeak = require_tool("espeak-ng")
    if not text.strip():
        return np.zeros(0, dtype=np.int16)
    args = ["-v", voice, "-s", str(words_per_minute), "-g", str(word_gap)]
    proc = subprocess.run(
        [espeak, *args, "-w", str(wav_path), "--stdin"],
        input=text.encode("utf-8"),
        capture_output=True,
        timeout=60,
        check=False,
    )
    if proc.returncode != 0 or not wav_path.is_file():
        raise RenderFailed(f"espeak-ng failed: {proc.stderr.decode(errors='replace')[-500:]}")
    with wave.open(str(wav_path), "rb") as w:
        if w.getsampwidth() != 2 or w.getnchannels() != 1:
            raise RenderFailed("espeak-ng produced an unexpected WAV format")
        samples = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
        if w.getframerate() != AUDIO_RATE:
            # Resample linearly; only reached with an unusual espeak-ng build.
            n = round(len(samples) * AUDIO_RATE / w.getframerate())
            xs = np.linspace(0, len(samples) - 1, n)
            samples = np.interp(xs, np.arange(len(samples)), samples).astype(np.int16)
    return samples


def write_wav(path: Path, samples: np.ndarray) -> None:
    """int16 mono samples at AUDIO_RATE as a WAV file."""
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(AUDIO_RATE)
        w.writeframes(samples.astype("<i2").tobytes())


def _scene_frames(speech_samples: int, seconds_per_scene: float | None) -> int:
    spoken = LEAD_IN + speech_samples / AUDIO_RATE + TAIL
    seconds = max(spoken, seconds_per_scene or 0.0, MIN_SCENE_SECONDS)
    return int(np.ceil(seconds * FPS))


def _concat_list(cards: list[Path], frames: list[int], list_path: Path) -> None:
    """An ffmpeg concat-demuxer script: each card shown for its scene's number of frames.

    Every card is decoded once and the `fps` filter repeats it, which is several times
    faster than looping each image as its own input.
    """
    lines = ["ffconcat version 1.0"]
    for card, n in zip(cards, frames, strict=True):
        lines += [f"file '{card.name}'", f"duration {n / FPS:.6f}"]
    # The demuxer ignores the last entry's duration unless the file is listed once more.
    lines.append(f"file '{cards[-1].name}'")
    list_path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _ffmpeg_command(
    ffmpeg: str, concat: Path, wav: Path, total_frames: int, out: Path
) -> list[str]:
    cmd = [ffmpeg, "-nostdin", "-hide_banner", "-loglevel", "error", "-y"]
    cmd += ["-f", "concat", "-safe", "0", "-i", str(concat), "-i", str(wav)]
    cmd += ["-map", "0:v", "-map", "1:a", "-vf", f"fps={FPS},format=yuv420p"]
    cmd += ["-t", f"{total_frames / FPS:.6f}"]
    cmd += ["-c:v", "libx264", "-preset", "veryfast", "-tune", "stillimage", "-crf", "23"]
    cmd += ["-g", str(FPS * 2)]
    cmd += ["-c:a", "aac", "-aac_coder", "fast", "-b:a", "64k", "-ar", "44100", "-ac", "1"]
    cmd += ["-map_metadata", "-1", "-fflags", "+bitexact", "-flags", "+bitexact"]
    cmd += ["-movflags", "+faststart", "-f", "mp4", str(out)]
    return cmd


def render_video(
    scenes: Sequence[str],
    out_path: Path,
    *,
    seconds_per_scene: float | None = None,
    width: int = 360,
    height: int = 640,
    color_offset: int = 0,
) -> MediaFile:
    """An H.264/AAC mp4 with one spoken, captioned, solid-colour card per scene.

    Each scene lasts max(its spoken length + a short pause, `seconds_per_scene`, 1.5 s).
    Width and height must be even (H.264 with 4:2:0 chroma).
    """
    if not scenes:
        raise ValueError("a video needs at least one scene")
    if width % 2 or height % 2:
        raise ValueError("width and height must be even")
    ffmpeg = require_tool("ffmpeg")
    require_tool("espeak-ng")  # missing: say so before drawing anything
    out_path.parent.mkdir(parents=True, exist_ok=True)

    with tempfile.TemporaryDirectory(prefix="sors-render-") as tmp_name:
        tmp = Path(tmp_name)
        with ThreadPoolExecutor(max_workers=min(4, len(scenes))) as pool:
            voices = list(
                pool.map(lambda a: speak(a[1], tmp / f"voice{a[0]}.wav"), enumerate(scenes))
            )
        cards: list[Path] = []
        for i, text in enumerate(scenes):
            card = tmp / f"card{i}.png"
            draw_card(text, width, height, _background(i, color_offset)).save(
                card, compress_level=1
            )
            cards.append(card)

        frames = [_scene_frames(len(v), seconds_per_scene) for v in voices]
        total_frames = sum(frames)
        track = np.zeros(round(total_frames / FPS * AUDIO_RATE), dtype=np.int16)
        start_frame = 0
        for voice, n in zip(voices, frames, strict=True):
            at = round((start_frame / FPS + LEAD_IN) * AUDIO_RATE)
            track[at : at + len(voice)] = voice[: max(0, len(track) - at)]
            start_frame += n
        wav = tmp / "track.wav"
        write_wav(wav, track)
        concat = tmp / "cards.ffconcat"
        _concat_list(cards, frames, concat)

        part = out_path.with_name(f".{out_path.name}.part")
        proc = subprocess.run(
            _ffmpeg_command(ffmpeg, concat, wav, total_frames, part),
            capture_output=True,
            timeout=300,
            check=False,
        )
        if proc.returncode != 0:
            part.unlink(missing_ok=True)
            detail = textwrap.shorten(proc.stderr.decode(errors="replace"), 500)
            raise RenderFailed(f"ffmpeg failed: {detail}")
        os.replace(part, out_path)

    return MediaFile(
        kind="video",
        path=out_path,
        content_type="video/mp4",
        width=width,
        height=height,
        duration_seconds=round(total_frames / FPS, 3),
    )

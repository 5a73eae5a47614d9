"""The speech benchmark's clips (bench/speech.py): what is said, by which voice, over what
(music, street-like noise, silence), and the audio made of it — espeak-ng speaks the text
(`sors.platforms.sim.render.speak`) and numpy makes the bed under it."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sors.platforms.sim.render import AUDIO_RATE, speak  # noqa: E402

RATE = AUDIO_RATE  # espeak-ng's rate; the product resamples to 16 kHz as for any upload

TEXTS = {
    "habits": (
        "Three habits changed my mornings forever. First, drink a full glass of water "
        "before coffee. Second, write down one goal for the day and keep it where you can "
        "see it. Third, take a short walk outside in the sun, even when it is cold. Try "
        "them for a week and tell me what happened."
    ),
    "recipe": (
        "This is the cheapest dinner I make every week. Fry an onion with garlic until it "
        "is soft, add a tin of tomatoes and a cup of red lentils, then pour in water and "
        "let it bubble for twenty minutes. Finish it with lemon juice and a handful of "
        "spinach. It feeds four people and costs almost nothing."
    ),
    "review": (
        "I have used this phone for a month, so here is my honest review. The battery "
        "easily lasts a whole day, and the camera is great in daylight but struggles at "
        "night. The screen is bright and smooth. My only real complaint is the price, "
        "which is too high for what you get."
    ),
    "travel": (
        "Stop booking hotels the night before you fly. Prices usually drop about two weeks "
        "out, so set an alert and wait. Pack one small bag, wear your heaviest shoes on the "
        "plane, and always download the offline map of the city before you land."
    ),
    "fitness": (
        "You do not need a gym to get strong. Start with squats, push ups and lunges, three "
        "rounds each, and rest for one minute between rounds. Add a few more every week. "
        "Consistency beats intensity, so show up even on the days you feel tired."
    ),
    "study": (
        "Here is how I learned to study without burning out. Work for twenty five minutes, "
        "then take a five minute break away from your phone. Explain each idea out loud as "
        "if you were teaching a friend. If you cannot explain it simply, you do not "
        "understand it yet."
    ),
    "skincare": (
        "My skin finally cleared up when I stopped using ten products. Now I wash my face "
        "with a gentle cleanser, put on a plain moisturizer, and never skip sunscreen in "
        "the morning. Simple routines are easier to keep, and keeping them is what works."
    ),
    "story": (
        "Last summer my car broke down in the middle of nowhere. A farmer stopped, towed "
        "me to his barn, and fixed the engine with a piece of wire. He would not take any "
        "money. He just asked me to help the next person I saw on the side of the road."
    ),
}


@dataclass(frozen=True)
class Clip:
    name: str
    text: str  # what is said ("" for clips without speech)
    voice: str = "en-us"
    wpm: int = 175
    bed: str | None = None  # "music" or "noise" under the whole clip
    snr_db: float | None = None  # speech level over the bed, in dB
    lead: float = 0.5  # seconds before the speech starts
    tail: float = 0.5
    pause: float = 0.25  # between sentences
    seconds: float = 0.0  # for clips without speech


CLIPS: tuple[Clip, ...] = (
    Clip("clean, en-us, 175 wpm", TEXTS["habits"]),
    Clip("clean, en-gb female, 150 wpm", TEXTS["recipe"], voice="en-gb+f3", wpm=150),
    Clip("clean, en-us male 3, 210 wpm", TEXTS["review"], voice="en-us+m3", wpm=210),
    Clip("clean, en-gb-scotland, 160 wpm", TEXTS["travel"], voice="en-gb-scotland", wpm=160),
    Clip("clean, en-us female 2, 190 wpm", TEXTS["fitness"], voice="en-us+f2", wpm=190),
    Clip(
        "music at 10 dB, en-us female 3", TEXTS["study"], voice="en-us+f3", bed="music", snr_db=10
    ),
    Clip(
        "music at 5 dB, en-gb, 160 wpm",
        TEXTS["skincare"],
        voice="en-gb",
        wpm=160,
        bed="music",
        snr_db=5,
    ),
    Clip("noise at 10 dB, en-us", TEXTS["story"], bed="noise", snr_db=10),
    Clip(
        "short, en-us female 3",
        "Link in bio for the full recipe.",
        voice="en-us+f3",
        lead=1.0,
        tail=1.0,
    ),
    Clip("short after 3 s of music", "Wait for the end.", bed="music", snr_db=10, lead=3.0),
    Clip(
        "pauses of 3 s between sentences",
        TEXTS["habits"] + " " + TEXTS["study"],
        voice="en-gb",
        wpm=165,
        pause=3.0,
        lead=1.0,
        tail=2.0,
    ),
    Clip(
        "long, two minutes, music at 15 dB",
        " ".join(
            TEXTS[k]
            for k in ("recipe", "review", "travel", "fitness", "skincare", "story", "habits")
        ),
        voice="en-us+m3",
        bed="music",
        snr_db=15,
    ),
    Clip("silence (room tone)", "", seconds=20.0),
    Clip("music, nobody speaking", "", bed="music", seconds=20.0),
)


# ---- audio -------------------------------------------------------------------------------


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


def _voice(clip: Clip, tmp: Path) -> np.ndarray:
    parts: list[np.ndarray] = []
    gap = np.zeros(int(clip.pause * RATE), dtype=np.float32)
    for i, sentence in enumerate(_sentences(clip.text)):
        samples = speak(sentence, tmp / "voice.wav", voice=clip.voice, words_per_minute=clip.wpm)
        if i:
            parts.append(gap)
        parts.append(samples.astype(np.float32) / 32768)
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)


def _envelope(n: int, attack: float, decay: float) -> np.ndarray:
    t = np.arange(n) / RATE
    return np.minimum(1.0, t / attack) * np.exp(-t / decay)


def music(seconds: float, rng: np.random.Generator, bpm: float = 100.0) -> np.ndarray:
    """Pop-like backing: a I-V-vi-IV chord loop (three harmonics per note), a bass note per
    beat, a kick on beats one and three, a hi-hat on every eighth."""
    n = int(seconds * RATE)
    out = np.zeros(n, dtype=np.float64)
    beat = int(RATE * 60 / bpm)
    chords = [
        (261.63, 329.63, 392.00),
        (392.00, 493.88, 587.33),
        (220.00, 261.63, 329.63),
        (349.23, 440.00, 523.25),
    ]
    t_beat = np.arange(beat) / RATE
    for b, start in enumerate(range(0, n, beat)):
        chord = chords[(b // 4) % 4]
        seg = np.zeros(beat)
        for f in chord:
            for h, amp in ((1, 1.0), (2, 0.4), (3, 0.2)):
                seg += amp * np.sin(2 * np.pi * f * h * t_beat)
        seg *= 0.12 * _envelope(beat, 0.01, 0.5)
        seg += 0.35 * np.sin(2 * np.pi * chord[0] / 2 * t_beat) * _envelope(beat, 0.005, 0.3)
        if b % 2 == 0:  # kick: a falling sine
            sweep = 2 * np.pi * np.cumsum(50 + 70 * np.exp(-t_beat / 0.04)) / RATE
            seg += 0.8 * np.sin(sweep) * _envelope(beat, 0.002, 0.12)
        for half in (0, beat // 2):  # hi-hat: bright noise bursts
            k = min(beat - half, int(0.08 * RATE))
            hiss = np.diff(rng.standard_normal(k + 1))
            seg[half : half + k] += 0.08 * hiss * _envelope(k, 0.001, 0.02)
        end = min(n, start + beat)
        out[start:end] += seg[: end - start]
    return out.astype(np.float32)


def pink_noise(seconds: float, rng: np.random.Generator) -> np.ndarray:
    n = int(seconds * RATE)
    spectrum = np.fft.rfft(rng.standard_normal(n))
    spectrum /= np.sqrt(np.maximum(1, np.arange(len(spectrum))))
    return np.fft.irfft(spectrum, n).astype(np.float32)


def _rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x, dtype=np.float64)))) if x.size else 0.0


def render(clip: Clip, tmp: Path, rng: np.random.Generator) -> np.ndarray:
    voice = _voice(clip, tmp)
    lead, tail = int(clip.lead * RATE), int(clip.tail * RATE)
    n = max(lead + voice.size + tail, int(clip.seconds * RATE))
    audio = np.zeros(n, dtype=np.float32)
    audio[lead : lead + voice.size] = voice
    if clip.bed:
        bed = music(n / RATE, rng) if clip.bed == "music" else pink_noise(n / RATE, rng)
        if voice.size:  # the bed's level from the speech's: snr_db below it
            active = voice[np.abs(voice) > 0.01]
            bed *= _rms(active) / (_rms(bed) * 10 ** ((clip.snr_db or 0) / 20))
        else:
            bed *= 0.1 / _rms(bed)  # about -20 dBFS, a normal music level
        audio += bed
    else:
        audio += 0.001 * rng.standard_normal(n).astype(np.float32)  # room tone, -60 dBFS
    peak = float(np.max(np.abs(audio)))
    return audio * (0.9 / peak) if peak > 0.9 else audio

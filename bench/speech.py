"""Speech-to-text benchmark: real time factor and word error rate, old settings beside new.

    .venv/bin/python bench/speech.py [--rounds 2] [--configs old,greedy,new,batched,lanes]
        [--keep DIR] [--json results.json]

Clips are made here, with a known text: espeak-ng speaks it (several voices and speeds,
`sors.platforms.sim.render.speak`), and numpy makes what social video puts under speech:
music (chords, a bass line, kick and hi-hat, at a stated speech-to-music ratio), street-like
noise (pink noise), silence, and music with nobody speaking. Each clip is a WAV file that
goes through the product's own path (`sors.enrichment.speech.transcribe`: decode, resample,
VAD, decode), with the bundled offline tiny.en model.

Configurations (--configs), each run over every clip, alternating within each round so that
they share the machine's load:
- old:     beam 5, no VAD, one transcription at a time on every core (the previous settings)
- greedy:  beam 1, no VAD (what greedy decoding alone does)
- new:     the defaults (`SpeechOptions()`: beam 3, Silero VAD), one at a time on every core
- batched: new, with the VAD's segments through the model 8 at a time
- lanes:   new, with one transcription per core at once (parallel = cores, 1 thread each):
           the clips are fed to as many threads as there are lanes, as a busy worker would
- or any `beam<N>[-novad][-batch<B>][-lanes]`, e.g. beam1, beam1-lanes, beam5-batch8.

Real time factor = audio seconds / wall seconds (higher is faster), over all clips of a
round, the model already loaded (a worker loads it once); the median round is reported.
Word error rate = word-level edit distance / reference words, over every clip that has
speech (lower-case words, punctuation dropped, numbers spelled out: "25" is "twenty five");
clips without speech report the words invented instead.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sors.enrichment import speech  # noqa: E402
from sors.platforms.sim.render import AUDIO_RATE, speak, write_wav  # noqa: E402

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


# ---- scoring ------------------------------------------------------------------------------


UNITS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen "
    "fourteen fifteen sixteen seventeen eighteen nineteen"
).split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
ORDINALS = {"1st": "first", "2nd": "second", "3rd": "third", "4th": "fourth", "5th": "fifth"}


def _spelled(token: str) -> list[str]:
    """Numbers as a speaker says them ("25" -> "twenty five"), so that a transcript's digits
    match a reference's words; larger numbers are left as they are."""
    if token in ORDINALS:
        return [ORDINALS[token]]
    if not token.isdigit() or int(token) > 99:
        return [token]
    n = int(token)
    if n < 20:
        return [UNITS[n]]
    return [TENS[n // 10]] + ([UNITS[n % 10]] if n % 10 else [])


def words(text: str) -> list[str]:
    """Lower-case words without punctuation, numbers spelled out."""
    tokens = re.findall(r"[a-z0-9']+", text.lower().replace("-", " "))
    return [w for token in tokens for w in _spelled(token)]


def edit_distance(ref: Sequence[str], hyp: Sequence[str]) -> int:
    previous = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, start=1):
        current = [i] + [0] * len(hyp)
        for j, h in enumerate(hyp, start=1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (r != h))
        previous = current
    return previous[-1]


# ---- runs ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Config:
    name: str
    options: speech.SpeechOptions
    at_once: int = 1  # clips fed at the same time


PRESETS = {
    "old": "beam5-novad",  # the previous settings
    "greedy": "beam1-novad",
    "new": "beam{beam}{novad}",  # the defaults (SpeechOptions())
    "batched": "beam{beam}{novad}-batch8",
    "lanes": "beam{beam}{novad}-lanes",
}
SPEC = re.compile(r"beam(\d+)(-novad)?(-batch(\d+))?(-lanes)?")


def config(name: str, cores: int) -> Config:
    """A preset, or `beam<N>[-novad][-batch<B>][-lanes]`: -lanes runs one transcription per
    core at once (1 thread each), otherwise one at a time on every core."""
    defaults = speech.SpeechOptions()
    preset = PRESETS.get(name, name).format(
        beam=defaults.beam_size, novad="" if defaults.vad else "-novad"
    )
    spec = SPEC.fullmatch(preset)
    if spec is None:
        raise SystemExit(f"unknown configuration {name!r}")
    beam, novad, _, batch, lanes = spec.groups()
    at_once = cores if lanes else 1
    options = speech.SpeechOptions(
        beam_size=int(beam),
        vad=not novad,
        batch_size=int(batch or 1),
        parallel=at_once,
        threads=1 if lanes else cores,
    )
    label = f"beam {beam}, " + ("no VAD" if novad else "VAD")
    if batch:
        label += f", batch {batch}"
    label += f", {cores} at once x 1 thread" if lanes else f", 1 at a time x {cores} threads"
    prefix = {"old": "old: ", "new": "new: "}.get(name, "")
    return Config(prefix + label, options, at_once)


@dataclass
class Run:
    wall: float
    per_clip: list[tuple[float, str]] = field(default_factory=list)  # (seconds, text)


def run_config(config: Config, paths: list[Path]) -> Run:
    def one(path: Path) -> tuple[float, str]:
        started = time.perf_counter()
        transcript = speech.transcribe(path, config.options)
        return time.perf_counter() - started, transcript.text if transcript else ""

    started = time.perf_counter()
    if config.at_once > 1:
        with ThreadPoolExecutor(config.at_once) as pool:
            per_clip = list(pool.map(one, paths))
    else:
        per_clip = [one(p) for p in paths]
    return Run(time.perf_counter() - started, per_clip)


def timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def loadavg() -> str:
    return " ".join(open("/proc/loadavg").read().split()[:3])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--configs", default="old,greedy,new,batched,lanes")
    ap.add_argument("--keep", type=Path, help="write the clips here (and keep them)")
    ap.add_argument("--json", type=Path, help="write every figure and transcript here")
    ap.add_argument("--vad", help="JSON overriding the VAD parameters (for tuning)")
    ap.add_argument("--cores", type=int, help="cores to use (default: every usable one)")
    ap.add_argument("--clips", help="comma-separated clip numbers (0-based); default: all")
    args = ap.parse_args()
    if args.vad:
        speech.VAD_PARAMETERS.update(json.loads(args.vad))
    cores = args.cores or speech.usable_cores()
    chosen = [config(c, cores) for c in args.configs.split(",")]

    out_dir = args.keep or Path(tempfile.mkdtemp(prefix="sors-speech-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2026)
    clips = [CLIPS[int(i)] for i in args.clips.split(",")] if args.clips else list(CLIPS)
    paths, seconds = [], []
    for i, clip in enumerate(clips):
        audio = render(clip, out_dir, rng)
        path = out_dir / f"clip{i:02d}.wav"
        write_wav(path, (np.clip(audio, -1, 1) * 32767).astype(np.int16))
        paths.append(path)
        seconds.append(audio.size / RATE)
    total_audio = sum(seconds)
    kept = sum(
        end - start for p in paths for start, end in speech.speech_regions(speech.load_audio(p))
    )
    print(f"{len(clips)} clips, {total_audio:.1f} s of audio, in {out_dir}", file=sys.stderr)

    # The first load includes importing faster-whisper and CTranslate2.
    model_load = max(timed(lambda c=c: speech._engine(c.options)) for c in chosen)
    shortest = paths[seconds.index(min(seconds))]
    for c in chosen:  # warm: the first transcription initialises the VAD and the allocator
        speech.transcribe(shortest, c.options)
    print(f"load average before: {loadavg()}", file=sys.stderr)

    runs: dict[str, list[Run]] = {c.name: [] for c in chosen}
    loads: list[str] = []
    for r in range(args.rounds):
        for c in chosen:
            runs[c.name].append(run_config(c, paths))
            loads.append(loadavg())
            rtf = total_audio / runs[c.name][-1].wall
            print(f"round {r + 1} {c.name}: {rtf:.1f}x  (load {loads[-1]})", file=sys.stderr)

    results = []
    for c in chosen:
        first = runs[c.name][0]
        ref_words = errors = invented = 0
        per_clip = []
        for clip, secs, (wall, text) in zip(clips, seconds, first.per_clip, strict=True):
            ref, hyp = words(clip.text), words(text)
            if ref:
                dist = edit_distance(ref, hyp)
                ref_words += len(ref)
                errors += dist
            else:
                dist = len(hyp)
                invented += dist
            per_clip.append(
                {
                    "clip": clip.name,
                    "seconds": round(secs, 2),
                    "wall": round(wall, 3),
                    "errors": dist,
                    "ref_words": len(ref),
                    "text": text,
                }
            )
        walls = [run.wall for run in runs[c.name]]
        results.append(
            {
                "config": c.name,
                "rtf": round(total_audio / statistics.median(walls), 1),
                "rtf_rounds": [round(total_audio / w, 1) for w in walls],
                "wer": round(100 * errors / ref_words, 2),
                "invented_words": invented,
                "clips": per_clip,
            }
        )

    report = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.processor() or platform.machine()}, {cores} usable cores",
        "cpu": _cpu_model(),
        "audio_seconds": round(total_audio, 1),
        "model_load_seconds": round(model_load, 2),
        "vad_kept_seconds": round(kept, 1),
        "clips": [
            {"clip": c.name, "seconds": round(s, 1)} for c, s in zip(clips, seconds, strict=True)
        ],
        "vad_parameters": speech.VAD_PARAMETERS,
        "load_during_runs": loads,
        "results": results,
    }
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    print_markdown(report)
    if not args.keep:
        shutil.rmtree(out_dir, ignore_errors=True)


def _cpu_model() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def print_markdown(report: dict) -> None:
    print(
        f"Run {report['date']} ({report['cpu']}, {os.cpu_count()} vCPU), "
        f"{len(report['clips'])} clips, {report['audio_seconds']} s of audio; "
        f"load average during the runs: {', '.join(report['load_during_runs'])}; "
        f"loading the model (once per worker process): {report['model_load_seconds']} s; "
        f"the VAD keeps {report['vad_kept_seconds']} s of the audio\n"
    )
    print(
        "| settings | real time factor (median; rounds) | WER | words invented on "
        "silence and music |"
    )
    print("|---|---|---|---|")
    for r in report["results"]:
        rounds = ", ".join(f"{x}x" for x in r["rtf_rounds"])
        print(
            f"| {r['config']} | **{r['rtf']}x** ({rounds}) | {r['wer']}% | {r['invented_words']} |"
        )
    print("\nPer clip (wall seconds / word errors):\n")
    names = [r["config"] for r in report["results"]]
    print("| clip | seconds | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(names))
    for i, clip in enumerate(report["clips"]):
        cells = [
            f"{r['clips'][i]['wall']} s / {r['clips'][i]['errors']}" for r in report["results"]
        ]
        print(f"| {clip['clip']} | {clip['seconds']} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()

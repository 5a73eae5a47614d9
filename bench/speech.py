"""Speech-to-text benchmark: real time factor and word error rate, old settings beside new.

    .venv/bin/python bench/speech.py [--rounds 2] [--configs old,greedy,new,batched,lanes]
        [--keep DIR] [--json results.json]

Clips are made with a known text (bench/speech_clips.py): espeak-ng speaks it (several voices
and speeds, `sors.platforms.sim.render.speak`), and numpy makes what social video puts under
speech: music (chords, a bass line, kick and hi-hat, at a stated speech-to-music ratio),
street-like noise (pink noise), silence, and music with nobody speaking. Each clip is a WAV
file that goes through the product's own path (`sors.enrichment.speech.transcribe`: decode,
resample, VAD, decode), with the bundled offline tiny.en model.

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

from bench.speech_clips import CLIPS, RATE, render  # noqa: E402
from sors.enrichment import speech  # noqa: E402
from sors.platforms.sim.render import write_wav  # noqa: E402

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

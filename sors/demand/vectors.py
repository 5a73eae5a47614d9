"""Comment texts through the catalog's embedding model (the same seam, and so the same
space, as the posts' vectors: a comment's cluster is compared with posts by meaning), kept
once per distinct text and model in half precision; and the similarities that decide what
is one cluster and what a post answers.

The thresholds are cosine similarities, calibrated per model on the simulated world's
planted questions and on paraphrases (docs/API.md, "Demand"): under `use-m3` and `wordllama`
a question the posts answer met its nearest post at 0.65 or more, one no post answers at
0.48 or less, hence COVERED 0.58. Clusters: `use-m3` scores a paraphrase ("how many grams
of flour?" / "the exact flour amount in grams?") 0.84 and two different questions about one
topic 0.67; `wordllama`, a static model that averages words, scores those 0.82 and 0.88, so
it clusters by shared words and needs a higher bar. A model not listed takes DEFAULT_*; the
settings `SORS_DEMAND_CLUSTER_SIMILARITY` and `SORS_DEMAND_COVERED_SIMILARITY` override.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from sors.catalog.vectors.embedder import Embedder
from sors.config import Settings

CLUSTER_SIMILARITY = {"use-m3": 0.72, "wordllama": 0.9}
DEFAULT_CLUSTER_SIMILARITY = 0.75
COVERED_SIMILARITY = {"use-m3": 0.58, "wordllama": 0.58}
DEFAULT_COVERED_SIMILARITY = 0.6


def family(model_key: str) -> str:
    """"use-m3:512" → "use-m3"; "wordllama:256" → "wordllama"."""
    return model_key.split(":", 1)[0]


def cluster_similarity(settings: Settings, model_key: str) -> float:
    chosen = settings.demand.cluster_similarity
    if chosen is not None:
        return chosen
    return CLUSTER_SIMILARITY.get(family(model_key), DEFAULT_CLUSTER_SIMILARITY)


def covered_similarity(settings: Settings, model_key: str) -> float:
    chosen = settings.demand.covered_similarity
    if chosen is not None:
        return chosen
    return COVERED_SIMILARITY.get(family(model_key), DEFAULT_COVERED_SIMILARITY)


def text_hash(text: str) -> bytes:
    """The key of a text's vector (md5: a key, not a secret)."""
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).digest()


def embed(model: Embedder, texts: Sequence[str]) -> list[bytes | None]:
    """Each text's unit vector as little-endian float16 bytes; None for a text the model
    gives no direction (no word it knows)."""
    if not texts:
        return []
    rows = np.asarray(model.embed(list(texts)), dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1)
    ok = np.isfinite(rows).all(axis=1) & (norms > 0)
    rows = rows / np.where(norms > 0, norms, 1.0)[:, None]
    return [r.astype("<f2").tobytes() if good else None
            for r, good in zip(rows, ok, strict=True)]


def matrix(blobs: Sequence[bytes], dims: int) -> np.ndarray:
    """Stored vectors as one float32 matrix (rows renormalised after half precision)."""
    if not blobs:
        return np.zeros((0, dims), dtype=np.float32)
    rows = np.frombuffer(b"".join(blobs), dtype="<f2").reshape(len(blobs), -1)
    out = rows.astype(np.float32)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(norms > 0, norms, 1.0)


def as_pgvector(row: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.6g}" for x in row) + "]"

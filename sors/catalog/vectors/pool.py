"""Embedding many texts off the event loop: the scheduler's batches (new posts, the background
re-embedding) and a demo world's, while the same process serves requests.

A model whose cost is CPU in Python (`Embedder.cpu_bound`: use-m3's tokenizer is pure Python
and holds the GIL) embeds a large batch in worker processes, one per core, each with the model
loaded on one BLAS thread: two processes embedded captions 1.9x as fast as one, two threads
in one process 1.2x (docs/PERFORMANCE.md, "Search by meaning"). The workers start with the
first large batch (each loads the model, ~1-2 s) and are let go when a scheduler tick finds
nothing to embed (`release`), so an idle server does not keep their memory (~150 MB each).
A small batch, or a model that is fast or waits on a network, runs in a thread of this
process: the event loop goes on meanwhile.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
import structlog

from sors.catalog.vectors.embedder import DEFAULT_MODEL, Embedder, load

log = structlog.get_logger(__name__)

# Below this many texts a batch runs in a thread here: a worker's start (spawning Python and
# loading the model) costs about what 1,000 captions do.
PROCESS_MIN = 1000
MAX_DEFAULT_PROCESSES = 4
# Texts per task sent to a worker: big enough that pickling is noise, small enough that the
# workers finish together.
CHUNK = 500

_lock = threading.Lock()
_pools: dict[tuple[Any, ...], ProcessPoolExecutor] = {}
_model: Embedder | None = None  # a worker's model


def processes_for(settings: Any) -> int:
    configured = settings.embeddings.processes
    if configured:
        return int(configured)
    return max(1, min(MAX_DEFAULT_PROCESSES, os.cpu_count() or 1))


def _load_in_worker(name: str, base_url: str | None, api_key: str | None) -> None:
    global _model
    _model = load(name, base_url, api_key)


def _embed_in_worker(texts: list[str]) -> np.ndarray:
    assert _model is not None, "the worker's initializer loads the model"
    return _model.embed(texts)


def _pool(settings: Any, workers: int) -> ProcessPoolExecutor:
    e = settings.embeddings
    name = e.model or DEFAULT_MODEL
    ident = (name, e.base_url, e.api_key, workers)
    with _lock:
        pool = _pools.get(ident)
        if pool is None:
            # spawn: a fork would copy this process's event loop, sockets and database pool.
            pool = ProcessPoolExecutor(
                workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=_load_in_worker, initargs=(name, e.base_url, e.api_key))
            _pools[ident] = pool
            log.info("embedding_workers_started", model=name, processes=workers)
        return pool


async def embed(model: Embedder, settings: Any, texts: Sequence[str]) -> np.ndarray:
    """`model.embed(texts)`, without holding up the event loop."""
    workers = processes_for(settings)
    if not model.cpu_bound or workers < 2 or len(texts) < PROCESS_MIN:
        return await asyncio.to_thread(model.embed, list(texts))
    pool = _pool(settings, workers)
    loop = asyncio.get_running_loop()
    size = min(CHUNK, -(-len(texts) // workers))
    parts = [list(texts[i : i + size]) for i in range(0, len(texts), size)]
    done = await asyncio.gather(*(loop.run_in_executor(pool, _embed_in_worker, p)
                                  for p in parts))
    return np.concatenate(done).astype(np.float32, copy=False)


def release() -> None:
    """Stop the workers (they start again with the next large batch)."""
    with _lock:
        pools = list(_pools.values())
        _pools.clear()
    for pool in pools:
        pool.shutdown(wait=False, cancel_futures=True)
        log.info("embedding_workers_released")

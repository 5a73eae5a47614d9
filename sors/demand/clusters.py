"""Comments clustered by meaning: pure numpy over unit vectors, each distinct text once
with its weight (how many comments say it word for word).

Leader clustering in the order of the texts' likes, with the running centroid of each
cluster: a text joins the nearest cluster whose centroid it meets at `threshold` or more,
else it starts one. Texts are taken in blocks: a block is first compared with every
cluster at once (one matrix product), and only the texts of the block that join none are
then walked one by one against each other (the block's own similarities, computed once). A
second pass moves each text to the nearest final centroid (as k-means does once), so the
order a text came in matters less. A cluster's label is its most central text, verbatim:
the one nearest its centroid (ties: more comments, then more likes).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

BLOCK = 256


@dataclass(frozen=True, slots=True)
class Cluster:
    members: list[int]  # indexes of the texts in it
    label: int  # index of its most central text
    centroid: np.ndarray  # unit vector


def _new_centroid(total: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(total))
    return total / norm if norm > 0 else total


def _groups(assign: np.ndarray) -> list[np.ndarray]:
    """The indexes of each cluster id, in id order."""
    order = np.argsort(assign, kind="stable")
    cuts = np.flatnonzero(np.diff(assign[order])) + 1
    return np.split(order, cuts)


def _leaders(vectors: np.ndarray, weights: np.ndarray, threshold: float) -> np.ndarray:
    """The cluster of each text after the first pass, as integer ids."""
    n, dims = vectors.shape
    sums = np.zeros((max(16, n), dims), dtype=np.float32)  # weighted sums per cluster
    cents = np.zeros_like(sums)
    k = 0
    assign = np.full(n, -1, dtype=np.int64)
    for start in range(0, n, BLOCK):
        block = vectors[start:start + BLOCK]
        if k:
            sims = block @ cents[:k].T
            best = sims.argmax(axis=1)
            hit = sims[np.arange(len(block)), best] >= threshold
        else:
            best = np.zeros(len(block), dtype=np.int64)
            hit = np.zeros(len(block), dtype=bool)
        for j in np.flatnonzero(hit):
            assign[start + j] = best[j]
        rest = np.flatnonzero(~hit)
        if rest.size:
            inner = block[rest] @ block[rest].T
            opened = k  # clusters from here on were started inside this block
            local = np.full(rest.size, -1, dtype=np.int64)
            for a in range(rest.size):
                near = np.flatnonzero((inner[a, :a] >= threshold) & (local[:a] >= opened))
                if near.size:
                    local[a] = local[near[np.argmax(inner[a, near])]]
                else:
                    local[a] = k
                    k += 1
                assign[start + rest[a]] = local[a]
        for j in range(len(block)):
            c = assign[start + j]
            sums[c] += weights[start + j] * block[j]
            cents[c] = _new_centroid(sums[c])
    return assign


def cluster(vectors: np.ndarray, weights: Sequence[float], likes: Sequence[float],
            threshold: float) -> list[Cluster]:
    """Clusters of the texts (`vectors`: unit rows, in the order to take them: most liked
    first), largest total weight first. One BLAS thread: the products here are small, and
    threads that wait on each other on a busy machine cost more than they bring (a 2,000-text
    clustering took 0.1-0.4 s with two threads, 0.15 s steadily with one)."""
    with threadpool_limits(limits=1, user_api="blas"):
        return _cluster(vectors, weights, likes, threshold)


def _cluster(vectors: np.ndarray, weights: Sequence[float], likes: Sequence[float],
             threshold: float) -> list[Cluster]:
    n = vectors.shape[0]
    if n == 0:
        return []
    w = np.asarray(weights, dtype=np.float32)
    assign = _leaders(vectors, w, threshold)
    groups = _groups(assign)
    weighted = w[:, None] * vectors
    cents = np.stack([_new_centroid(weighted[g].sum(axis=0)) for g in groups])
    final = np.empty(n, dtype=np.int64)
    for i, g in enumerate(groups):
        final[g] = i
    # The refining pass: each text to the nearest final centroid of a cluster of several
    # texts when it meets it at the threshold and nearer than its own (singletons were all
    # compared in the first pass; leaving them out keeps this pass small).
    multi = np.asarray([i for i, g in enumerate(groups) if g.size > 1], dtype=np.int64)
    if multi.size:
        sims = vectors @ cents[multi].T
        best = sims.argmax(axis=1)
        top = sims[np.arange(n), best]
        own = np.einsum("ij,ij->i", vectors, cents[final])
        moved = (top >= threshold) & (top > own + 1e-6)
        final = np.where(moved, multi[best], final)
    like_arr = np.asarray(likes, dtype=np.float64)
    out = []
    for members in _groups(final):
        if members.size == 1:
            m = int(members[0])
            out.append(Cluster([m], m, vectors[m]))
            continue
        centroid = _new_centroid(weighted[members].sum(axis=0))
        central = vectors[members] @ centroid
        order = sorted(range(members.size), key=lambda i: (
            -round(float(central[i]), 6), -w[members[i]], -like_arr[members[i]], members[i]))
        out.append(Cluster([int(m) for m in members], int(members[order[0]]), centroid))
    out.sort(key=lambda c: (-float(w[c.members].sum()), c.label))
    return out

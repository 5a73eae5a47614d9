"""Stable randomness for the simulated world.

The world must come out identical in every process, on every machine and on every future
Python, because a database seeded yesterday is crawled again today: a post that came out
different would look deleted and re-created. So:

- seeds come from BLAKE2b over the parts that identify a thing (never `hash()`, which is
  salted per process);
- `Rng` draws everything from `random.Random.random()`, the one method whose sequence Python
  promises not to change for an integer seed (`choice`, `gauss`, `sample`… may change).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import TypeVar

try:
    # The C Mersenne Twister that random.Random extends, without its Python-level seeding
    # wrapper: same sequence for an integer seed, but twice as cheap to create, and the
    # world creates one per post.
    from _random import Random as _MersenneTwister
except ImportError:  # pragma: no cover - interpreters without the C module
    from random import Random as _MersenneTwister  # type: ignore[assignment]

T = TypeVar("T")

_U64 = float(1 << 64)


def stable_digest(*parts: object, size: int = 8) -> bytes:
    # The unit separator cannot occur in a handle, so ("a", "bc") and ("ab", "c") differ.
    data = "\x1f".join(str(p) for p in parts).encode()
    return hashlib.blake2b(data, digest_size=size).digest()


def stable_int(*parts: object) -> int:
    """A 64-bit integer that depends only on `parts`."""
    return int.from_bytes(stable_digest(*parts), "big")


def unit_floats(*parts: object, count: int) -> list[float]:
    """`count` (≤ 8) independent uniforms in [0, 1) from a single hash: cheaper than an Rng."""
    raw = stable_digest(*parts, size=8 * count)
    return [int.from_bytes(raw[i : i + 8], "big") / _U64 for i in range(0, 8 * count, 8)]


class Rng:
    """A small, version-proof random source (see the module docstring)."""

    __slots__ = ("random",)

    def __init__(self, seed: int) -> None:
        self.random = _MersenneTwister(seed).random

    def uniform(self, a: float, b: float) -> float:
        return a + (b - a) * self.random()

    def log_uniform(self, a: float, b: float) -> float:
        return math.exp(self.uniform(math.log(a), math.log(b)))

    def below(self, n: int) -> int:
        # random() < 1 - 2**-53, so the product never rounds up to n for any sane n.
        return int(self.random() * n)

    def randint(self, a: int, b: int) -> int:
        """Inclusive on both ends, like random.randint."""
        return a + int(self.random() * (b - a + 1))

    def chance(self, p: float) -> bool:
        return self.random() < p

    def choice(self, seq: Sequence[T]) -> T:
        return seq[int(self.random() * len(seq))]

    def sample(self, seq: Sequence[T], k: int) -> list[T]:
        """k distinct items, in draw order (rejection: k is small next to len(seq) here)."""
        n = len(seq)
        k = min(k, n)
        r = self.random
        picked: list[int] = []
        while len(picked) < k:
            i = int(r() * n)
            if i not in picked:
                picked.append(i)
        return [seq[i] for i in picked]

    def weighted(self, items: Sequence[T], weights: Sequence[float]) -> T:
        x = self.random() * sum(weights)
        for item, w in zip(items, weights, strict=True):
            x -= w
            if x < 0:
                return item
        return items[-1]

    def normal(self, mu: float = 0.0, sigma: float = 1.0) -> float:
        # Box-Muller; 1 - random() keeps log() away from zero.
        u1 = 1.0 - self.random()
        u2 = self.random()
        return mu + sigma * math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)

    def lognormal(self, mu: float, sigma: float) -> float:
        return math.exp(self.normal(mu, sigma))

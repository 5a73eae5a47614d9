"""The simulated catalog of tests/sounds (four niches), built again for this package."""

from tests.sounds.conftest import niche

__all__ = ["niche"]

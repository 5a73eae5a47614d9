"""The simulated platforms (docs/API.md, "Simulated platforms"). See world.py for how the
world behaves."""

from sors.platforms.sim.accounts import SIM_EPOCH
from sors.platforms.sim.adapter import SimAdapter
from sors.platforms.sim.world import LISTING_SIZE, SimWorld

__all__ = ["LISTING_SIZE", "SIM_EPOCH", "SimAdapter", "SimWorld"]

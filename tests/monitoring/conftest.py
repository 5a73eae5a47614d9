from tests.factories.world import sim_time_restored

__all__ = ["sim_time_restored"]

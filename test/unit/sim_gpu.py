"""A stand-in for the GPU World in overlap-bench tests: the two calls the
bench's syncopate rows make (``symmetric``, ``context``), backed by
syncopate's simulated ranks. ``sources`` maps each gathered kernel parameter
to the whole gathered tensor, which the simulator delivers chunk by chunk."""

import torch

from syncopate.runtime.world import SimWorld


class SimulatedGpu:
    def __init__(self, world: int, rank: int, sources: dict[str, torch.Tensor]):
        self.sim, self.rank, self.sources = SimWorld(world), rank, sources
        self.lanes = None

    def symmetric(self, like: torch.Tensor) -> torch.Tensor:
        return torch.empty_like(like)

    def context(self, ce_lanes: int = 1):
        self.lanes = ce_lanes  # the simulator copies at once: lanes change nothing here
        return self.sim.rank(self.rank, self.sources)

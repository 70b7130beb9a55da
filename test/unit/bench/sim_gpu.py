"""A stand-in for the GPU World in overlap-bench tests: the two calls the
bench's syncopate rows make (``symmetric``, ``context``), backed by
syncopate's simulated ranks. ``sources`` maps each gathered (or all-to-all
received) kernel parameter to the whole tensor the rank ends up with, which
the simulator delivers chunk by chunk."""

import torch

from syncopate.runtime.sim.world import SimWorld


class SimulatedGpu:
    def __init__(self, world: int, rank: int, sources: dict[str, torch.Tensor]):
        self.sim, self.rank, self.sources = SimWorld(world), rank, sources
        self.lanes = None
        self.staging: dict[tuple, torch.Tensor] = {}  # the GPU World's ce reduce-scatter staging buffers

    def barrier(self) -> None:
        """One process holds every simulated rank: nothing to wait for."""

    def symmetric(self, like: torch.Tensor) -> torch.Tensor:
        return torch.empty_like(like)

    def context(self, sources: dict[str, torch.Tensor] | None = None, ce_lanes: int = 1):
        """The GPU World's ``sources`` (an all-to-all's send buffers) are
        recorded, not used: the simulator delivers from the whole received
        tensor given at construction."""
        self.lanes, self.send_buffers = ce_lanes, sources  # the simulator copies at once: lanes change nothing
        return self.sim.rank(self.rank, self.sources)

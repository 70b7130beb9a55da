"""The extra kernel arguments of one fused launch, for any World.

Both worlds evaluate the plans at the launch's sizes, build the tile->chunk
graph, and pass the same ABI arguments (see lower-chunk-to-tile and
tile-reorder): chunk tables, tile order or rotation, signal pad and epoch.
Only where the tensors live differs (``device``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import networkx as nx
import torch

from syncopate.dialects.chunk import PlanOp
from syncopate.ir import deps
from syncopate.ir.deps import ConcreteChunk
from syncopate.runtime.fused import FusedProgram


def scalar_env(params: Mapping[str, Any]) -> dict[str, int]:
    """Integer arguments of a launch (sizes, strides, constexprs)."""
    return {k: int(v) for k, v in params.items() if isinstance(v, int) and not isinstance(v, bool)}


@dataclass
class LaunchPlan:
    """The plans of one launch on one rank, evaluated at its sizes."""

    plans: dict[str, PlanOp]
    chunks: dict[str, list[ConcreteChunk]]
    graph: nx.DiGraph
    grid: tuple[int, ...]
    rank: int

    @classmethod
    def build(cls, program: FusedProgram, params: Mapping[str, Any], grid: tuple[int, ...], rank: int) -> LaunchPlan:
        abi = program.abi
        env = scalar_env(params)
        bases = {k: v.value.data for k, v in abi["flag_bases"].data.items()} if "flag_bases" in abi else {}
        plans = {p.sym_name.data: p for p in program.plans}
        chunks = {name: deps.concrete_chunks(p, env, bases.get(name, 0)) for name, p in plans.items()}
        graph = deps.tile_chunk_graph(program.module, program.kernel, env, grid, rank, bases)
        return cls(plans, chunks, graph, grid, rank)

    @property
    def flag_count(self) -> int:
        return max((c.flag + 1 for cs in self.chunks.values() for c in cs), default=1)

    def arguments(self, program: FusedProgram, flags: torch.Tensor, epoch: int, device: Any = None) -> dict[str, Any]:
        """The keyword arguments the fused kernel's ABI adds."""
        abi = program.abi
        extra: dict[str, Any] = {}
        if "flags" in abi:
            extra[abi["flags"].data] = flags
            extra[abi["epoch"].data] = epoch
        for entry in abi["tables"].data if "tables" in abi else ():
            e = {k: v.data for k, v in entry.data.items()}
            mine = [c for c in deps.rank_chunks(self.chunks[e["plan"]], self.rank, e["role"]) if c.tensor == e["tensor"]]
            rows = [[c.lo, c.hi, c.flag] for c in mine] or [[0, 0, 0]]
            extra[e["param"]] = torch.tensor(rows, dtype=torch.int32, device=device)
            extra[e["count"]] = len(mine)
        if "tile_order" in abi:
            order = deps.tile_order(self.graph, self.grid, abi["group"].value.data)
            extra[abi["tile_order"].data] = torch.tensor(order, dtype=torch.int32, device=device)
        if "rotate" in abi:
            extra[abi["rotate"].data] = deps.rotation(self.graph, abi["axis"].value.data)
        return extra

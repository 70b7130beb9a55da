"""The simulated World: W ranks in one process (see runtime/sim.py for delivery).

``SimWorld(world, order, seed).rank(r, sources)`` is the :class:`RankContext`
a :class:`~syncopate.runtime.fused.FusedKernel` launches through on rank r.
``sources`` maps a gathered tensor's kernel parameter to the complete tensor
rank r should end up with (the data chunks are copied from); the tensor the
kernel actually gets is poisoned with NaN outside this rank's local chunks
before the launch, so only delivered chunks hold data. Reduce-scatter
partials are collected into ``reduced[(plan, dst)]`` as they are announced.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

from syncopate.ir import deps
from syncopate.ir.deps import ConcreteChunk
from syncopate.passes.chunk_dependency_analysis import CONSUMED
from syncopate.runtime.fused import FusedProgram
from syncopate.runtime.sim import DeliveryHook, Incoming, Outgoing


def rows(t: torch.Tensor, dim: int, lo: int, hi: int) -> torch.Tensor:
    return t.narrow(dim, lo, hi - lo)


def scalar_env(params: Mapping[str, Any]) -> dict[str, int]:
    """Integer arguments of a launch (sizes, strides, constexprs)."""
    return {k: int(v) for k, v in params.items() if isinstance(v, int) and not isinstance(v, bool)}


def _owner(chunks: list[ConcreteChunk], c: ConcreteChunk) -> int:
    """The rank whose own (local) chunk holds the rows of ``c``."""
    for local in chunks:
        if local.is_local and local.tensor == c.tensor and local.lo <= c.lo and c.hi <= local.hi:
            return local.dst
    raise ValueError(f"rows [{c.lo}, {c.hi}) of chunk {c.id} of @{c.plan} belong to no rank's own chunk")


@dataclass
class LaunchInfo:
    """What one launch on one rank saw (for reports and tests)."""

    chunks: dict[str, list[ConcreteChunk]]
    graph: Any
    polls: int
    extra: dict[str, Any]


@dataclass
class SimWorld:
    world: int
    order: str = "plan"
    seed: int = 0
    flags: dict[int, torch.Tensor] = field(default_factory=dict)
    epochs: dict[int, int] = field(default_factory=dict)
    reduced: dict[tuple[str, int], torch.Tensor] = field(default_factory=dict)
    launches: dict[int, list[LaunchInfo]] = field(default_factory=dict)

    def rank(self, rank: int, sources: Mapping[str, torch.Tensor] | None = None) -> SimRank:
        return SimRank(self, rank, dict(sources or {}))

    def signal_pad(self, rank: int, size: int) -> torch.Tensor:
        pad = self.flags.get(rank)
        if pad is None or pad.numel() < size:
            grown = torch.zeros(max(size, 1), dtype=torch.int32)
            if pad is not None:
                grown[: pad.numel()] = pad
            self.flags[rank] = pad = grown
        return pad


@dataclass
class SimRank:
    sim: SimWorld
    rank: int
    sources: dict[str, torch.Tensor]

    def launch(self, program: FusedProgram, grid: tuple[int, ...], params: Mapping[str, Any],
               run: Callable[[dict[str, Any]], None]) -> None:
        abi = program.abi
        env = scalar_env(params)
        bases = {k: v.value.data for k, v in abi["flag_bases"].data.items()} if "flag_bases" in abi else {}
        plans = {p.sym_name.data: p for p in program.plans}
        chunks = {name: deps.concrete_chunks(p, env, bases.get(name, 0)) for name, p in plans.items()}
        total = max((c.flag + 1 for cs in chunks.values() for c in cs), default=1)
        flags = self.sim.signal_pad(self.rank, total)
        epoch = self.sim.epochs.get(self.rank, 0) + 1
        self.sim.epochs[self.rank] = epoch
        graph = deps.tile_chunk_graph(program.module, program.kernel, env, grid, self.rank, bases)
        counts = deps.signal_counts(graph)

        incoming: list[Incoming] = []
        outgoing: dict[int, Outgoing] = {}
        for name, plan in plans.items():
            consumed = plan.collective in CONSUMED
            for c in chunks[name]:
                target = params[c.param]
                if consumed and c.dst == self.rank:
                    incoming.append(self._incoming(c, target))
                elif not consumed and c.src == self.rank:
                    owner = _owner(chunks[name], c)
                    outgoing[c.flag] = Outgoing(c, counts.get((c.plan, c.id), 0), self._collector(c, owner, target))
            self._poison(plan, chunks[name], params, consumed, flags, epoch)
        incoming = [i for i in incoming if not i.chunk.is_local]

        extra: dict[str, Any] = {}
        if "flags" in abi:
            extra[abi["flags"].data] = flags
            extra[abi["epoch"].data] = epoch
        for entry in abi["tables"].data if "tables" in abi else ():
            e = {k: v.data for k, v in entry.data.items()}
            mine = [c for c in deps.rank_chunks(chunks[e["plan"]], self.rank, e["role"]) if c.tensor == e["tensor"]]
            table = torch.tensor([[c.lo, c.hi, c.flag] for c in mine] or [[0, 0, 0]], dtype=torch.int32)
            extra[e["param"]] = table
            extra[e["count"]] = len(mine)
        if "tile_order" in abi:
            order = deps.tile_order(graph, grid, abi["group"].value.data)
            extra[abi["tile_order"].data] = torch.tensor(order, dtype=torch.int32)
        if "rotate" in abi:
            extra[abi["rotate"].data] = self._rotation(graph, abi["axis"].value.data, grid)

        hook = DeliveryHook(flags, epoch, self.sim.order, self.sim.seed + self.rank, incoming, outgoing)
        with hook.installed():
            run(extra)
        hook.finish()
        self.sim.launches.setdefault(self.rank, []).append(LaunchInfo(chunks, graph, hook.polls, extra))

    def _incoming(self, c: ConcreteChunk, target: torch.Tensor) -> Incoming:
        source = self.sources.get(c.param)
        if source is None:
            raise KeyError(f"no source data for gathered parameter '{c.param}' on rank {self.rank}")

        def deliver() -> None:
            rows(target, c.dim, c.lo, c.hi).copy_(rows(source, c.dim, c.lo, c.hi))

        return Incoming(c, deliver)

    def _collector(self, c: ConcreteChunk, owner: int, partial: torch.Tensor) -> Callable[[], None]:
        """Add this rank's partial rows of ``c`` into their owner's result. (A
        ring plan forwards running sums hop by hop; what the fused kernel must
        get right is only when its partial is complete.)"""

        def collect() -> None:
            acc = self.sim.reduced.get((c.plan, owner))
            if acc is None:
                acc = self.sim.reduced[(c.plan, owner)] = torch.zeros_like(partial)
            rows(acc, c.dim, c.lo, c.hi).add_(rows(partial, c.dim, c.lo, c.hi))

        return collect

    def _poison(self, plan, chunks: list[ConcreteChunk], params: Mapping[str, Any], consumed: bool,
                flags: torch.Tensor, epoch: int) -> None:
        """Gathered tensors: NaN outside local chunks (which are present: their
        flags are set). Produced tensors: NaN everywhere before the kernel."""
        for tensor in plan.tensors:
            target = params[tensor.param.data]
            if not isinstance(target, torch.Tensor) or not target.is_floating_point():
                raise TypeError(f"parameter '{tensor.param.data}' must be a floating-point tensor")
            target.fill_(float("nan"))
            if consumed:
                source = self.sources[tensor.param.data]
                for c in chunks:
                    if c.is_local and c.dst == self.rank and c.tensor == tensor.tensor.data:
                        rows(target, c.dim, c.lo, c.hi).copy_(rows(source, c.dim, c.lo, c.hi))
                        flags[c.flag] = epoch

    def _rotation(self, graph, axis: int, grid: tuple[int, ...]) -> int:
        """First tile (along ``axis``) touching this rank's own chunk."""
        starts = [
            node[1][axis]
            for node in graph.nodes
            if node[0] == "tile"
            for nb in list(graph.predecessors(node)) + list(graph.successors(node))
            if graph.nodes[nb]["chunk"].is_local and graph.edges.get((nb, node), graph.edges.get((node, nb)))["exact"]
        ]
        return min(starts) if starts else 0

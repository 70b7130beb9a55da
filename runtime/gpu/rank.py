"""One rank's fused launches on the GPU World: the order in which a launch
issues its streams' work (docs/runtime-protocol.md, "A launch, stream by
stream"), and the launch tables it builds once per launch key.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from syncopate.dialects.chunk import PlanOp
from syncopate.ir import deps
from syncopate.ir.deps import ConcreteChunk
from syncopate.passes.chunk_dependency_analysis import CONSUMED
from syncopate.runtime.abi import LaunchPlan, SyncState, fused_reductions
from syncopate.runtime.fused import FusedProgram
from syncopate.runtime.gpu import ce, device, flags, gather_tokens, nccl, policies, reduce_scatter
from syncopate.runtime.gpu.errors import GpuWorldError
from syncopate.runtime.gpu.flags import FLAG_CAPACITY, LOCAL_FLAG
from syncopate.runtime.gpu.gather_tokens import GatherTokens, PeerReads, peer_reads

if TYPE_CHECKING:
    from syncopate.runtime.gpu.world import GpuWorld

LAUNCH_CACHE = 64  # launch tables kept (keyed by tensor addresses too)


@dataclass
class CachedLaunch:
    """What a launch key's first launch built: its evaluated plans, the ABI
    arguments, the produced chunks' tile counts, its pad, and who reads whose
    rows."""

    launch: LaunchPlan
    extra: dict[str, Any]
    counts: dict[tuple[str, int], int]
    sync: SyncState
    reads: PeerReads


@dataclass
class GpuRank:
    """The launch context of one rank (``GpuWorld.context``)."""

    world: GpuWorld
    sources: dict[str, torch.Tensor]  # all-to-all parameter -> this rank's symmetric send buffer
    last: LaunchPlan | None = None  # the latest launch's plans and chunks
    ce_lanes: int = 1  # streams the ce transfers are dealt over

    def launch(self, program: FusedProgram, grid: tuple[int, ...], params: Mapping[str, Any],
               run: Callable[..., None]) -> None:
        w = self.world
        config = config_key(program, grid, params)
        key = launch_key(config, program, params, self.sources)
        cached = w.launches.get(key)
        if cached is None:
            launch = LaunchPlan.build(program, params, grid, w.rank)
            self._check(program, launch, params, config)
        else:
            launch = cached.launch
        self.last = launch
        plans, chunks = launch.plans, launch.chunks
        sync = w.pad_for(config, launch.flag_count)
        sync.spin_limit = w.spin_limit
        compute = torch.cuda.current_stream(w.device)
        flags.count_launch(sync, w.device)
        if sync.spin_limit:
            sync.report.zero_()
        consumed = {n: p for n, p in plans.items() if p.collective in CONSUMED}
        produced = {n: p for n, p in plans.items() if p.collective not in CONSUMED}
        captured: list[int] = []  # flags raised inside CUDA-graph capture, cleared after the launch
        if cached is None:  # an eager launch: building the tables copies them to the device
            for name in consumed:  # local chunks are in place before every launch: raised once, for good
                for c in chunks[name]:
                    if c.dst == w.rank and c.is_local:
                        device.write_value(sync.flags, c.flag, LOCAL_FLAG)
            if produced and not torch.cuda.is_current_stream_capturing():
                for name in reduce_scatter.staged_plans(launch):  # allocated (collectively) before the kernel runs
                    reduce_scatter.ce_staging(w, launch, name, params, sync)
                w.warm_reduction(sync)
            extra = launch.arguments(program, sync, w.device, ce.peer_offset(w, self.sources, consumed, chunks),
                                     params, reduce_scatter.reduce_staging(w, launch, params, sync))
            if len(w.launches) >= LAUNCH_CACHE:
                w.launches.pop(next(iter(w.launches)))  # oldest first
            reads = peer_reads(plans, chunks, w.rank, frozenset(consumed))
            cached = w.launches[key] = CachedLaunch(launch, extra, deps.signal_counts(launch.graph), sync, reads)
        extra, counts, reads = dict(cached.extra), cached.counts, cached.reads
        tokens = GatherTokens(w.world, FLAG_CAPACITY)
        if "spin_limit" in program.abi:
            extra[program.abi["spin_limit"].data] = sync.spin_limit

        w.comm_stream.wait_stream(compute)  # this launch's own rows (and sends) are written
        with torch.cuda.stream(w.comm_stream):
            gather_tokens.announce(w, sync, tokens, reads.readers)
            awaited: set[int] = set()
            for name, plan in consumed.items():
                self._deliver(plan, chunks[name], params, sync, captured, tokens, awaited)
            self._release(sync, tokens, reads.released_after_copies)
        for owner in reads.released_after_kernel:  # the kernel's communication programs pull their rows
            device.await_token(sync, tokens.ready(owner))
        run(extra, launch.launch_grid(program, sync.comm_programs))
        with torch.cuda.stream(w.comm_stream):
            if produced:
                fused = fused_reductions(program)
                for name, plan in produced.items():
                    self._reduce(plan, chunks[name], params, sync, counts, name in fused)
            if reads.released_after_kernel:
                w.comm_stream.wait_stream(compute)
                self._release(sync, tokens, reads.released_after_kernel)
            gather_tokens.await_releases(sync, tokens, reads.readers)
        compute.wait_stream(w.comm_stream)
        flags.clear_flags(sync.flags, captured)
        if sync.spin_limit and not torch.cuda.is_current_stream_capturing():  # a graph's replays report nothing
            torch.cuda.synchronize(w.device)
            message = sync.timeout(launch, w.rank, token_words(launch, w.rank, w.world))
            if message:
                raise GpuWorldError(message)

    def _check(self, program: FusedProgram, launch: LaunchPlan, params: Mapping[str, Any], config: tuple) -> None:
        """Refuse a launch the GPU World cannot run safely; warn once per
        configuration about one that may starve NCCL."""
        w = self.world
        policies.check_world(launch, w.world)
        for name, plan in launch.plans.items():
            for tensor in plan.tensors:
                policies.check_tensor(params.get(tensor.param.data), tensor.param.data)
            policies.check_backends(plan, launch.chunks[name])
        risk = policies.nccl_starvation_risk(launch, policies.first_tile(launch, program), w.rank) \
            if any(c.backend == "nccl" for cs in launch.chunks.values() for c in cs) else None
        sms = torch.cuda.get_device_properties(w.device).multi_processor_count
        reason = policies.refusal(program, launch, risk, sms, self.ce_lanes)
        if reason:
            raise GpuWorldError(reason)
        if risk and config not in w.warned:
            w.warned.add(config)
            warnings.warn(risk, RuntimeWarning, stacklevel=4)

    def _deliver(self, plan: PlanOp, chunks: list[ConcreteChunk], params: Mapping[str, Any], sync: SyncState,
                 captured: list[int], tokens: GatherTokens, awaited: set[int]) -> None:
        """On the communication stream: the ce and nccl transfers of one consumed plan."""
        ce.deliver(self.world, self.sources, self.ce_lanes, plan, chunks, params, sync, captured, tokens, awaited)
        if any(c.backend == "nccl" for c in chunks):
            nccl.deliver(self.world, plan, chunks, params, self.sources)
            for c in ce.incoming(self.world.rank, self.world.lost, chunks, "nccl"):
                flags.raise_flag(sync.flags, c.flag, sync, captured)

    def _release(self, sync: SyncState, tokens: GatherTokens, owners: tuple[int, ...]) -> None:
        """After the last read of each of ``owners``' rows (runtime/gpu/gather_tokens.py)."""
        gather_tokens.release(self.world, sync, tokens, owners)

    def _reduce(self, plan: PlanOp, chunks: list[ConcreteChunk], params: Mapping[str, Any], sync: SyncState,
                counts: Mapping[tuple[str, int], int], fused: bool = False) -> None:
        """On the communication stream: one produced plan (runtime/gpu/reduce_scatter.py)."""
        reduce_scatter.reduce(self.world, self.ce_lanes, plan, chunks, params, sync, counts, fused)


def token_words(launch: LaunchPlan, rank: int, world: int) -> dict[int, tuple[str, int]]:
    """Pad word -> (what it is, the value a wait expects) for every token of
    ``launch`` (gather readiness and release, staging tokens), so a spin
    report names what a rank waited for."""
    return {**GatherTokens(world, FLAG_CAPACITY).describe(rank),
            **reduce_scatter.staging_token_words(launch, rank, world)}


def config_key(program: FusedProgram, grid: tuple[int, ...], params: Mapping[str, Any]) -> tuple:
    """Launches with equal configuration keys (program, grid, scalar
    arguments) have the same tiles, so they share a signal pad and epoch."""
    scalars = tuple((k, v if isinstance(v, (int, float, bool, str, type(None))) else id(v))
                    for k, v in params.items() if not isinstance(v, torch.Tensor))
    return (id(program), grid, scalars)


def launch_key(config: tuple, program: FusedProgram, params: Mapping[str, Any],
               sources: Mapping[str, torch.Tensor]) -> tuple:
    """Launches with equal keys (the configuration plus the addresses and
    layouts of the tensors the plans move) share their plan evaluation and
    ABI tables: built once, so there is no host work or host-to-device copy
    per launch, and a launch can be captured in a CUDA graph after one warm-up."""

    def describe(t: torch.Tensor) -> tuple:
        return (t.data_ptr(), tuple(t.shape), tuple(t.stride()), t.dtype)

    moved = {t.param.data for plan in program.plans for t in plan.tensors}  # other tensors do not shape the tables
    return (config, tuple((k, describe(v)) for k, v in params.items() if k in moved and isinstance(v, torch.Tensor)),
            tuple((k, describe(v)) for k, v in sources.items()))

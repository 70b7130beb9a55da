"""Readiness and reuse of consumed plans (runtime/gpu/gather_tokens.py) on the
GPU World's real launch path, with every device call recorded (no GPU) and
then executed by a model of the streams of all ranks under random
interleavings.

Each rank issues ``LAUNCHES`` launches back to back, as a model does: before
each one its compute stream writes the rank's fresh rows (``own``), and the
host never waits. The model runs every stream of every rank, one recorded
operation at a time, in a random order that respects stream order, joins
(``wait_stream``) and flag waits, and checks the two rules the protocol must
keep:

* every read of an owner's rows (a ce copy, or the sm kernel's pull) sees
  the owner's rows of the same launch: not the previous launch's (read
  before the owner wrote) and not the next one's (overwritten too early);
* every stream finishes (no deadlock);
* with ``sms_full`` (a fused grid that can hold every SM, as attention's
  does), the kernel starts only after the rank's ready-token waits of the
  launch ran: those waits are one-program kernels, and tiles spinning on
  every SM would never let them start.

* every tile's read of a chunk that a ce copy delivers sees the copy of
  this launch: the tile waits until the chunk's flag reaches the launch's
  epoch (``await``; the epoch word is written or, in a graph, incremented on
  the compute stream), so a flag raised before its copy ended, or on
  another stream than the copy's, or never cleared after a captured launch,
  lets a tile read old rows;

Each rule is also sabotaged (an operation replaced by a no-op, so the
recorded joins keep their positions), and the model must then find a
violation.

With ``graphs``, the ranks replay their steady-state launches from CUDA
graphs (runtime/gpu/replay.py), as eager launches on GPUs do: a capture
records what the launch queues without running it, and a replay queues
the captured operations again on the same streams, its joins pointing at
the same places in the replay's own operations. The same rules must hold."""

from __future__ import annotations

import contextlib
import functools
import random
import types
from pathlib import Path

import pytest
import torch

from syncopate.ir.analysis import deps
from syncopate.runtime import gpu as gpu_world
from syncopate.runtime.abi import SyncState
from syncopate.runtime.harness.check import compile_workload
from syncopate.runtime.fused import FusedKernel
from syncopate.runtime.gpu import device, policies
from syncopate.runtime.gpu import rank as gpu_rank
from syncopate.runtime.gpu.gather_tokens import GatherTokens, peer_reads
from syncopate.runtime.rows import rows
from syncopate.runtime.harness.workload import load_workload

EXAMPLES = Path(__file__).resolve().parents[4] / "examples"
LAUNCHES = 3
SCHEDULES = 25


class Stream:
    """A recorded stream: its operations and how many have run."""

    def __init__(self, rank: int, name: str):
        self.rank, self.name, self.ops, self.pc = rank, name, [], 0

    def wait_stream(self, other: Stream) -> None:
        self.ops.append(("join", other, len(other.ops)))

    @staticmethod
    def priority_range() -> tuple[int, int]:
        return (0, -1)


@functools.lru_cache(maxsize=None)
def _program(example: str, world: int, backend: str, plans: tuple[str, ...] | None):
    workload = load_workload(str(EXAMPLES / example))
    return workload, compile_workload(workload, world, f"overlap{{backend={backend}}}", list(plans) if plans else None)


class Rank:
    """One rank's recorded launches."""

    def __init__(self, rank: int, world: int, pads: dict[int, torch.Tensor], bufs: dict[int, torch.Tensor]):
        self.rank, self.world = rank, world
        self.compute, self.comm = Stream(rank, "compute"), Stream(rank, "comm")
        self.current = self.compute
        self.streams = [self.compute, self.comm]
        self.launch_no = -1
        self.pads, self.bufs = pads, bufs
        self.replays = 0


def _record(monkeypatch, example: str, world: int, backend: str, lanes: int = 1,
            plans: tuple[str, ...] | None = None, sms: int = 132, graphs: bool = False,
            launches: int = LAUNCHES) -> list[Rank]:
    workload, program = _program(example, world, backend, plans)
    pads = {r: torch.zeros(gpu_world.FLAG_CAPACITY, dtype=torch.int32) for r in range(world)}
    inputs = [workload.make_inputs(r, world, 3) for r in range(world)]
    full = torch.cat([i["a"] for i in inputs]).contiguous()
    bufs = {r: full.clone() for r in range(world)}
    pad_owner = {pads[r].data_ptr(): r for r in pads}
    ranks: list[Rank] = []

    def owner_of(t: torch.Tensor) -> int:
        for r, b in bufs.items():
            lo = b.data_ptr()
            if lo <= t.data_ptr() < lo + b.numel() * b.element_size():
                return r
        raise AssertionError("a read of memory that is no rank's buffer")

    def op(*what) -> None:
        ranks[-1].current.ops.append((*what, ranks[-1].launch_no))

    def new_stream(*_args, **_kwargs) -> Stream:
        s = Stream(ranks[-1].rank, f"lane{len(ranks[-1].streams)}")
        ranks[-1].streams.append(s)
        return s

    new_stream.priority_range = Stream.priority_range

    @contextlib.contextmanager
    def on(stream):
        saved, ranks[-1].current = ranks[-1].current, stream
        try:
            yield
        finally:
            ranks[-1].current = saved

    monkeypatch.setattr(torch.cuda, "Stream", new_stream)
    monkeypatch.setattr(torch.cuda, "stream", on)
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: ranks[-1].current)
    capturing = [False]

    def capture(issue):
        """What ``issue`` queues, per stream, taken off the streams again
        (a capture runs nothing); joins as offsets into the capture."""
        rank = ranks[-1]
        marks = {id(s): len(s.ops) for s in rank.streams}
        capturing[0] = True
        try:
            issue()
        finally:
            capturing[0] = False
        graph = []
        for s in rank.streams:
            mark = marks.get(id(s), 0)
            ops, s.ops = s.ops[mark:], s.ops[:mark]
            graph.append((s, [("join", o[1], o[2] - marks.get(id(o[1]), 0)) if o[0] == "join" else o[:-1]
                              for o in ops]))
        return graph

    def replay(graph):
        rank = ranks[-1]
        rank.replays += 1
        base = {id(s): len(s.ops) for s, _ in graph}
        for s, ops in graph:
            s.ops += [("join", o[1], base[id(o[1])] + max(o[2], 0)) if o[0] == "join" else (*o, rank.launch_no)
                      for o in ops]

    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: capturing[0])
    monkeypatch.setattr(device, "capture", capture)
    monkeypatch.setattr(device, "replay", replay)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: None)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda d: types.SimpleNamespace(multi_processor_count=sms))
    monkeypatch.setattr(policies, "check_tensor", lambda t, name: None)
    monkeypatch.setattr(device, "write_value", lambda flags, index, value: op(
        "write", pad_owner[flags.data_ptr()], index, value))
    monkeypatch.setattr(device, "wait_flag", lambda flags, index, count, *a, least=0: op(
        "wait", pad_owner[flags.data_ptr()], index, least))
    monkeypatch.setattr(device, "copy", lambda dst, src: op("read", owner_of(src), (
        dst.data_ptr(), dst.data_ptr() + dst.numel() * dst.element_size())))
    monkeypatch.setattr(device, "set_epoch", lambda epoch, value: op("epoch", value))
    monkeypatch.setattr(device, "add_epoch", lambda epoch: op("epoch+1",))
    monkeypatch.setattr(device, "zero_words", lambda flags, words: op(
        "zero", pad_owner[flags.data_ptr()], tuple(words.tolist())))
    monkeypatch.setattr(device, "fill_words", lambda flags, words, value: op(
        "fill", pad_owner[flags.data_ptr()], tuple(words.tolist()), value))

    for r in range(world):
        rank = Rank(r, world, pads, bufs)
        ranks.append(rank)
        w = gpu_world.GpuWorld(rank=r, world=world, device=torch.device("cpu"), group=None,
                               comm_stream=rank.comm, ce_lanes=lanes, eager_graphs=graphs)
        monkeypatch.setattr(w, "new_sync_state", lambda size: SyncState(
            pads[ranks[-1].rank], torch.zeros(1, dtype=torch.int32), torch.zeros(4, dtype=torch.int32)))
        monkeypatch.setattr(w, "peer_view", lambda buf, peer, what="tensor": (
            pads[peer] if what == "signal pad" else bufs[peer]))
        context = w.context()

        class Recorder:
            def launch(self, program, grid, params, run, options=None, rank=r):
                def kernel(extra, launch_grid=None):
                    launch = context.last
                    pulled = sorted({deps.owner(launch.chunks[c.plan], c) for c in launch.sm_chunks()})
                    op("kernel", tuple(pulled))  # its start (and the sm programs' pulls)
                    for name in program.launch_facts.consumed:  # tiles wait for their chunks, then read them
                        for c in launch.chunks[name]:
                            if c.dst == rank and (c.is_local or c.backend == "ce"):
                                op("await", rank, c.flag)
                                if not c.is_local:
                                    op("consume", rows(params[c.param], c.dim, c.lo, c.hi).data_ptr())

                context.launch(program, grid, params, kernel, options)

        fused = FusedKernel(program, workload.kernel, Recorder())
        for n in range(launches):
            rank.launch_no = n
            op("own", r)  # this launch's fresh rows, on the compute stream, just before the launch
            workload.launch(fused, bufs[r], inputs[r]["b"])
    return ranks


def _execute(ranks: list[Rank], rng: random.Random, sms_full: bool = False) -> list[str]:
    """Run every recorded stream in a random legal order; the rule violations found."""
    for rank in ranks:
        for s in rank.streams:
            s.pc = 0
    memory = {rank.rank: {} for rank in ranks}
    version = {rank.rank: -1 for rank in ranks}
    copied: list[tuple[int, int, int, int]] = []  # (rank, first byte, end, the launch whose rows a ce copy wrote)

    def copy_of(rank: int, address: int) -> int | None:
        """The launch whose rows the latest copy over ``address`` on ``rank`` wrote (None: never copied)."""
        return next((v for r, lo, hi, v in reversed(copied) if r == rank and lo <= address < hi), None)

    problems: list[str] = []
    streams = [s for rank in ranks for s in rank.streams]

    def runnable(s: Stream) -> bool:
        if s.pc >= len(s.ops):
            return False
        op = s.ops[s.pc]
        if op[0] == "join":
            return op[1].pc >= op[2]
        if op[0] == "wait":
            return memory[op[1]].get(op[2], 0) >= op[3]
        if op[0] == "await":
            return memory[op[1]].get(op[2], 0) >= memory[op[1]].get("epoch", 0)
        return True

    def read(s: Stream, owner: int, launch: int) -> None:
        if version[owner] != launch:
            problems.append(f"rank {s.rank} launch {launch} read rank {owner}'s rows of launch {version[owner]}")

    # each stream runs at its own speed (log-uniform over three decades): slow ranks and slow lanes
    speed = {id(s): 10 ** rng.uniform(-3, 0) for s in streams}
    while True:
        ready = [s for s in streams if runnable(s)]
        if not ready:
            break
        s = rng.choices(ready, weights=[speed[id(s)] for s in ready])[0]
        op = s.ops[s.pc]
        s.pc += 1
        if op[0] == "write":
            memory[op[1]][op[2]] = op[3]
        elif op[0] == "own":
            version[op[1]] = op[2]
        elif op[0] == "read":
            read(s, op[1], op[3])
            copied.append((s.rank, *op[2], version[op[1]]))
        elif op[0] == "epoch":
            memory[s.rank]["epoch"] = op[1]
        elif op[0] == "epoch+1":
            memory[s.rank]["epoch"] = memory[s.rank].get("epoch", 0) + 1
        elif op[0] == "zero":
            for word in op[2]:
                memory[op[1]][word] = 0
        elif op[0] == "fill":
            for word in op[2]:
                memory[op[1]][word] = op[3]
        elif op[0] == "consume":
            if copy_of(s.rank, op[1]) != op[2]:
                problems.append(f"rank {s.rank} launch {op[2]}: a tile read a chunk's copy of launch "
                                f"{copy_of(s.rank, op[1])} (its flag was up before this launch's copy ended)")
        elif op[0] == "kernel":
            for owner in op[1]:
                read(s, owner, op[2])
            if sms_full:
                problems += _ready_waits_pending(ranks[s.rank], op[2])
    stuck = [f"rank {s.rank} {s.name} at {s.ops[s.pc][:4]}" for s in streams if s.pc < len(s.ops)]
    return problems + [f"deadlock: {', '.join(stuck)}"] if stuck else problems


def _ready_waits_pending(rank: Rank, launch: int) -> list[str]:
    """The rank's ready-token waits of ``launch`` that have not run yet."""
    ready = {GatherTokens(rank.world, gpu_world.FLAG_CAPACITY).ready(o) for o in range(rank.world)}
    return [f"rank {rank.rank} launch {launch}: the kernel started before its ready-token wait on {s.name} ran "
            "(a grid that fills every SM starves that wait)"
            for s in rank.streams for i, op in enumerate(s.ops[s.pc:], s.pc)
            if op[0] == "wait" and op[1] == rank.rank and op[2] in ready and op[-1] == launch]


def _violations(ranks: list[Rank], schedules: int = SCHEDULES, sms_full: bool = False) -> list[str]:
    found: list[str] = []
    for seed in range(schedules):
        found += _execute(ranks, random.Random(seed), sms_full)
    return found


CASES = [
    ("ag_gemm.py", 2, "ce", 1, None),
    ("ag_gemm.py", 3, "ce", 1, None),
    ("ag_gemm.py", 3, "ce", 3, ("all-gather{tensor=a_ptr dim=0 chunks_per_rank=2}",)),
    ("ag_gemm.py", 3, "ce", 1, ("all-gather{tensor=a_ptr dim=0 chunks_per_rank=2}",)),  # a peer's 2 chunks joined
    ("ag_gemm.py", 2, "sm", 1, None),
    ("ag_gemm.py", 3, "sm", 1, None),
]
IDS = [f"{b}-w{w}-lanes{lanes}" + ("-2chunks" if p else "") for _, w, b, lanes, p in CASES]


@pytest.mark.parametrize("example, world, backend, lanes, plans", CASES, ids=IDS)
def test_back_to_back_launches_read_each_launchs_rows(monkeypatch, example, world, backend, lanes, plans):
    ranks = _record(monkeypatch, example, world, backend, lanes, plans)
    reads = sum(op[0] == "read" or (op[0] == "kernel" and bool(op[1])) for r in ranks for s in r.streams for op in s.ops)
    assert reads >= world * LAUNCHES  # the model saw the reads it checks
    assert _violations(ranks) == []


@pytest.mark.parametrize("example, world, backend, lanes, plans", CASES, ids=IDS)
def test_launches_replayed_from_graphs_read_each_launchs_rows(monkeypatch, example, world, backend, lanes, plans):
    """Launch 0 eager, launch 1 captured and replayed, launches 2 and 3
    replayed. The workload allocates its output per launch, wherever the
    allocator puts it; the model's kernel never reads it, so the replay key
    leaves it out here, making every steady-state launch a replay."""
    keys = gpu_rank.launch_keys
    monkeypatch.setattr(gpu_rank, "launch_keys", lambda *a: (*keys(*a)[:2], ()))
    ranks = _record(monkeypatch, example, world, backend, lanes, plans, graphs=True, launches=4)
    kernels = [op for r in ranks for op in r.compute.ops if op[0] == "kernel"]
    assert sorted(op[-1] for op in kernels) == sorted(list(range(4)) * world)  # every launch ran its kernel once
    assert [r.replays for r in ranks] == [3] * world
    assert _violations(ranks) == []


@pytest.mark.parametrize("backend", ["ce", "sm"])
def test_replayed_launches_without_the_release_wait_overwrite_rows_a_peer_reads(monkeypatch, backend):
    """The graph replays what the launch queued: a launch that leaves out a
    protocol step leaves it out of every replay, and the model sees it."""
    monkeypatch.setattr(gpu_rank.gather_tokens, "await_releases", lambda *a: None)
    ranks = _record(monkeypatch, "ag_gemm.py", 2, backend, graphs=True, launches=4)
    assert any("of launch" in v for v in _violations(ranks))


@pytest.mark.parametrize("backend", ["ce", "sm"])
def test_without_the_ready_wait_a_reader_sees_the_previous_launch(monkeypatch, backend):
    ranks = _record(monkeypatch, "ag_gemm.py", 2, backend)
    tokens = GatherTokens(2, gpu_world.FLAG_CAPACITY)
    ready = {tokens.ready(o) for o in range(2)}
    for r in ranks:
        for s in r.streams:
            s.ops = [("skip",) if op[0] == "wait" and op[2] in ready else op for op in s.ops]
    assert any("of launch" in v for v in _violations(ranks))


@pytest.mark.parametrize("backend", ["ce", "sm"])
def test_without_the_release_wait_an_owner_overwrites_rows_a_peer_reads(monkeypatch, backend):
    ranks = _record(monkeypatch, "ag_gemm.py", 2, backend)
    tokens = GatherTokens(2, gpu_world.FLAG_CAPACITY)
    released = {tokens.released(o) for o in range(2)}
    for r in ranks:
        for s in r.streams:
            s.ops = [("skip",) if op[0] == "wait" and op[2] in released else op for op in s.ops]
    assert any("read rank" in v for v in _violations(ranks))


def test_resetting_ready_after_the_release_loses_the_next_launchs_token(monkeypatch):
    """The reader must reset an owner's ready token before it releases the
    owner: reversed, the owner's next ready can land before the reset."""

    def release_then_reset(self, sync, tokens, owners):
        for owner in owners:
            device.write_value(self.world.peer_view(sync.flags, owner, "signal pad"),
                                   tokens.released(self.world.rank), 1)
        for owner in owners:
            device.write_value(sync.flags, tokens.ready(owner), 0)

    monkeypatch.setattr(gpu_world.GpuRank, "_release", release_then_reset)
    ranks = _record(monkeypatch, "ag_gemm.py", 2, "ce")
    assert any("deadlock" in v or "of launch" in v for v in _violations(ranks, 200))


def test_without_the_compute_join_the_ready_token_precedes_the_rows(monkeypatch):
    """The ready token is written on the communication stream after it
    joined the compute stream (where the caller wrote the rows)."""
    ranks = _record(monkeypatch, "ag_gemm.py", 2, "ce")
    for r in ranks:
        joins = [i for i, op in enumerate(r.comm.ops) if op[0] == "join" and op[1] is r.compute]
        r.comm.ops[joins[0]] = ("skip",)  # the first launch's join: its ready token no longer waits for its rows
        # later joins still order later launches; only launch 0 may be read early
    assert any("launch 0 read" in v and "of launch -1" in v for v in _violations(ranks))


def test_nccl_chunks_take_no_tokens():
    """nccl transfers are collectives (self-synchronising): no token words."""
    from syncopate.runtime.abi import LaunchPlan

    workload, program = _program("ag_gemm.py", 2, "nccl", None)
    inputs = [workload.make_inputs(r, 2, 3) for r in range(2)]
    seen = []

    class Capture:
        def launch(self, program, grid, params, run, options=None):
            seen.append((grid, params))

    workload.launch(FusedKernel(program, workload.kernel, Capture()), torch.cat([i["a"] for i in inputs]),
                    inputs[0]["b"])
    grid, params = seen[0]
    launch = LaunchPlan.build(program, params, grid, 0)
    assert any(c.backend == "nccl" and not c.is_local for cs in launch.chunks.values() for c in cs)
    consumed = {n for n, p in launch.plans.items() if p.collective == "all-gather"}
    reads = peer_reads(launch.plans, launch.chunks, 0, consumed)
    assert reads.readers == () and dict(reads.owners) == {}


def test_token_words_sit_above_the_reduce_scatter_layout():
    """The tokens take the pad's top 2W words; the staging layout must end below them."""
    for world in (2, 4, 8):
        tokens = GatherTokens(world, gpu_world.FLAG_CAPACITY)
        words = {tokens.ready(o) for o in range(world)} | {tokens.released(o) for o in range(world)}
        assert len(words) == 2 * world and max(words) == gpu_world.FLAG_CAPACITY - 1
        assert min(words) >= gpu_world.FLAG_CAPACITY // 2


@pytest.mark.parametrize("world, lanes", [(2, 1), (3, 2)])
def test_a_grid_that_fills_every_sm_starts_after_the_ready_waits(monkeypatch, world, lanes):
    """ce: a kernel of at least as many programs as SMs (here one SM) waits
    for the ready tokens before it starts, and stays correct back to back."""
    ranks = _record(monkeypatch, "ag_gemm.py", world, "ce", lanes, sms=1)
    assert _violations(ranks, sms_full=True) == []


def test_without_the_early_ready_wait_a_full_grid_starves_it(monkeypatch):
    """The same launch with the ready waits left to the copies (as a grid
    smaller than the GPU has them): the model finds the starved wait."""
    monkeypatch.setattr(gpu_rank, "ready_before_kernel", lambda reads, grid, sms: ())
    ranks = _record(monkeypatch, "ag_gemm.py", 2, "ce", sms=1)
    assert any("starves that wait" in v for v in _violations(ranks, sms_full=True))

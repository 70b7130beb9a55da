"""Bounded symmetric memory of the GPU World (runtime/gpu/memory.py), on the
real launch path with a simulated device (no GPU).

Two ranks, each a thread running its host code, launch a ce GEMM +
reduce-scatter back to back over 50 distinct M values, as a server with
variable token counts does. Every device operation is recorded on its
stream as a closure and run later, in a random order that respects stream
order, joins and flag waits. ``torch.cuda.synchronize`` on a rank runs
recorded operations until that rank's streams are done. Barriers are real
barriers of the threads. Symmetric allocations pair up across ranks in
allocation order, as ``rendezvous`` does.

The test checks three things:

* the symmetric memory alive on each rank after every launch stays under
  the stated cap: ``max_pads`` pads plus ``staging_bytes`` of staging. It
  is counted from the tensors still alive, so a reference that outlives a
  free fails it;
* every launch's reduce-scatter result is right, with one signal pad
  shared by all 50 configurations and staging buffers shared by
  configurations and freed along the way;
* a configuration captured in a CUDA graph keeps its pad and staging.
"""

from __future__ import annotations

import contextlib
import functools
import random
import threading
import time
import types
import weakref
from pathlib import Path

import pytest
import torch

from syncopate.ir.analysis import deps
from syncopate.runtime.harness.check import compile_workload
from syncopate.runtime.fused import FusedKernel
from syncopate.runtime.gpu import device, memory, policies
from syncopate.runtime.gpu.world import GpuWorld
from syncopate.runtime.harness.workload import load_workload, shard_bounds

EXAMPLES = Path(__file__).resolve().parents[4] / "examples"
WORLD = 2
K_LOCAL, N = 8, 12
MAX_PADS = 4
STAGING_BYTES = 2 * (WORLD * 256 * N * 4)  # two fp32 staging buffers of the largest bucket (256 rows)
CAP = MAX_PADS * memory.PAD_BYTES + STAGING_BYTES  # the stated cap per rank
MS = [16 + 5 * i for i in range(50)]  # 50 distinct M: staging slots of 8 to 131 rows (buckets 8 to 256)
PATIENCE_S = 20  # a synchronize that makes no progress this long is a deadlock


class Stream:
    def __init__(self, rank: int, name: str):
        self.rank, self.name, self.ops, self.pc = rank, name, [], 0

    def wait_stream(self, other: Stream) -> None:
        self.ops.append(("join", other, len(other.ops)))

    @staticmethod
    def priority_range() -> tuple[int, int]:
        return (0, -1)


class Device:
    """The streams of every rank, run in a random legal order."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.lock = threading.RLock()
        self.streams: list[Stream] = []
        self.local = threading.local()  # the thread's rank and current stream

    def stream(self, rank: int, name: str) -> Stream:
        with self.lock:
            s = Stream(rank, name)
            self.streams.append(s)
            return s

    @property
    def current(self) -> Stream:
        return self.local.stream

    def record(self, op: tuple) -> None:
        with self.lock:
            self.current.ops.append(op)

    def synchronize(self, rank: int | None = None) -> None:
        """Run recorded operations of any rank until every stream of
        ``rank`` (None: of every rank) has finished; wait for the other
        ranks' threads while they are needed."""
        def runnable(s: Stream) -> bool:
            if s.pc >= len(s.ops):
                return False
            op = s.ops[s.pc]
            if op[0] == "join":
                return op[1].pc >= op[2]
            return op[0] != "wait" or op[1]()

        last = time.monotonic()
        while True:
            with self.lock:
                mine = [s for s in self.streams if rank in (None, s.rank)]
                if all(s.pc >= len(s.ops) for s in mine):
                    return
                ready = [s for s in self.streams if runnable(s)]
                for _ in range(len(ready)):
                    s = self.rng.choice(ready)
                    if runnable(s):
                        op, s.ops[s.pc] = s.ops[s.pc], ("ran",)  # a run operation keeps no tensor alive
                        s.pc += 1
                        if op[0] == "do":
                            op[1]()
                        last = time.monotonic()
                stuck = [f"rank {s.rank} {s.name} at {s.ops[s.pc][::2]}" for s in mine if s.pc < len(s.ops)]
            assert time.monotonic() - last < PATIENCE_S, f"deadlock: {stuck}"
            if not ready:
                time.sleep(0.001)  # another rank's host has yet to queue what these streams wait for


class Allocations:
    """Symmetric allocations of all ranks, paired by allocation order."""

    def __init__(self):
        self.lock = threading.Lock()
        self.pending: list[dict[int, torch.Tensor]] = []  # n -> rank -> tensor not yet claimed
        self.claimed: list[dict[int, weakref.ref]] = []
        self.count = {r: 0 for r in range(WORLD)}
        self.live: dict[int, dict[int, int]] = {r: {} for r in range(WORLD)}  # rank -> id -> bytes alive

    def allocate(self, rank: int, shape: tuple, dtype: torch.dtype) -> tuple[torch.Tensor, int]:
        with self.lock:
            n = self.count[rank]
            self.count[rank] += 1
            if n == len(self.pending):
                fill = float("nan") if dtype.is_floating_point else 0
                self.pending.append({r: torch.full(shape, fill, dtype=dtype) for r in range(WORLD)})
                self.claimed.append({})
            buf = self.pending[n].pop(rank)
            assert tuple(buf.shape) == tuple(shape), "ranks allocated different symmetric buffers at one step"
            self.claimed[n][rank] = weakref.ref(buf)
            self.live[rank][id(buf)] = buf.numel() * buf.element_size()
            weakref.finalize(buf, self.live[rank].pop, id(buf), None)
            return buf, n

    def peer(self, n: int, peer: int) -> torch.Tensor:
        with self.lock:
            buf = self.pending[n].get(peer)
            if buf is None:
                buf = self.claimed[n][peer]()
                assert buf is not None, f"a peer view of allocation {n} after rank {peer} freed it"
            return buf


@functools.lru_cache(maxsize=None)
def _program():
    workload = load_workload(str(EXAMPLES / "gemm_rs.py"))
    return workload, compile_workload(workload, WORLD, "overlap{backend=ce}")


def _simulate(monkeypatch, dev: Device) -> None:
    """Route torch.cuda's stream calls and the runtime's device operations to ``dev``."""

    @contextlib.contextmanager
    def on(stream):
        saved, dev.local.stream = dev.local.stream, stream
        try:
            yield
        finally:
            dev.local.stream = saved

    def new_stream(*_a, **_k) -> Stream:
        return dev.stream(dev.local.rank, "lane")

    new_stream.priority_range = Stream.priority_range
    monkeypatch.setattr(torch.cuda, "Stream", new_stream)
    monkeypatch.setattr(torch.cuda, "stream", on)
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: dev.current)
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: False)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: dev.synchronize(dev.local.rank))
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda d: types.SimpleNamespace(multi_processor_count=132))
    monkeypatch.setattr(policies, "check_tensor", lambda t, name: None)

    def write_value(flags, index, value):
        dev.record(("do", lambda: flags.__setitem__(index, value)))

    def write_epoch(flags, index, epoch):  # the epoch word as the stream finds it
        dev.record(("do", lambda: flags.__setitem__(index, int(epoch))))

    def wait_flag(flags, index, count, epoch, *_a, least=0):
        dev.record(("wait", lambda: int(flags[index]) >= max(int(epoch) * count, least), f"pad word {index}"))

    monkeypatch.setattr(device, "write_value", write_value)
    monkeypatch.setattr(device, "write_epoch", write_epoch)
    monkeypatch.setattr(device, "set_epoch", lambda epoch, value: dev.record(("do", lambda: epoch.fill_(value))))
    monkeypatch.setattr(device, "add_epoch", lambda epoch: dev.record(("do", lambda: epoch.add_(1))))
    monkeypatch.setattr(device, "zero_words", lambda flags, words: dev.record(("do", lambda: flags.index_fill_(0, words, 0))))
    monkeypatch.setattr(device, "wait_flag", wait_flag)
    monkeypatch.setattr(device, "copy", lambda dst, src: dev.record(("do", lambda: dst.copy_(src))))
    monkeypatch.setattr(device, "accumulate", lambda dst, src: dev.record(("do", lambda: dst.add_(src))))


def _world(monkeypatch, dev: Device, allocations: Allocations, barrier: threading.Barrier, rank: int,
           max_pads: int, staging_bytes: int) -> GpuWorld:
    class Handle:
        def __init__(self, n: int):
            self.n = n

        def get_buffer(self, peer, shape, dtype):
            return allocations.peer(self.n, peer)

    w = GpuWorld(rank=rank, world=WORLD, device=torch.device("cpu"), group=None,
                 comm_stream=dev.stream(rank, "comm"), max_pads=max_pads, staging_bytes=staging_bytes)

    def symmetric(source):
        buf, n = allocations.allocate(rank, tuple(source.shape), source.dtype)
        w.handles[buf.data_ptr()] = (Handle(n), tuple(buf.shape))
        for key in [k for k in w.peer_views if k[0] == buf.data_ptr()]:  # as GpuWorld.symmetric does
            del w.peer_views[key]
        return buf

    monkeypatch.setattr(w, "symmetric", symmetric)
    monkeypatch.setattr(w, "barrier", lambda: barrier.wait(timeout=PATIENCE_S))
    return w


def _kernel(dev: Device, program, context, a, b, out):
    """``run`` for GpuRank.launch: the fused kernel's effect, recorded on the
    compute stream: the partial product, then each produced chunk's flag
    raised by its tiles, in the pad the launch passed."""

    def run(extra, launch_grid=None):
        launch = context.last
        counts = deps.signal_counts(launch.graph)
        flags = extra[program.abi["flags"].data]

        def body():
            out.copy_(a @ b)
            for cs in launch.chunks.values():
                for c in cs:
                    if c.src == launch.rank:
                        flags[c.flag] += counts.get((c.plan, c.id), 0)

        dev.record(("do", body))

    return run


def _run(monkeypatch, seed: int, capture_first: bool = False, max_pads: int = MAX_PADS,
         staging_bytes: int = STAGING_BYTES):
    """The 50-shape loop on both ranks: (worlds, allocations, results, the
    peak symmetric bytes alive per rank, the pad captured per rank)."""
    dev, allocations = Device(seed), Allocations()
    workload, program = _program()
    _simulate(monkeypatch, dev)
    collective, step = threading.Barrier(WORLD), threading.Barrier(WORLD)
    g = torch.Generator().manual_seed(seed)
    inputs = [[(torch.randn(m, K_LOCAL, generator=g), torch.randn(K_LOCAL, N, generator=g)) for _ in range(WORLD)]
              for m in MS]
    outs = {r: [] for r in range(WORLD)}
    peaks, pinned, worlds, errors = {r: 0 for r in range(WORLD)}, {}, {}, []

    def rank_main(r: int) -> None:
        try:
            dev.local.rank = r
            dev.local.stream = dev.stream(r, "compute")
            w = worlds[r] = _world(monkeypatch, dev, allocations, collective, r, max_pads, staging_bytes)
            for i in range(len(MS)):
                context = w.context()
                a, b = inputs[i][r]

                class Recorder:
                    def launch(self, program, grid, params, run, options=None, context=context, a=a, b=b):
                        context.launch(program, grid, params, _kernel(dev, program, context, a, b, params["c_ptr"]))

                outs[r].append(workload.launch(FusedKernel(program, workload.kernel, Recorder()), a, b))
                if capture_first and i == 0:
                    pinned[r] = next(iter(w.pads.values()))
                    pinned[r].captured = True  # as a CUDA-graph capture of this configuration would
                step.wait(timeout=PATIENCE_S)  # every rank made this launch's allocations and frees
                peaks[r] = max(peaks[r], sum(allocations.live[r].values()))
                step.wait(timeout=PATIENCE_S)
        except BaseException as err:  # noqa: BLE001 - reported by the main thread
            errors.append(err)
            collective.abort()
            step.abort()

    threads = [threading.Thread(target=rank_main, args=(r,)) for r in range(WORLD)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    real = [e for e in errors if not isinstance(e, threading.BrokenBarrierError)]
    if real or errors:
        raise (real or errors)[0]
    dev.local.rank, dev.local.stream = None, None
    dev.synchronize()
    return [worlds[r] for r in range(WORLD)], allocations, list(zip(MS, inputs, zip(*outs.values()))), peaks, pinned


@pytest.mark.parametrize("seed", [0, 1])
def test_fifty_shapes_stay_under_the_cap_and_reduce_correctly(monkeypatch, seed):
    worlds, allocations, results, peaks, _ = _run(monkeypatch, seed)
    for r in range(WORLD):
        assert peaks[r] <= CAP, f"rank {r} held {peaks[r]} bytes of symmetric memory, cap {CAP}"
        assert len(worlds[r].pads) <= MAX_PADS
    # one signal pad serves all 50 row counts (produced flags are zeroed after each launch's waits); a
    # staging buffer per bucket of slot rows, the older ones freed under the bound along the way
    assert all(len(w.pads) == 1 for w in worlds)
    assert allocations.count[0] == 1 + len({memory.bucket_rows(-(-m // WORLD)) for m in MS})
    for m, inputs, outs in results:
        total = sum(a @ b for a, b in inputs)
        for r in range(WORLD):
            lo, hi = shard_bounds(m, WORLD, r)
            assert torch.allclose(outs[r][lo:hi], total[lo:hi], atol=1e-4), f"M={m}: rank {r}'s rows are wrong"


def test_without_the_bound_the_same_loop_passes_the_cap(monkeypatch):
    """The staging bound is tight enough to mean something: with one staging
    buffer per shape, kept, the same loop holds several times more staging
    (beside its one pad)."""
    monkeypatch.setattr(memory, "bucket_rows", lambda rows: rows)
    _, _, _, peaks, _ = _run(monkeypatch, 0, max_pads=10**6, staging_bytes=1 << 40)
    assert peaks[0] - memory.PAD_BYTES > 4 * STAGING_BYTES


def test_a_captured_configuration_keeps_its_pad_and_staging(monkeypatch):
    worlds, _, results, _, pinned = _run(monkeypatch, 0, capture_first=True)
    for r, w in enumerate(worlds):
        assert any(s is pinned[r] for s in w.pads.values()), f"rank {r} freed the captured configuration's pad"
        assert w.staging_of(pinned[r]), f"rank {r} freed the captured configuration's staging buffer"
        assert len(w.pads) <= MAX_PADS
    m, inputs, outs = results[-1]
    lo, hi = shard_bounds(m, WORLD, 0)
    assert torch.allclose(outs[0][lo:hi], sum(a @ b for a, b in inputs)[lo:hi], atol=1e-4)

"""Host work of a fused launch in steady state on the GPU World (no GPU:
streams and device operations are recorded).

A launch key's first launch builds everything (runtime/gpu/rank.py,
``CachedLaunch``). Every later launch of the key must be table lookups plus
the stream operations themselves. So, for launches after the first, the
test checks four things:

* they record the same device operations, launch after launch;
* they call nothing in the IR (xDSL, the dialects, the analyses, the
  passes) and allocate no tensor;
* the Python calls they make in syncopate, apart from the device
  operations, do not grow with the number of chunks per rank;
* the fused launch path, the same one ``FusedKernel`` callers use, binds
  its arguments without ``inspect``.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import sys
import types
from pathlib import Path

import pytest
import torch

import syncopate
from syncopate.runtime.harness.check import compile_workload
from syncopate.runtime.fused import FusedKernel
from syncopate.runtime.gpu import device, policies
from syncopate.runtime.gpu.world import GpuWorld
from syncopate.runtime.harness.workload import load_workload

EXAMPLES = Path(__file__).resolve().parents[4] / "examples"
PACKAGE = os.path.dirname(os.path.abspath(syncopate.__file__))
# The package is the repository root, so this file and its fakes sit under
# PACKAGE in a plain checkout: they are the test's work, not the launch's.
TESTS = os.path.join(PACKAGE, "test") + os.sep
IR = tuple(os.path.join(PACKAGE, d) + os.sep for d in ("dialects", "ir", "passes", "analysis", "frontend"))
XDSL = os.path.dirname(os.path.abspath(__import__("xdsl").__file__)) + os.sep
DEVICE_OPS = {os.path.abspath(device.__file__)}  # runtime/gpu/device.py: the device operations themselves
ALLOCATING = {"zeros", "empty", "ones", "full", "tensor", "as_tensor", "zeros_like", "empty_like", "ones_like",
              "full_like", "clone", "contiguous", "new_zeros", "new_empty", "new_full", "new_tensor"}
LAUNCHES = 4


class Stream:
    def __init__(self, log: list, name: str):
        self.log, self.name = log, name

    def wait_stream(self, other: Stream) -> None:
        self.log.append(("join", self.name, other.name))

    @staticmethod
    def priority_range() -> tuple[int, int]:
        return (0, -1)


@functools.lru_cache(maxsize=None)
def _program(example: str, backend: str, plan: str | None, world: int = 2):
    workload = load_workload(str(EXAMPLES / example))
    return workload, compile_workload(workload, world, f"overlap{{backend={backend}}}", [plan] if plan else None)


def _context(monkeypatch, log: list, world: int = 2, graphs: bool = False, rank: int = 0,
             whole: bool = True, sms: int = 132) -> GpuWorld:
    """Rank ``rank`` of a world of ``world`` whose device operations append to
    ``log``; ``graphs``: steady-state launches replay CUDA graphs, whose
    capture records into a graph of its own and whose replay is one op;
    ``sms``: the GPU's SM count (1: every grid fills it)."""
    current = [Stream(log, "compute")]
    capturing = [False]

    def capture(issue):
        start = len(log)
        capturing[0] = True
        try:
            issue()
        finally:
            capturing[0] = False
        graph = log[start:]
        del log[start:]  # a capture runs nothing
        return graph

    monkeypatch.setattr(device, "capture", capture)
    monkeypatch.setattr(device, "replay", lambda graph: log.append(("replay", current[0].name, tuple(graph))))
    lanes = iter(range(100))

    @contextlib.contextmanager
    def on(stream):
        saved, current[0] = current[0], stream
        try:
            yield
        finally:
            current[0] = saved

    def new_stream(*_a, **_k) -> Stream:
        return Stream(log, f"lane{next(lanes)}")

    new_stream.priority_range = Stream.priority_range
    monkeypatch.setattr(torch.cuda, "Stream", new_stream)
    monkeypatch.setattr(torch.cuda, "stream", on)
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: current[0])
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: capturing[0])
    monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: None)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda d: types.SimpleNamespace(multi_processor_count=sms))
    monkeypatch.setattr(policies, "check_tensor", lambda t, name: None)
    monkeypatch.setattr(device, "write_value", lambda f, i, v: log.append(("write", current[0].name, i)))
    monkeypatch.setattr(device, "write_epoch", lambda f, i, e: log.append(("arrival", current[0].name, i)))
    monkeypatch.setattr(device, "wait_flag", lambda f, i, *a, **k: log.append(("wait", current[0].name, i)))
    monkeypatch.setattr(device, "copy", lambda d, s: log.append(("copy", current[0].name, d.data_ptr())))
    monkeypatch.setattr(device, "accumulate", lambda d, s: log.append(("add", current[0].name, d.data_ptr())))
    monkeypatch.setattr(device, "set_epoch", lambda e, v: log.append(("epoch", current[0].name)))
    monkeypatch.setattr(device, "zero_words", lambda f, words: log.append(("zero", current[0].name, tuple(words.tolist()))))
    monkeypatch.setattr(device, "fill_words", lambda f, words, v: log.append(("fill", current[0].name, tuple(words.tolist()))))
    w = GpuWorld(rank=rank, world=world, device=torch.device("cpu"), group=None, comm_stream=Stream(log, "comm"),
                 eager_graphs=graphs, whole_graphs=whole)
    monkeypatch.setattr(w, "symmetric", lambda source: _registered(w, torch.zeros_like(source)))
    monkeypatch.setattr(w, "barrier", lambda: None)
    return w


def _registered(w: GpuWorld, buf: torch.Tensor) -> torch.Tensor:
    class Handle:
        def get_buffer(self, peer, shape, dtype):
            return torch.zeros(shape, dtype=dtype)

    w.handles[buf.data_ptr()] = (Handle(), tuple(buf.shape))
    return buf


class Profile:
    """The Python calls and builtin calls made while it is active."""

    def __init__(self):
        self.calls: list[tuple[str, str]] = []
        self.builtins: list[str] = []

    def __call__(self, frame, event, arg):
        if event == "call":
            self.calls.append((os.path.abspath(frame.f_code.co_filename), frame.f_code.co_name))
        elif event == "c_call":
            self.builtins.append(getattr(arg, "__name__", ""))

    @contextlib.contextmanager
    def active(self):
        # no collection inside: a finalizer run by a collection is not the launch's work
        collecting = gc.isenabled()
        gc.disable()
        sys.setprofile(self)
        try:
            yield self
        finally:
            sys.setprofile(None)
            if collecting:
                gc.enable()

    def syncopate_host_calls(self) -> list[tuple[str, str]]:
        """Calls into syncopate other than the device operations (and the
        flag write, one stream operation per flag)."""
        return [(f, n) for f, n in self.calls
                if f.startswith(PACKAGE) and not f.startswith(TESTS) and f not in DEVICE_OPS and n != "raise_flag"]


def _launches(monkeypatch, example: str, backend: str, plan: str | None, world: int = 2, graphs: bool = False,
              fresh_outputs: bool = False, memops: bool = False, whole: bool = True, before=None,
              join_bytes: int | None = None, sms: int = 132):
    """Rank 0's LAUNCHES launches with the same buffers: (device operations
    per launch, the profile of the last launch). ``fresh_outputs``: each
    launch writes a new output tensor (as an op returning a fresh result
    does), and the kernel's launch is logged too; ``memops``: token waits
    are driver stream waits; ``before(n, world)`` runs before launch n;
    ``join_bytes``: the world's ``ce_join_bytes`` (None: the default);
    ``sms``: the GPU's SM count (the examples' grids are smaller than 132)."""
    workload, program = _program(example, backend, plan, world)
    log: list = []
    w = _context(monkeypatch, log, world, graphs, whole=whole, sms=sms)
    if join_bytes is not None:
        w.ce_join_bytes = join_bytes
    monkeypatch.setattr(device, "memop_waits", lambda: memops)
    monkeypatch.setattr(device, "memory_ops", lambda ops: log.append(
        ("memops", torch.cuda.current_stream().name, tuple((kind, index, value) for kind, _w, index, value in ops))))
    inputs = [workload.make_inputs(r, world, 3) for r in range(world)]
    if example.startswith("ag_"):  # the gathered A: every rank's shard, in a symmetric buffer
        a = w.symmetric(torch.cat([i["a"] for i in inputs]))
    else:
        a = inputs[0]["a"]
    b = inputs[0]["b"]
    c = torch.empty(a.shape[0], b.shape[1])  # the same output every launch, as a caller reusing buffers has
    m = workload.module
    outputs = []

    def launch(kernel):
        nonlocal a, c
        if fresh_outputs and example.startswith("ag_"):
            c = torch.empty(a.shape[0], b.shape[1])
            outputs.append(c)  # kept alive: a new address every launch
        elif fresh_outputs:  # the reduce-scatter moves c: its fresh argument is A, as the op's
            a = a.clone()
            outputs.append(a)
        grid = (-(-a.shape[0] // m.BLOCK_M), -(-b.shape[1] // m.BLOCK_N))
        kernel[grid](a, b, c, a.shape[0], b.shape[1], a.shape[1], a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                     c.stride(0), c.stride(1), BLOCK_M=m.BLOCK_M, BLOCK_N=m.BLOCK_N, BLOCK_K=m.BLOCK_K)
    fused = FusedKernel(program, workload.kernel, w.context())
    runs: list[dict] = []

    current = torch.cuda.current_stream

    class Jit:
        def __getitem__(self, grid):
            def run(*a, **k):
                runs.append(k)
                if fresh_outputs:
                    log.append(("kernel", current().name))
            return run

    monkeypatch.setattr(program, "jit", Jit())
    per_launch, profile = [], Profile()
    for n in range(LAUNCHES):
        if before is not None:
            before(n, w)
        start = len(log)
        if n == LAUNCHES - 1:
            with profile.active():
                launch(fused)
        else:
            launch(fused)
        per_launch.append(log[start:])
    # a launch that only replays a graph runs no kernel from the host
    replayed = sum(1 for ops in per_launch[2:] if ops and ops[0][0] == "replay" and ops[0][1] == "compute")
    assert len(runs) == LAUNCHES - replayed and all(k.keys() == runs[0].keys() for k in runs)
    return per_launch, profile


CASES = [
    ("ag_gemm.py", "ce", "all-gather{{tensor=a_ptr dim=0 chunks_per_rank={n}}}"),
    ("ag_gemm.py", "sm", "all-gather{{tensor=a_ptr dim=0 chunks_per_rank={n}}}"),
    ("gemm_rs.py", "ce", "reduce-scatter{{tensor=c_ptr dim=0 chunks_per_rank={n}}}"),
]
IDS = [f"{e.split('.')[0]}-{b}" for e, b, _ in CASES]


@pytest.mark.parametrize("example, backend, plan", CASES, ids=IDS)
def test_steady_state_launches_issue_the_same_device_operations(monkeypatch, example, backend, plan):
    per_launch, _ = _launches(monkeypatch, example, backend, plan.format(n=2))
    steady = [[op for op in ops if op[0] != "join"] for ops in per_launch[1:]]
    assert steady[0] and all(ops == steady[0] for ops in steady)
    joins = [[op for op in ops if op[0] == "join"] for ops in per_launch[1:]]
    assert all(len(j) == len(joins[0]) for j in joins)


@pytest.mark.parametrize("example, backend, plan", CASES, ids=IDS)
def test_steady_state_launches_touch_no_ir_and_allocate_no_tensor(monkeypatch, example, backend, plan):
    _, profile = _launches(monkeypatch, example, backend, plan.format(n=2))
    ir = sorted({(f, n) for f, n in profile.calls if f.startswith(IR) or f.startswith(XDSL)})
    assert ir == [], f"a steady-state launch called into the IR: {ir[:5]}"
    allocations = sorted(set(profile.builtins) & ALLOCATING)
    assert allocations == [], f"a steady-state launch allocated tensors: {allocations}"
    assert not [n for f, n in profile.calls if n in ("bind", "apply_defaults") and "inspect" in f]


@pytest.mark.parametrize("example, backend, plan", CASES, ids=IDS)
def test_host_work_per_launch_does_not_grow_with_the_chunks(monkeypatch, example, backend, plan):
    counts = {}
    for n in (1, 4):
        per_launch, profile = _launches(monkeypatch, example, backend, plan.format(n=n), memops=True)
        counts[n] = (sorted(profile.syncopate_host_calls()), len(per_launch[-1]))
    assert counts[1][0] == counts[4][0]
    if example.startswith("ag_"):
        # sm: the kernel's programs move the chunks; ce: a rank's small chunks go as one copy and one batch of
        # flags: not even device work grows
        assert counts[1][1] == counts[4][1]
    else:
        assert counts[4][1] > counts[1][1]  # one copy (and its arrival) per chunk


@pytest.mark.parametrize("join_bytes, copies", [(0, 4), (1 << 20, 1)], ids=["a copy per chunk", "joined"])
@pytest.mark.parametrize("sms, raise_op", [(132, "fill"), (1, "memops")], ids=["grid leaves SMs", "full grid"])
def test_small_ce_chunks_of_a_rank_go_as_one_copy_and_one_batch_of_flags(monkeypatch, join_bytes, copies, sms,
                                                                          raise_op):
    """4 chunks per rank at W = 2: rank 0 receives 4 chunks of rank 1, whose
    rows follow each other in both buffers. Joined, they move as one copy
    over all of them, then their 4 flags at once; with joining off, a copy
    and a flag raise each. A grid that leaves an SM free raises them with a
    kernel (which a graph replays for free), one that fills every SM with
    a batch of stream writes (a kernel could wait for an SM forever)."""
    per_launch, _ = _launches(monkeypatch, "ag_gemm.py", "ce", CASES[0][2].format(n=4), memops=True,
                              join_bytes=join_bytes, sms=sms)
    lane = [op for op in per_launch[-1] if op[1] == "lane0" and op[0] != "join"]
    assert [op[0] for op in lane] == ["copy", raise_op] * copies
    flags = [f for op in lane if op[0] == "memops" for kind, f, _ in op[2] if kind == "write"] + \
            [f for op in lane if op[0] == "fill" for f in op[2]]
    assert len(flags) == 4 and len(set(flags)) == 4


@pytest.mark.parametrize("example, backend, plan", CASES, ids=IDS)
def test_a_world_of_one_launches_the_kernel_alone(monkeypatch, example, backend, plan):
    """Every chunk is local: no communication stream work, no join, no token;
    only the epoch's count on the compute stream."""
    per_launch, _ = _launches(monkeypatch, example, backend, plan.format(n=2).replace("}", " world=1}"), world=1)
    assert all(ops == [("epoch", "compute")] for ops in per_launch[1:])
    two, _ = _launches(monkeypatch, example, backend, plan.format(n=2))
    assert any(op[0] == "join" for op in two[-1])  # with a peer, the communication stream joins in


@pytest.mark.parametrize("example, backend, plan", CASES, ids=IDS)
def test_replayed_launches_cost_one_graph_launch_at_any_world_and_chunk_count(monkeypatch, example, backend, plan):
    """With eager graphs (the GPU World's default), a steady-state launch is
    one graph replay on the caller's stream, whatever W and the chunks per
    rank: the same device operations and the same Python calls."""
    seen = {}
    for world in (2, 3, 4):
        for n in (1, 4):
            per_launch, profile = _launches(monkeypatch, example, backend,
                                            plan.format(n=n).replace("}", f" world={world}}}"), world, graphs=True)
            assert per_launch[0] and per_launch[0][0][0] != "replay"  # the first launch builds and runs eagerly
            assert per_launch[1][-1][0] == "replay"  # the second is captured, then replayed
            assert [[op[:2] for op in ops] for ops in per_launch[2:]] == [[("replay", "compute")]] * (LAUNCHES - 2)
            seen[(world, n)] = sorted(profile.syncopate_host_calls())
    assert all(calls == seen[(2, 1)] for calls in seen.values()), "host calls of a replayed launch grow with W or chunks"


def test_a_replayed_launch_captures_what_an_eager_launch_issues(monkeypatch):
    """The graph holds the eager launch's device work, in its order, with
    the epoch counted on the device instead of written by the host, and the
    flags it raised cleared after the kernel (a captured flag holds a
    constant that every replay would otherwise find already raised)."""
    eager, _ = _launches(monkeypatch, "ag_gemm.py", "ce", None)
    graphs, _ = _launches(monkeypatch, "ag_gemm.py", "ce", None, graphs=True)
    shape = _same_work

    graph = shape(graphs[-1][0][2])
    issued = shape(op for op in eager[-1] if op[0] != "epoch")
    raised = _raised(issued)
    assert raised and graph[:len(issued)] == issued
    assert graph[len(issued):] == [("zero", "compute", tuple(sorted(raised)))]  # one node, whatever the chunks


def _same_work(ops) -> list:
    """Operations as compared between an eager launch and a captured one
    (two runs' buffers lie at other addresses; a captured flag holds a
    constant where an eager one holds the launch count)."""
    return [op[:2] if op[0] in ("copy", "add") else
            (*op[:2], tuple((kind, index) if kind == "write" else (kind, index, v) for kind, index, v in op[2]))
            if op[0] == "memops" else op for op in ops]


def _raised(ops) -> list[int]:
    """The flags raised on ce lanes, single writes or batches."""
    return [i for op in ops if op[1].startswith("lane")
            for i in ([op[2]] if op[0] == "write" else [w[1] for w in op[2] if w[0] == "write"] if op[0] == "memops"
                      else list(op[2]) if op[0] == "fill" else [])]


@pytest.mark.parametrize("example, backend, plan", CASES, ids=IDS)
def test_a_captured_launch_batches_its_tokens_as_often_at_any_world_and_chunk_count(monkeypatch, example, backend,
                                                                                   plan):
    """Every memory-operation node of a graph costs host time at each
    replay: a launch's token writes and waits go in batches, as many at any
    W and chunk count. The flags raised after the ce copies go as one batch
    per copy, on its lane: one per peer, as small chunks of a peer go as
    one copy (runtime/gpu/ce.py). A reduce-scatter's waits for its tiles
    are driver waits as well, never wait kernels."""
    batches = {}
    for world in (2, 4):
        for n in (1, 4):
            per_launch, _ = _launches(monkeypatch, example, backend, plan.format(n=n).replace("}", f" world={world}}}"),
                                      world, graphs=True, memops=True)
            graph = per_launch[-1][0][2]
            assert not [op for op in graph if op[0] == "write"]
            after_copy = [i for i, op in enumerate(graph) if op[0] in ("memops", "fill") and graph[i - 1][0] == "copy"
                          and graph[i - 1][1] == op[1]]
            copies = [op for op in graph if op[0] == "copy"]
            if example.startswith("ag_"):
                assert after_copy == [i + 1 for i, op in enumerate(graph) if op[0] == "copy"]  # a flag batch each
                assert len(copies) == (world - 1 if backend == "ce" else 0)
            # a reduce-scatter's waits for its tiles' counts (the produced flags the launch zeroes after them)
            # are driver waits too: one batch per region, device work that grows with the chunks
            counted = {word for op in graph if op[0] == "zero" for word in op[2]} if example.startswith("gemm_rs") \
                else set()
            tile_waits = [i for i, op in enumerate(graph) if op[0] == "memops" and i not in after_copy and counted
                          and all(kind == "wait" and index in counted for kind, index, _v in op[2])]
            assert {index for i in tile_waits for _k, index, _v in graph[i][2]} == counted
            # no wait kernel for a tile count: it would spin on an SM the tiles need (the arrivals of staged
            # partials, whose target is the epoch, are still waited for by a kernel)
            assert not [op for op in graph if op[0] == "wait" and op[2] in counted]
            token_batches = [i for i, op in enumerate(graph) if op[0] == "memops" and i not in after_copy
                             and i not in tile_waits]
            batches[(world, n)] = [graph[i][1] for i in token_batches]
            tokens = [(kind, index) for i in token_batches for kind, index, _v in graph[i][2]]
            assert len(tokens) >= 2 * (world - 1)  # the batches hold every peer's token
    assert len({tuple(b) for b in batches.values()}) == 1, f"token batches grow with W or chunks: {batches}"


def test_a_launch_repeated_with_the_same_arguments_replays_its_graph_without_building_keys(monkeypatch):
    """FusedKernel keeps the context's repeat of a replayed launch by its
    arguments: the next call with the same ones goes straight to the graph."""
    per_launch, profile = _launches(monkeypatch, "ag_gemm.py", "ce", None, graphs=True)
    assert [[op[0] for op in ops] for ops in per_launch[2:]] == [["replay"]] * (LAUNCHES - 2)
    names = {n for _f, n in profile.calls}
    assert "repeat" in names and not names & {"launch_keys", "bind", "runtime_params"}


SABOTAGE = {
    "launch tables dropped": lambda w: w.launches.clear(),
    "spin limit set": lambda w: setattr(w, "spin_limit", 1000),
    "eager graphs switched off": lambda w: setattr(w, "eager_graphs", False),
    "whole-launch graphs switched off": lambda w: setattr(w, "whole_graphs", False),
    "graph dropped": lambda w: [c.graphs.graphs.clear() for c in w.launches.values()],
}


@pytest.mark.parametrize("change", SABOTAGE, ids=list(SABOTAGE))
def test_a_repeat_declines_where_the_launch_would_not_replay_its_graph(monkeypatch, change):
    """Once its tables or graph are gone, or a spin limit or eager launches
    are asked for, the same arguments take the full launch path again."""
    from syncopate.runtime.gpu import rank as gpu_rank

    keyed: list[int] = []
    build = gpu_rank.launch_keys
    monkeypatch.setattr(gpu_rank, "launch_keys", lambda *a: (keyed.append(1), build(*a))[1])
    last = LAUNCHES - 1
    per_launch, _ = _launches(monkeypatch, "ag_gemm.py", "ce", None, graphs=True,
                              before=lambda n, w: SABOTAGE[change](w) if n == last else None)
    assert [op[0] for op in per_launch[last - 1]] == ["replay"]
    assert len(keyed) == 2 + 1  # the first two launches, then the declined repeat's full path
    assert [op[0] for op in per_launch[last]] != ["replay"]


def test_arguments_keys_tell_apart_what_a_launch_depends_on():
    from syncopate.runtime.fused import arguments_key

    a, b = torch.zeros(4, 4), torch.zeros(4, 4)
    key = arguments_key((2, 1), (a, 4), {"BLOCK": 16})
    assert key == arguments_key((2, 1), (a, 4), {"BLOCK": 16})
    for other in [arguments_key((2, 1), (b, 4), {"BLOCK": 16}), arguments_key((2, 1), (a.t(), 4), {"BLOCK": 16}),
                  arguments_key((2, 1), (a.view(torch.int32), 4), {"BLOCK": 16}),
                  arguments_key((2, 1), (a[:2], 4), {"BLOCK": 16}), arguments_key((2, 1), (a, 4.0), {"BLOCK": 16}),
                  arguments_key((2, 1), (a, True), {"BLOCK": 16}), arguments_key((1, 1), (a, 4), {"BLOCK": 16}),
                  arguments_key((2, 1), (a, 4), {"BLOCK": 32}), arguments_key((2, 1), (a, 4), {"BLOCK_N": 16})]:
        assert other != key
    assert arguments_key(lambda meta: (2,), (a,), {}) is None  # a computed grid
    assert arguments_key((2,), (a, [1, 2]), {}) is None  # an argument a key cannot hold by value


SERVED = [("ag_gemm.py", "ce"), ("ag_gemm.py", "sm"), ("gemm_rs.py", "ce")]


@pytest.mark.parametrize("example, backend", SERVED, ids=[f"{e[:-3]}-{b}" for e, b in SERVED])
def test_new_row_counts_reuse_the_signal_pad_without_collectives_or_syncs(monkeypatch, example, backend):
    """Serving: after the first call, calls with 100 other row counts (rows
    of one buffer, as syncopate.ops keeps per row bucket: the gathered A,
    or the reduce-scattered C) allocate no symmetric memory, reach no
    barrier, never synchronise the device and copy no table to it
    synchronously; they share one signal pad. A reduce-scatter's tile
    counts differ from one row count to the next: its flags are zeroed
    after each launch's waits, so the pad is shared all the same."""
    world = 2
    workload, program = _program(example, backend, None, world)
    log: list = []
    w = _context(monkeypatch, log, world, graphs=True)
    m = workload.module
    k_dim, n_dim = 32, 48
    gathered = w.symmetric(torch.zeros(4096, k_dim))
    scattered = torch.zeros(4096, n_dim)
    b = torch.zeros(k_dim, n_dim)
    counts: dict[str, int] = {}

    def count(what):
        return lambda *a, **k: counts.__setitem__(what, counts.get(what, 0) + 1)

    allocate, tensor = w.symmetric, torch.tensor

    def uploaded(*args, **kwargs):
        if kwargs.get("device") is not None:  # copied from pageable memory, then the stream synchronised
            count("synchronous upload")()
        return tensor(*args, **kwargs)

    monkeypatch.setattr(w, "symmetric", lambda source: (count("symmetric")(), allocate(source))[1])
    monkeypatch.setattr(w, "barrier", count("barrier"))
    monkeypatch.setattr(torch.cuda, "synchronize", count("synchronize"))
    monkeypatch.setattr(torch, "tensor", uploaded)

    class Jit:
        def __getitem__(self, grid):
            return lambda *a, **k: None

    monkeypatch.setattr(program, "jit", Jit())
    fused = FusedKernel(program, workload.kernel, w.context())
    rows = [4096] + [2050 + 2 * i for i in range(100)]  # one power-of-two bucket, its largest first
    for n, rows_now in enumerate(rows):
        if n == 1:
            assert counts.get("symmetric", 0) <= 2  # the first call's pad, and a reduce-scatter's staging
            counts.clear()
        if example == "ag_gemm.py":
            a, c = gathered[:rows_now], torch.empty(rows_now, n_dim)
        else:
            a, c = torch.empty(rows_now, k_dim), scattered[:rows_now]
        grid = (-(-rows_now // m.BLOCK_M), -(-n_dim // m.BLOCK_N))
        fused[grid](a, b, c, rows_now, n_dim, k_dim, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                    c.stride(0), c.stride(1), BLOCK_M=m.BLOCK_M, BLOCK_N=m.BLOCK_N, BLOCK_K=m.BLOCK_K)
    assert counts == {}, f"new row counts made collective or synchronising calls: {counts}"
    assert len(w.pads) == 1 and len({id(c.sync) for c in w.launches.values()}) == 1
    assert len(w.staging) <= 1


def _pad_key_of(rows: list[tuple[int, int, int, int]]) -> tuple:
    """The pad key of a reduce-scatter configuration whose chunks are ``rows``: (src, dst, lo, hi)."""
    from syncopate.ir.analysis.deps import ConcreteChunk
    from syncopate.runtime.gpu import rank as gpu_rank

    chunks = [ConcreteChunk("rs", i, i, "c", "c_ptr", 0, lo, hi, src, dst, 0, "ce")
              for i, (src, dst, lo, hi) in enumerate(rows)]
    facts = types.SimpleNamespace(consumed=(), produced=("rs",))
    launch = types.SimpleNamespace(chunks={"rs": chunks}, flag_count=len(chunks))
    return gpu_rank.pad_key(facts, ("program", (4, 4), (("M", rows[-1][3]),)), launch, 0)


def test_reduce_scatters_of_other_row_counts_share_a_pad_unless_other_ranks_send():
    """A produced plan's configurations share a pad across row counts; not
    when another set of ranks sends partials (an empty chunk sends none):
    an owner returns the staging tokens of the sources its last launch
    read, so a configuration with fewer senders would leave a token of the
    other untaken."""
    def plan(m: int) -> list[tuple[int, int, int, int]]:
        half = m // 2
        return [(0, 0, 0, half), (1, 0, 0, half), (0, 1, half, m), (1, 1, half, m)]

    assert _pad_key_of(plan(64)) == _pad_key_of(plan(96))
    emptied = [(s, d, lo, lo if (s, d) == (1, 0) else hi) for s, d, lo, hi in plan(64)]
    assert _pad_key_of(emptied) != _pad_key_of(plan(64))


def test_launches_with_nccl_collectives_are_not_replayed(monkeypatch):
    """An NCCL kernel must be queued before the fused kernel that spins on
    its chunks; a graph would start them in either order."""
    from syncopate.runtime.gpu import nccl

    monkeypatch.setattr(nccl, "plan_delivery", lambda *a: (lambda: None,))  # one broadcast, not run here
    per_launch, _ = _launches(monkeypatch, "ag_gemm.py", "nccl", None, graphs=True)
    assert all(ops and not any(op[0] == "replay" for op in ops) for ops in per_launch)
    ce, _ = _launches(monkeypatch, "ag_gemm.py", "ce", None, graphs=True)
    assert ce[-1][0][0] == "replay"  # the same launch on ce replays


@pytest.mark.parametrize("example, backend, plan", CASES, ids=IDS)
def test_fresh_kernel_arguments_rewrite_the_captured_launch_at_any_world_and_chunk_count(monkeypatch, example,
                                                                                        backend, plan):
    """Where the driver can rewrite a captured graph's kernel arguments, a
    fresh output (or A) on every launch still costs one graph replay: one
    capture, then each launch points that graph at its tensors' addresses,
    with the same operations and Python calls at any W and chunk count."""
    seen = {}
    for world in (2, 4):
        for n in (1, 4):
            rewrites: list = []
            monkeypatch.setattr(device, "can_retarget", lambda: True)
            monkeypatch.setattr(device, "kernel_sites", lambda graph, addresses: ["site"])
            monkeypatch.setattr(device, "retarget", lambda graph, sites, addresses: rewrites.append(addresses) or True)
            per_launch, profile = _launches(monkeypatch, example, backend,
                                            plan.format(n=n).replace("}", f" world={world}}}"), world, graphs=True,
                                            fresh_outputs=True, memops=True)
            assert "replay" not in [op[0] for op in per_launch[0]]  # the first launch builds and runs eagerly
            assert per_launch[1][-1][0] == "replay"  # the second is captured, then replayed
            assert [[op[:2] for op in ops] for ops in per_launch[2:]] == [[("replay", "compute")]] * (LAUNCHES - 2)
            assert len({op[2] for ops in per_launch[1:] for op in ops}) == 1  # one graph, captured once
            assert len(rewrites) == LAUNCHES - 2 and len(set(rewrites)) == LAUNCHES - 2  # new addresses each launch
            seen[(world, n)] = sorted(profile.syncopate_host_calls())
    differ = {k: sorted(set(v) ^ set(seen[(2, 1)])) for k, v in seen.items() if v != seen[(2, 1)]}
    assert not differ, f"host calls grow with W or chunks: {differ}"


SPLIT = ["epoch", "join", "replay", "kernel", "join", "zero"]  # a launch beside its communication graph


@pytest.mark.parametrize("example, backend, plan", [c for c in CASES if c[1] == "ce"], ids=[i for i in IDS if "ce" in i])
def test_new_kernel_arguments_replay_the_communication_graph_beside_a_kernel_launch(monkeypatch, example, backend,
                                                                                    plan):
    """A fresh output every launch (an op's result) is a new replay key
    every launch, so no whole-launch graph applies: after the first eager
    launch, the communication streams' work replays its own graph, captured
    once, on the communication stream, and the kernel launches from Python
    beside it; the same operations and Python calls at any W and chunk count."""
    seen = {}
    for world in (2, 4):
        for n in (1, 4):
            per_launch, profile = _launches(monkeypatch, example, backend,
                                            plan.format(n=n).replace("}", f" world={world}}}"), world, graphs=True,
                                            fresh_outputs=True, memops=True)
            assert "replay" not in [op[0] for op in per_launch[0]]  # the first launch builds and runs eagerly
            raises = example.startswith("ag_")  # a reduce-scatter's graph raises no flag a tile waits for
            for ops in per_launch[1:]:
                assert [op[0] for op in ops] == (SPLIT if raises else SPLIT[:-1])
                epoch, comm_after_compute, graph, kernel, compute_after_comm = ops[:5]
                assert epoch[1] == kernel[1] == ops[-1][1] == "compute"
                assert comm_after_compute == ("join", "comm", "compute") and graph[1] == "comm"
                assert compute_after_comm == ("join", "compute", "comm")
            graphs = {op[2] for ops in per_launch[1:] for op in ops if op[0] == "replay"}
            assert len(graphs) == 1  # captured once per launch key
            seen[(world, n)] = sorted(profile.syncopate_host_calls())
    differ = {k: sorted(set(v) ^ set(seen[(2, 1)])) for k, v in seen.items() if v != seen[(2, 1)]}
    assert not differ, f"host calls grow with W or chunks: {differ}"


def test_the_communication_graph_holds_the_eager_launchs_communication(monkeypatch):
    """The graph is the eager launch's communication-stream work, in order:
    the eager launch minus its epoch count, its kernel and the compute
    stream's waits, with the flags raised as constants that the compute
    stream clears after the kernel (one node: the flags the graph raised)."""
    eager, _ = _launches(monkeypatch, "ag_gemm.py", "ce", None, fresh_outputs=True, memops=True)
    split, _ = _launches(monkeypatch, "ag_gemm.py", "ce", None, graphs=True, fresh_outputs=True, memops=True)
    shape = _same_work

    comm = shape(op for op in eager[-1] if op[0] not in ("epoch", "kernel") and op[1] != "compute")
    graph = [op for op in split[-1] if op[0] == "replay"][0][2]
    assert [op for op in shape(graph) if op[1] != "compute"] == comm
    raised = tuple(sorted(_raised(comm)))
    assert raised and split[-1][-1] == ("zero", "compute", raised)
    assert any(op[0] == "memops" and ("wait", 0) in [o[:1] + (0,) for o in op[2]] for op in comm)  # driver waits


def test_no_communication_graph_without_driver_waits_or_where_the_stream_waits_for_the_kernel(monkeypatch):
    """Wait kernels may need the SM a full grid holds, and the sm backend
    releases its reads only after the kernel: both launch from Python."""
    kernel_waits, _ = _launches(monkeypatch, "ag_gemm.py", "ce", None, graphs=True, fresh_outputs=True)
    sm, _ = _launches(monkeypatch, "ag_gemm.py", "sm", None, graphs=True, fresh_outputs=True, memops=True)
    for per_launch in (kernel_waits, sm):
        assert not any(op[0] == "replay" for ops in per_launch for op in ops)
    ce, _ = _launches(monkeypatch, "ag_gemm.py", "ce", None, graphs=True, fresh_outputs=True, memops=True)
    assert [op[0] for op in ce[-1]] == SPLIT


@pytest.mark.parametrize("memops", [False, True])
def test_a_full_grid_waits_for_the_ready_tokens_before_its_kernel_only_with_wait_kernels(monkeypatch, memops):
    """ready_before_kernel's owners are awaited on the communication stream
    first either way; only a wait kernel, which needs an SM, also holds the
    kernel back until then."""
    from syncopate.runtime.gpu import rank as gpu_rank

    monkeypatch.setattr(gpu_rank, "ready_before_kernel", lambda reads, grid, sms: reads.released_after_copies)
    per_launch, _ = _launches(monkeypatch, "ag_gemm.py", "ce", None, fresh_outputs=True, memops=memops)
    ops = per_launch[-1]
    before_kernel = ops[:[op[0] for op in ops].index("kernel")]
    assert any((op[0] == "wait" or op[0] == "memops" and any(o[0] == "wait" for o in op[2])) and op[1] == "comm"
               for op in before_kernel)
    assert (("join", "compute", "comm") in before_kernel) is not memops


def test_communication_graphs_only_replay_the_communication_of_every_launch(monkeypatch):
    """SYNCOPATE_EAGER_GRAPHS=communication: launches with the same
    arguments replay only their communication graph too, and the kernel
    launches from Python, so the kernel's own launch stays a Triton launch."""
    monkeypatch.setenv("SYNCOPATE_EAGER_GRAPHS", "communication")
    from syncopate.runtime.gpu import replay

    assert replay.enabled_by_default() and not replay.whole_launches_by_default()
    same, _ = _launches(monkeypatch, "ag_gemm.py", "ce", None, graphs=True, memops=True, whole=False)
    assert all([op[0] for op in ops] == ["epoch", "join", "replay", "join", "zero"] for ops in same[1:])


def test_a_new_output_over_the_gathered_tensors_memory_is_refused_at_a_known_launch_key(monkeypatch):
    """The launch key holds the tensors the plans move, not the output: a new
    output address is checked for memory shared with the gathered A when it
    is first seen (runtime/aliasing.py), not only when the key is built."""
    from syncopate.runtime.errors import AbiError

    workload, program = _program("ag_gemm.py", "ce", None)
    w = _context(monkeypatch, [])
    monkeypatch.setattr(device, "memop_waits", lambda: False)
    inputs = [workload.make_inputs(r, 2, 3) for r in range(2)]
    a = w.symmetric(torch.cat([i["a"] for i in inputs]))
    b, m = inputs[0]["b"], workload.module
    runs = []

    class Jit:
        def __getitem__(self, grid):
            return lambda *args, **kwargs: runs.append(grid)

    monkeypatch.setattr(program, "jit", Jit())
    fused = FusedKernel(program, workload.kernel, w.context())

    def launch(c):
        grid = (-(-a.shape[0] // m.BLOCK_M), -(-b.shape[1] // m.BLOCK_N))
        fused[grid](a, b, c, a.shape[0], b.shape[1], a.shape[1], a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                    c.stride(0), c.stride(1), BLOCK_M=m.BLOCK_M, BLOCK_N=m.BLOCK_N, BLOCK_K=m.BLOCK_K)

    kept = [torch.empty(a.shape[0], b.shape[1]) for _ in range(2)]
    for c in kept:  # two outputs of their own: launched
        launch(c)
    over_a = a.view(-1)[:a.shape[0] * b.shape[1]].view(a.shape[0], b.shape[1])  # the output's layout, A's bytes
    with pytest.raises(AbiError, match="'c_ptr' shares memory with 'a_ptr', the tensor plan @ag moves"):
        launch(over_a)
    assert len(w.launches) == 1 and len(runs) == 2


@pytest.mark.parametrize("world", [2, 3])
def test_an_all_reduce_on_ce_replays_with_its_gather_after_the_reduction(monkeypatch, world):
    """GEMM + all-reduce over ce: its launches replay like a
    reduce-scatter's, one graph launch each, then the NCCL gather of the
    owners' sums from the host on the caller's stream. The graph holds the
    whole reduction and no NCCL work (a kept graph with NCCL work holds up
    destroy_process_group). The same launch whose reduction itself runs on
    NCCL (reduces that wait for single tiles) is not replayed."""
    import torch.distributed as dist

    log_of: list[list] = []

    def gather(kind):
        return lambda *a, **k: log_of[0].append((kind, torch.cuda.current_stream().name))

    monkeypatch.setattr(dist, "all_gather_into_tensor", gather("gather"))
    monkeypatch.setattr(dist, "broadcast", gather("gather"))
    monkeypatch.setattr(dist, "reduce", gather("reduce"))
    real_context = _context

    def context(mp, log, *a, **k):
        log_of[:] = [log]
        return real_context(mp, log, *a, **k)

    monkeypatch.setattr(sys.modules[__name__], "_context", context)
    plan = "all-reduce{{tensor=c_ptr dim=0 chunks_per_rank={n} world={w}}}"
    seen = {}
    for n in (1, 4):
        per_launch, profile = _launches(monkeypatch, "gemm_ar.py", "ce", plan.format(n=n, w=world), world,
                                        graphs=True)
        gathers = [("gather", "compute")] * (1 if world == 2 else world)  # one all-gather, or a broadcast per owner
        assert [[op[:2] for op in ops] for ops in per_launch[2:]] == [[("replay", "compute")] + gathers] * (
            LAUNCHES - 2)
        graph = per_launch[-1][0][2]
        assert not any(op[0] in ("gather", "reduce") for op in graph)
        assert any(op[0] == "add" for op in graph) and graph[-1][0] != "gather"
        eager = [op[:2] for op in per_launch[0] if op[0] == "gather"]  # the first launch issues it eagerly
        assert eager == [("gather", "comm")] * len(gathers)
        seen[n] = sorted(profile.syncopate_host_calls())
    assert seen[1] == seen[4], "host calls of a replayed all-reduce grow with its chunks"
    per_launch, _ = _launches(monkeypatch, "gemm_ar.py", "nccl", plan.format(n=1, w=world), world, graphs=True)
    assert all(ops and not any(op[0] == "replay" for op in ops) for ops in per_launch)
    assert any(op[0] == "reduce" for op in per_launch[-1])


@pytest.mark.parametrize("world", [2, 3])
def test_a_reduce_scatters_tile_waits_expect_every_tile_that_writes_the_region(monkeypatch, world):
    """Rank 0's stream holds each region's send (or its own sum) until every
    tile that writes the region's rows has signalled: the wait's target is
    the count of row tiles that meet the region times the column tiles,
    counted here from the example's shapes and the rows rule
    (``shard_bounds``), not by the runtime's tile counts."""
    from syncopate.runtime.workload import shard_bounds

    workload, _ = _program("gemm_rs.py", "ce", None, world)
    m = workload.module
    per_launch, _ = _launches(monkeypatch, "gemm_rs.py", "ce", None, world, memops=True)
    counted = {word for op in per_launch[-1] if op[0] == "zero" for word in op[2]}
    targets = sorted(value for op in per_launch[-1] if op[0] == "memops"
                     for kind, index, value in op[2] if kind == "wait" and index in counted)
    columns = -(-m.N_DIM // m.BLOCK_N)

    def tiles(lo: int, hi: int) -> int:
        return sum(1 for t in range(-(-m.M_DIM // m.BLOCK_M)) if t * m.BLOCK_M < hi and lo < (t + 1) * m.BLOCK_M)

    regions = [shard_bounds(m.M_DIM, world, r) for r in range(world)]
    assert targets == sorted(tiles(start, start + size) * columns for start, size in regions)

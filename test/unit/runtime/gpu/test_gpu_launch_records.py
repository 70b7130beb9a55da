"""What a fused launch on the GPU World hands the device, recorded without
a GPU and checked against facts the test derives itself: the copy targets
of a launch follow the buffers it is given, NCCL collectives name the rank
that has the rows, flags follow the data they announce, a launch that can
starve NCCL warns, and the stream wait holds until its exact target."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.distributed as dist
from test_gpu_launch_overhead import _context, _program, _registered

from syncopate.runtime.fused import FusedKernel
from syncopate.runtime.gpu.stream_wait import wait_flag


def _gemm(workload, kernel, a, b, c):
    m = workload.module
    grid = (-(-a.shape[0] // m.BLOCK_M), -(-b.shape[1] // m.BLOCK_N))
    kernel[grid](a, b, c, a.shape[0], b.shape[1], a.shape[1], a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                 c.stride(0), c.stride(1), BLOCK_M=m.BLOCK_M, BLOCK_N=m.BLOCK_N, BLOCK_K=m.BLOCK_K)


def _fused(monkeypatch, example, backend, world=2, rank=0, graphs=False, order=None, plan=None):
    workload, program = _program(example, backend if order is None else f"{backend} order={order}", plan, world)
    log: list = []
    w = _context(monkeypatch, log, world, graphs, rank)

    class Jit:
        def __getitem__(self, grid):
            return lambda *a, **k: log.append(("kernel", "compute"))

    monkeypatch.setattr(program, "jit", Jit())
    inputs = [workload.make_inputs(r, world, 3) for r in range(world)]
    return workload, program, w, log, inputs, FusedKernel(program, workload.kernel, w.context())


def _within(ptr: int, t: torch.Tensor) -> bool:
    return t.data_ptr() <= ptr < t.data_ptr() + t.numel() * t.element_size()


@pytest.mark.parametrize("graphs", [False, True])
def test_a_new_gathered_buffer_of_the_same_shape_gets_its_own_copy_targets(monkeypatch, graphs):
    workload, program, w, log, inputs, fused = _fused(monkeypatch, "ag_gemm.py", "ce", graphs=graphs)
    full = torch.cat([i["a"] for i in inputs])
    buffers = [_registered(w, full.clone()) for _ in range(2)]
    b, c = inputs[0]["b"], torch.empty(full.shape[0], inputs[0]["b"].shape[1])
    for use in (0, 1, 0, 1, 0, 1):
        start = len(log)
        _gemm(workload, fused, buffers[use], b, c)
        ops = [op for entry in log[start:] for op in (entry[2] if entry[0] == "replay" else (entry,))]
        copies = [op[2] for op in ops if op[0] == "copy"]
        assert copies and all(_within(p, buffers[use]) for p in copies), f"launch on buffer {use} copied elsewhere"


def _row_owner(launch, name: str):
    """rows -> the rank whose own (local) chunk they are, from the plan's chunk list."""
    local = [(c.lo, c.hi, c.dst) for c in launch.chunks[name] if c.is_local]
    return lambda lo: next(d for a, z, d in local if a <= lo < z)


MESH = {0: 1, 1: 3}  # a 2 x 2 mesh's TP group of global ranks 1 and 3: group rank -> global rank


def _in_sub_group(monkeypatch, w, sub_group: bool):
    """``w`` as the GPU world of a TP group of a 2 x 2 mesh (its NCCL calls
    take global ranks); the identity map for the default group."""
    if not sub_group:
        return lambda r: r
    w.comm_group = "tp"
    monkeypatch.setattr(dist, "get_global_rank", lambda group, r: MESH[r] if group == "tp" else pytest.fail(group))
    return MESH.__getitem__


@pytest.mark.parametrize("sub_group", [False, True], ids=["world", "sub-group"])
@pytest.mark.parametrize("rank", [0, 1])
def test_nccl_broadcasts_come_from_the_owner_and_flags_follow_them(monkeypatch, rank, sub_group):
    workload, program, w, log, inputs, fused = _fused(monkeypatch, "ag_gemm.py", "nccl", rank=rank, order="arrival")
    full = torch.cat([i["a"] for i in inputs])
    global_rank = _in_sub_group(monkeypatch, w, sub_group)
    monkeypatch.setattr(dist, "broadcast", lambda t, src, group=None: log.append(("broadcast", src, t.data_ptr())))
    _gemm(workload, fused, full, inputs[rank]["b"], torch.empty(full.shape[0], inputs[rank]["b"].shape[1]))
    launch = w.launches[next(iter(w.launches))].launch
    owner = _row_owner(launch, "ag")
    casts = [op for op in log if op[0] == "broadcast"]
    assert len(casts) == 2  # one per owner of rows
    for _, src, ptr in casts:
        row = (ptr - full.data_ptr()) // (full.stride(0) * full.element_size())
        assert src == global_rank(owner(row)), f"rows from {row} broadcast from rank {src}, owned by {owner(row)}"
    remote = {c.flag for c in launch.chunks["ag"] if c.dst == rank and not c.is_local}
    last_cast = max(i for i, op in enumerate(log) if op[0] == "broadcast")
    raised = [i for i, op in enumerate(log) if op[:2] == ("write", "comm") and op[2] in remote]
    assert raised and min(raised) > last_cast, "an nccl chunk's flag went up before its broadcast was issued"


@pytest.mark.parametrize("sub_group", [False, True], ids=["world", "sub-group"])
@pytest.mark.parametrize("rank", [0, 1])
def test_nccl_reduces_go_to_the_rank_that_owns_the_rows(monkeypatch, rank, sub_group):
    workload, program, w, log, inputs, fused = _fused(monkeypatch, "gemm_rs.py", "nccl", rank=rank)
    global_rank = _in_sub_group(monkeypatch, w, sub_group)
    monkeypatch.setattr(dist, "reduce", lambda t, dst, group=None: log.append(("reduce", dst, t.data_ptr())))
    a, b = inputs[rank]["a"], inputs[rank]["b"]
    c = torch.empty(a.shape[0], b.shape[1])
    _gemm(workload, fused, a, b, c)
    launch = w.launches[next(iter(w.launches))].launch
    owner = _row_owner(launch, next(iter(launch.plans)))
    reduces = [op for op in log if op[0] == "reduce"]
    assert len(reduces) == 2
    for _, dst, ptr in reduces:
        row = (ptr - c.data_ptr()) // (c.stride(0) * c.element_size())
        assert dst == global_rank(owner(row)), f"rows from {row} reduced to rank {dst}, owned by {owner(row)}"


@pytest.mark.parametrize("backend", ["ce", "nccl"])
@pytest.mark.parametrize("world, rank", [(2, 0), (2, 1), (3, 0), (3, 2)])
def test_a_blocked_reduce_scatter_reduces_each_block_at_its_owners(monkeypatch, backend, world, rank):
    """``blocks=2`` (gemm_rs's 50 rows as a [2, 25, n] output scattered on
    its dim 1): a rank owns its slice of each block, two row ranges apart.
    nccl: each range is reduced to its owner; ce: this rank sums its peers'
    partials into its own ranges only, each of them, and sends its partials
    of every peer's ranges; the staging slot holds the owned rows packed,
    not the rows between them."""
    from syncopate.runtime.gpu.reduce_scatter import ce_reduce_schedule

    plan = "reduce-scatter{tensor=c_ptr dim=0 blocks=2}"
    workload, program, w, log, inputs, fused = _fused(monkeypatch, "gemm_rs.py", backend, world, rank, plan=plan)
    monkeypatch.setattr(dist, "reduce", lambda t, dst, group=None: log.append(("reduce", dst, t.data_ptr())))
    a, b = inputs[rank]["a"], inputs[rank]["b"]
    c = torch.empty(a.shape[0], b.shape[1])
    row_bytes = c.stride(0) * c.element_size()
    _gemm(workload, fused, a, b, c)
    launch = w.launches[next(iter(w.launches))].launch
    owner = _row_owner(launch, "rs")
    own = sorted(ch.lo for ch in launch.chunks["rs"] if ch.is_local and ch.dst == rank)
    assert len(own) == 2 and own[0] < 25 <= own[1]  # one range in each block
    if backend == "nccl":
        reduces = [((ptr - c.data_ptr()) // row_bytes, dst) for op, dst, ptr in (e for e in log if e[0] == "reduce")]
        assert len(reduces) == 2 * world  # every owner's range of each block
        assert all(dst == owner(row) for row, dst in reduces)
        return
    summed = sorted((op[2] - c.data_ptr()) // row_bytes for op in log
                    if op[0] == "add" and _within(op[2], c))
    assert summed == own
    assert sum(1 for op in log if op[0] == "copy") == 2 * (world - 1)  # this rank's partials of the peers' ranges
    layout = ce_reduce_schedule(tuple(launch.chunks["rs"]), rank, world)[0]
    assert layout.widest == max(sum(ch.hi - ch.lo for ch in launch.chunks["rs"] if ch.is_local and ch.dst == d)
                                for d in range(world))


@pytest.mark.parametrize("backend", ["ce", "nccl"])
@pytest.mark.parametrize("sub_group", [False, True], ids=["world", "sub-group"])
@pytest.mark.parametrize("world, rank", [(2, 0), (2, 1), (3, 0), (3, 2)])
def test_an_all_reduce_gathers_each_owners_sum_after_the_reduction(monkeypatch, backend, world, rank, sub_group):
    """After the reduce-scatter phase (the sends, the arrivals summed, or the
    NCCL reduces), every rank gathers the owners' summed rows on the
    communication stream: one in-place all-gather where the owners' blocks
    are equal (50 rows at W = 2), else a broadcast of each owner's rows from
    that owner, in the owners' order (W = 3: 16, 16 and 18 rows)."""
    workload, program, w, log, inputs, fused = _fused(monkeypatch, "gemm_ar.py", backend, world, rank)
    global_rank = _in_sub_group(monkeypatch, w, sub_group) if world == 2 else (lambda r: r)
    monkeypatch.setattr(dist, "broadcast", lambda t, src, group=None: log.append(
        ("broadcast", src, t.data_ptr(), torch.cuda.current_stream().name)))
    from syncopate.runtime.gpu import direct_collectives

    def all_gather(out, mine, group=None):
        assert group == w.nccl_group  # the world's group (a sub-group's own), not the default one
        log.append(("all_gather", out.data_ptr(), mine.data_ptr(), out.numel(), torch.cuda.current_stream().name))

    monkeypatch.setattr(dist, "all_gather_into_tensor", all_gather)
    monkeypatch.setattr(direct_collectives, "all_gather_into", all_gather)
    monkeypatch.setattr(dist, "reduce", lambda t, dst, group=None: log.append(("reduce", dst, t.data_ptr())))
    a, b = inputs[rank]["a"], inputs[rank]["b"]
    c = torch.empty(a.shape[0], b.shape[1])
    row_bytes = c.stride(0) * c.element_size()
    for _ in range(2):
        log.clear()
        _gemm(workload, fused, a, b, c)
        launch = w.launches[next(iter(w.launches))].launch
        owner = _row_owner(launch, "ar")
        gathers = [(i, op) for i, op in enumerate(log) if op[0] in ("broadcast", "all_gather")]
        assert gathers and all(op[-1] == "comm" for _, op in gathers)
        if world == 2:
            ((_, op),) = gathers
            assert op[0] == "all_gather" and op[1] == c.data_ptr() and op[3] == c.numel()
            assert op[2] == c.data_ptr() + 25 * rank * row_bytes  # this rank's summed rows, in place
        else:
            rows = [(op[2] - c.data_ptr()) // row_bytes for _, op in gathers]
            assert [op[0] for _, op in gathers] == ["broadcast"] * 3 and sorted(rows) == rows
            assert [op[1] for _, op in gathers] == [global_rank(owner(r)) for r in rows]
            assert {owner(r) for r in rows} == set(range(world))  # every owner's rows, to every rank
        reduced = [i for i, op in enumerate(log) if op[0] in ("add", "reduce", "arrival")]
        assert reduced and max(reduced) < gathers[0][0], "a summed row was gathered before the reduction ended"


def test_a_sub_groups_barrier_waits_for_its_own_ranks(monkeypatch):
    from syncopate.runtime.gpu.world import GpuWorld

    calls = []
    monkeypatch.setattr(dist, "barrier", lambda group=None, device_ids=None: calls.append((group, device_ids)))
    w = GpuWorld(rank=0, world=2, device=torch.device("cuda", 3), group="tp", comm_stream=None)
    w.barrier()
    assert calls == [("tp", [3])]


def test_a_launch_that_starts_on_a_remote_nccl_chunk_warns_once(monkeypatch):
    """Rank 1 with order=none starts on rank 0's rows (test_gpu_nccl_risk.py)."""
    workload, program, w, log, inputs, fused = _fused(monkeypatch, "ag_gemm.py", "nccl", rank=1, order="none")
    monkeypatch.setattr(dist, "broadcast", lambda *a, **k: None)
    full = torch.cat([i["a"] for i in inputs])
    c = torch.empty(full.shape[0], inputs[1]["b"].shape[1])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            _gemm(workload, fused, full, inputs[1]["b"], c)
    starving = [x for x in caught if issubclass(x.category, RuntimeWarning) and "NCCL" in str(x.message)]
    assert len(starving) == 1


@pytest.mark.parametrize("value, passes", [(14, True), (15, True), (13, False), (0, False)])
def test_the_stream_wait_holds_until_epoch_times_count(value, passes):
    """Epoch 7, 2 tiles per chunk: the wait passes at 14 and above only (in
    the interpreter; a bounded spin reports the wait that ran out)."""
    flags = torch.tensor([0, value], dtype=torch.int32)
    epoch, report = torch.tensor([7], dtype=torch.int32), torch.zeros(4, dtype=torch.int32)
    wait_flag(flags, 1, 2, epoch, 20, report)
    assert (report[0].item() == 0) == passes
    if not passes:
        assert report[2:].tolist() == [1, value]  # which word, and what it held

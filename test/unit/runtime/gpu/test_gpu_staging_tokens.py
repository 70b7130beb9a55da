"""Staging tokens of the ce reduce-scatter (runtime/staging.py), on the GPU
World's real ``reduce_scatter.reduce`` with the device calls recorded (no GPU): a source
takes each owner's token before its first send, and every owner returns
the token of every source that staged partials with it when its next
launch begins (its stream has read the last launch's partials by then),
before it waits for any token itself. Together they replace the barrier of
all ranks that ended every launch: a launch can no longer overwrite a
staging slot whose partial its owner has not read, no rank waits for a
token nobody returns, and nothing is left after the last read."""

import contextlib

import pytest
import torch
from test_gpu_reduce_order import plan_and_chunks

from syncopate.runtime import gpu as gpu_world
from syncopate.runtime.abi import LaunchPlan, SyncState
from syncopate.runtime.gpu import device, reduce_scatter
from syncopate.runtime.gpu import rank as gpu_rank
from syncopate.runtime.gpu import FLAG_CAPACITY
from syncopate.runtime.staging import StagingError, StagingLayout, owner_regions

N = 8  # columns of the reduce-scattered output


def _record(monkeypatch, world: int, rank: int):
    """A GpuWorld whose device calls append to a log: (what, pad owner, word, value)."""
    log: list = []
    w = gpu_world.GpuWorld(rank=rank, world=world, device=torch.device("cpu"), group=None, comm_stream=None)
    pads = {r: torch.zeros(FLAG_CAPACITY, dtype=torch.int32) for r in range(world)}
    owner_of = {pads[r].data_ptr(): r for r in pads}
    monkeypatch.setattr(device, "wait_flag", lambda flags, index, count, *a, least=0: log.append(
        ("wait", owner_of[flags.data_ptr()], index, least or count)))
    monkeypatch.setattr(device, "write_value", lambda flags, index, value: log.append(
        ("write", owner_of[flags.data_ptr()], index, value)))
    monkeypatch.setattr(device, "write_epoch", lambda flags, index, epoch: log.append(
        ("arrival", owner_of[flags.data_ptr()], index, None)))
    monkeypatch.setattr(device, "zero_words", lambda flags, words: log.append(
        ("zero", owner_of[flags.data_ptr()], tuple(words.tolist()), 0)))
    monkeypatch.setattr(torch.cuda, "stream", lambda stream: contextlib.nullcontext())
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: False)
    monkeypatch.setattr(w, "symmetric", lambda source: source)
    monkeypatch.setattr(w, "lanes", lambda count: contextlib.nullcontext([None] * max(count, 1)))
    monkeypatch.setattr(w, "peer_view", lambda buf, peer, what="tensor": pads[peer] if what == "signal pad" else buf)
    sync = SyncState(pads[rank], torch.zeros(1, dtype=torch.int32), torch.zeros(4, dtype=torch.int32))
    return w, sync, log


def _run(monkeypatch, order: str, world: int, per_rank: int, rank: int, fused: bool, tiles: int = 0):
    plan, chunks = plan_and_chunks(order, world, per_rank)
    w, sync, log = _record(monkeypatch, world, rank)
    out = torch.zeros(16 * world * per_rank, N)
    layout = reduce_scatter.ce_reduce_schedule(tuple(chunks), rank, world)[0]
    w.staging_for(sync, layout, out)
    assert log == []  # no token is set up front: the first launch returns them
    counts = {(c.plan, c.id): tiles for c in chunks}
    reduce_scatter.reduce(w, 1, plan, chunks, {plan.tensors[0].param.data: out}, sync, counts, fused)
    return layout, log


CASES = [(o, w, p) for o in ("ring", "direct") for w in (2, 3, 4) for p in (1, 2)]


@pytest.mark.parametrize("fused", [False, True], ids=["stream", "epilogue"])
@pytest.mark.parametrize("order, world, per_rank", CASES)
def test_a_source_takes_every_owners_token_before_its_first_send(monkeypatch, order, world, per_rank, fused):
    for rank in range(world):
        layout, log = _run(monkeypatch, order, world, per_rank, rank, fused)
        first_send = next(i for i, e in enumerate(log) if e[0] == "arrival")
        owners = [o for o in range(world) if o != rank]
        takes = [e for e in log[:first_send] if e[1] == rank and e[2] in {layout.token(o) for o in owners}]
        # wait until every owner's token is there (>= 1), then take them (0), in this rank's own pad: one batch
        sends_to = _send_owners(log, layout, rank)
        assert takes == ([("wait", rank, layout.token(o), 1) for o in sends_to] +
                         [("write", rank, layout.token(o), 0) for o in sends_to])
        assert sorted(_send_owners(log, layout, rank)) == owners
        assert not [e for e in log[first_send:] if e[2] in {layout.token(o) for o in owners} and e[1] == rank]


@pytest.mark.parametrize("fused", [False, True], ids=["stream", "epilogue"])
@pytest.mark.parametrize("order, world, per_rank", CASES)
def test_an_owner_returns_every_sources_token_as_its_launch_begins(monkeypatch, order, world, per_rank, fused):
    returned = {}
    for rank in range(world):
        layout, log = _run(monkeypatch, order, world, per_rank, rank, fused)
        gives = [i for i, e in enumerate(log) if e[0] == "write" and e[1] != rank]
        assert all(log[i][2:] == (layout.token(rank), 1) for i in gives)
        returned[rank] = [log[i][1] for i in gives]
        # first thing on the stream: before it waits for any token (else two ranks would wait for each other)
        assert gives == list(range(len(gives)))
        tokens = {layout.token(o) for o in range(world)}
        first_send = next(i for i, e in enumerate(log) if e[0] == "arrival")
        assert not [e for e in log[first_send:] if e[2] in tokens]  # nothing after the reads: off the critical path
    for rank in range(world):  # every token a source waits for comes back, once per launch
        assert sorted(returned[rank]) == [s for s in range(world) if s != rank]


@pytest.mark.parametrize("fused", [False, True], ids=["stream", "epilogue"])
@pytest.mark.parametrize("order, world, per_rank", CASES)
def test_produced_flags_wait_for_this_launchs_tiles_then_are_zeroed(monkeypatch, order, world, per_rank, fused):
    """A produced flag counts one launch's tile signals: the stream waits
    for the tile count itself (no epoch: configurations of other tiles
    share the pad), and zeroes every flag it waited for once, after the
    last of those waits, before the next launch's tiles add to them."""
    for rank in range(world):
        _, log = _run(monkeypatch, order, world, per_rank, rank, fused, tiles=3)
        produced = [i for i, e in enumerate(log) if e[0] == "wait" and e[2] < FLAG_CAPACITY // 2]
        assert produced and all(log[i][1:] == (rank, log[i][2], 3) for i in produced)
        zeroes = [i for i, e in enumerate(log) if e[0] == "zero"]
        assert zeroes == [len(log) - 1]  # once, the stream's last operation: after every wait
        assert log[-1][1] == rank and set(log[-1][2]) == {log[i][2] for i in produced}


def _send_owners(log: list, layout: StagingLayout, rank: int) -> list[int]:
    """The owners whose tokens ``rank`` waited for, in order."""
    by_word = {layout.token(o): o for o in range(layout.world)}
    return [by_word[e[2]] for e in log if e[0] == "wait" and e[1] == rank and e[2] in by_word]


def test_tokens_sit_after_the_arrival_flags_and_count_against_the_pad():
    plan, chunks = plan_and_chunks("direct", 4, 2)
    layout = StagingLayout(owner_regions(chunks), 4, FLAG_CAPACITY // 2, FLAG_CAPACITY)
    arrivals = {layout.flag(r, s) for r in owner_regions(chunks) for s in range(4) if s != r.dst}
    tokens = [layout.token(o) for o in range(4)]
    assert min(tokens) > max(arrivals) and tokens == list(range(tokens[0], tokens[0] + 4))
    assert layout.flag_end == tokens[-1] + 1
    needed = layout.flag_end - FLAG_CAPACITY // 2
    with pytest.raises(StagingError, match="4 staging tokens"):
        StagingLayout(owner_regions(chunks), 4, 0, needed - 1)
    StagingLayout(owner_regions(chunks), 4, 0, needed)  # exactly enough


def test_a_spin_report_on_a_token_names_the_owner_that_kept_it():
    plan, chunks = plan_and_chunks("direct", 2, 1)
    launch = LaunchPlan.__new__(LaunchPlan)
    launch.plans, launch.chunks = {"rs": plan}, {"rs": chunks}
    layout = reduce_scatter.ce_reduce_schedule(tuple(chunks), 1, 2)[0]
    sync = SyncState(torch.zeros(FLAG_CAPACITY, dtype=torch.int32), torch.tensor([7], dtype=torch.int32),
                     torch.tensor([1, 3, layout.token(0), 0], dtype=torch.int32), spin_limit=100)
    message = sync.timeout(launch, 1, gpu_rank.token_words(launch, 1, 2))
    assert message == ("rank 1: program 3 gave up waiting for rank 0's staging token of @rs (rank 0 has not started "
                       "this launch, so it may still read this rank's last partials): flag 0, expected >= 1 after 100 polls")


def _launch(*specs: tuple[str, str]) -> LaunchPlan:
    """A LaunchPlan of plans (spec, chunk backend) at W = 2."""
    import dataclasses

    from syncopate.ir.analysis import deps
    from syncopate.ir.context import make_context
    from syncopate.ir.plans.cli import load_plans

    launch = LaunchPlan.__new__(LaunchPlan)
    plans = load_plans([spec for spec, _ in specs], make_context())
    launch.plans = {p.sym_name.data: p for p in plans}
    launch.chunks = {p.sym_name.data: [dataclasses.replace(c, backend=backend)
                                       for c in deps.concrete_chunks(p, {"M": 32}, 0)]
                     for p, (_, backend) in zip(plans, specs)}
    return launch


def test_two_staged_reduce_scatters_in_one_launch_are_refused():
    """Their staging layouts would share arrival flags, tokens and (same shape) the buffer."""
    both = _launch(("reduce-scatter{tensor=c_ptr dim=0 world=2}", "ce"),
                   ("reduce-scatter{tensor=d_ptr dim=0 world=2 name=rs2}", "ce"))
    assert gpu_world.staged_reductions_refusal(both) == (
        "plans @rs, @rs2 are reduce-scatters on the ce backend; the GPU runtime stages one such plan per program. "
        "Use backend=nccl for all but one, or split the kernel.")
    one_nccl = _launch(("reduce-scatter{tensor=c_ptr dim=0 world=2}", "ce"),
                       ("reduce-scatter{tensor=d_ptr dim=0 world=2 name=rs2}", "nccl"),
                       ("all-gather{tensor=a_ptr dim=0 world=2}", "ce"))
    assert gpu_world.staged_reductions_refusal(one_nccl) is None

"""The per-shape choice between the fused and the unfused path of
syncopate.ops (pytorch/op_path.py), on CPU: the fused kernel is made to
accept every call, the two paths are stand-ins that record their calls
(or the fused path's own code with the GEMM stubbed), and the timer, the
cross-rank agreement and the rank alignment are stubs whose answers each
test sets. Two checks at the end run the real agreement and timer on two
gloo ranks."""

from __future__ import annotations

import logging
import time
import types
import warnings

import pytest
import torch
import torch.distributed as dist

import syncopate
from syncopate.pytorch import fused_ops, gemm_choice, op_path, unfused_ops, worlds

WORLD, K, N = 2, 8, 4
MS = 1e-3


def _gathered(A: torch.Tensor, gather_dim: int) -> torch.Tensor:
    """What the gather gives when every rank's shard equals this one."""
    return torch.cat([A] * WORLD, dim=gather_dim)


class Fake:
    """The stubbed world: which path ran (in order), what each path's timed
    block takes on this rank and on the peer, what was timed and agreed."""

    def __init__(self):
        self.ran: list[str] = []
        self.seconds = {"fused": 1 * MS, "unfused": 2 * MS}
        self.peer = [0.0, 0.0]  # the peer's [fused, unfused] per-call seconds
        self.timed: list[str] = []
        self.agreed: list[list[float]] = []
        self.aligned = 0
        self.capturing = False
        self.device_seconds: dict[str, float] | None = None  # None: no device times (a CPU group)
        self.device_runs: list[str] = []

    def ag(self, path):
        def run(A, Bs, gather_dim, group_name, return_A):
            self.ran.append(path)
            full = _gathered(A, gather_dim)
            return (full if return_A else None), [full @ B for B in Bs]
        return run

    def rs(self, path):
        def run(A, B, reduce_op, scatter_dim, group_name):
            self.ran.append(path)
            total = WORLD * (A @ B)
            return total.chunk(WORLD, scatter_dim)[0] / (WORLD if reduce_op == "avg" else 1)
        return run

    def time_calls(self, fn, calls):
        fn()
        self.timed.append(self.ran[-1])
        return self.seconds[self.ran[-1]]

    def device_timed(self, group_name):
        return self.device_seconds is not None

    def device_time_calls(self, fn, calls, host_s):
        fn()
        self.device_runs.append(self.ran[-1])
        return self.device_seconds[self.ran[-1]]

    def agree(self, times, group_name):
        self.agreed.append(list(times))
        peer = self.peer + [0.0] * (len(times) - len(self.peer))  # the peer's times in the same order
        return [max(mine, theirs) for mine, theirs in zip(times, peer, strict=True)]

    def align(self, group_name):
        self.aligned += 1


def _stub_world(monkeypatch, f: Fake) -> None:
    """op_path's timer, agreement, alignment and capture test; a group of WORLD ranks; no refusal."""
    monkeypatch.delenv(op_path.ENV, raising=False)
    monkeypatch.setattr(op_path, "_CHOICES", {})
    monkeypatch.setattr(op_path, "time_calls", f.time_calls)
    monkeypatch.setattr(op_path, "agree", f.agree)
    monkeypatch.setattr(op_path, "device_time_calls", f.device_time_calls)
    monkeypatch.setattr(op_path, "device_timed", f.device_timed)
    monkeypatch.setattr(op_path, "align", f.align)
    monkeypatch.setattr(op_path, "capturing", lambda: f.capturing)
    monkeypatch.setattr(unfused_ops, "process_group", lambda name: types.SimpleNamespace(size=lambda: WORLD))
    monkeypatch.setattr(fused_ops, "all_gather_matmul_refusal", lambda *args: None)
    monkeypatch.setattr(fused_ops, "matmul_reduce_scatter_refusal", lambda *args: None)


@pytest.fixture
def fake(monkeypatch):
    f = Fake()
    _stub_world(monkeypatch, f)
    for path, module in (("fused", fused_ops), ("unfused", unfused_ops)):
        monkeypatch.setattr(module, "all_gather_matmul", f.ag(path))
        monkeypatch.setattr(module, "matmul_reduce_scatter", f.rs(path))
    syncopate.stats(reset=True)
    yield f
    syncopate.stats(reset=True)


def _ag(rows, width=K, n=N, return_A=True, dtype=torch.float32):
    A, B = torch.randn(rows, width, dtype=dtype), torch.randn(width, n, dtype=dtype)
    gathered, (out,) = syncopate.ops.all_gather_matmul(A, [B], 0, "g", return_A=return_A)
    full = _gathered(A, 0)
    if return_A:
        torch.testing.assert_close(gathered, full)
    torch.testing.assert_close(out, full @ B)


def _rs(rows, reduce_op="sum"):
    A, B = torch.randn(rows, K), torch.randn(K, N)
    out = syncopate.ops.matmul_reduce_scatter(A, B, reduce_op, 0, "g")
    torch.testing.assert_close(out, (WORLD * (A @ B))[:rows // WORLD] / (WORLD if reduce_op == "avg" else 1))


@pytest.mark.parametrize("faster, slower", [("fused", "unfused"), ("unfused", "fused")])
def test_the_faster_path_is_measured_once_and_cached(fake, faster, slower):
    fake.seconds = {faster: 1 * MS, slower: 3 * MS}
    _ag(64)
    assert fake.timed == ["fused", "unfused"] * op_path.ROUNDS
    assert fake.aligned == 2 * op_path.ROUNDS
    assert fake.ran.count("fused") == fake.ran.count("unfused") == op_path.WARMUPS + op_path.ROUNDS
    fake.ran.clear()
    fake.timed.clear()
    _ag(64)
    _ag(64)
    assert fake.timed == [] and fake.ran == [faster, faster]
    _rs(64)  # the other op has its own choice
    assert fake.timed == ["fused", "unfused"] * op_path.ROUNDS
    assert syncopate.stats() == {"all_gather_matmul": {faster: 3, slower: 0},
                                 "matmul_reduce_scatter": {faster: 1, slower: 0}}


def test_the_ranks_decide_on_the_slowest_ranks_times(fake):
    """This rank finds fused faster, the peer finds it slower: both take the slowest rank's view."""
    fake.seconds = {"fused": 1 * MS, "unfused": 2 * MS}
    fake.peer = [3 * MS, 2 * MS]
    _ag(64)
    assert fake.agreed == [[1 * MS, 2 * MS]]
    assert [c.path for c in op_path.choices().values()] == ["unfused"]
    fake.ran.clear()
    _ag(64)
    assert fake.ran == ["unfused"]


def test_a_tie_goes_to_the_unfused_path(fake):
    fake.seconds = {"fused": 2 * MS, "unfused": 1 * MS}
    fake.peer = [0.0, 2 * MS]
    _ag(64)
    (choice,) = op_path.choices().values()
    assert (choice.path, choice.fused_s, choice.unfused_s) == ("unfused", 2 * MS, 2 * MS)


@pytest.mark.parametrize("fused, chosen", [(0.97, "unfused"), (0.94, "fused")])
def test_the_fused_path_must_be_a_margin_faster(fake, fused, chosen):
    """Within MARGIN of the unfused path (timing noise), the op runs what
    NCCL + cuBLAS code runs; beyond it, the faster path."""
    fake.seconds = {"fused": fused * MS, "unfused": 1 * MS}
    _ag(64)
    (choice,) = op_path.choices().values()
    assert choice.path == chosen


def test_a_fused_path_close_to_the_unfused_one_is_not_taken_under_capture_either(fake):
    fake.seconds = {"fused": 2 * MS, "unfused": 1 * MS}
    fake.device_seconds = {"fused": 0.97 * MS, "unfused": 1 * MS}
    _ag(64)
    (choice,) = op_path.choices().values()
    assert (choice.path, choice.graph_path) == ("unfused", "unfused")


def test_rows_share_a_choice_per_power_of_two_bucket(fake):
    _ag(1000)
    assert len(fake.timed) == 2 * op_path.ROUNDS
    fake.timed.clear()
    _ag(1024)
    A = torch.randn(4, 256, K)  # 1024 rows once the leading dims are flattened
    syncopate.ops.all_gather_matmul(A, [torch.randn(K, N)], 0, "g")
    assert fake.timed == []
    _ag(1025)
    assert len(fake.timed) == 2 * op_path.ROUNDS
    assert sorted(k.rows_bucket for k in op_path.choices()) == [1024, 2048]


@pytest.mark.parametrize("other", [{"return_A": False}, {"width": 2 * K}, {"n": 2 * N}, {"dtype": torch.float64}])
def test_what_else_the_key_holds(fake, other):
    _ag(64)
    fake.timed.clear()
    _ag(64, **other)
    assert len(fake.timed) == 2 * op_path.ROUNDS


def test_the_reduce_op_does_not_matter(fake):
    _rs(64, "sum")
    fake.timed.clear()
    _rs(64, "avg")
    assert fake.timed == []


@pytest.mark.parametrize("forced, other", [("fused", "unfused"), ("unfused", "fused")])
def test_the_variable_forces_a_path_and_times_nothing(fake, monkeypatch, forced, other):
    fake.seconds = {forced: 5 * MS, other: 1 * MS}
    monkeypatch.setenv(op_path.ENV, forced)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _ag(64)
        _ag(64)
        _rs(64)
    assert fake.ran == [forced] * 3 and fake.timed == [] and fake.agreed == []
    assert op_path.choices() == {}
    assert not [w for w in caught if "no fused kernel" in str(w.message)]
    assert syncopate.stats() == {"all_gather_matmul": {forced: 2, other: 0},
                                 "matmul_reduce_scatter": {forced: 1, other: 0}}


def test_the_variable_overrides_a_measured_choice(fake, monkeypatch):
    fake.seconds = {"fused": 5 * MS, "unfused": 1 * MS}
    _ag(64)
    monkeypatch.setenv(op_path.ENV, "fused")
    fake.ran.clear()
    _ag(64)
    assert fake.ran == ["fused"]
    monkeypatch.setenv(op_path.ENV, "auto")
    fake.ran.clear()
    _ag(64)
    assert fake.ran == ["unfused"]


@pytest.mark.parametrize("value", ["fast", "Fused", "none"])
def test_an_invalid_value_raises(fake, monkeypatch, value):
    monkeypatch.setenv(op_path.ENV, value)
    message = f"SYNCOPATE_OPS_PATH='{value}': expected one of auto, fused, unfused"
    with pytest.raises(ValueError, match=message):
        _ag(64)
    with pytest.raises(ValueError, match=message):
        _rs(64)
    assert fake.ran == []


def test_a_refused_call_checks_the_variable_too(monkeypatch):
    monkeypatch.setenv(op_path.ENV, "fast")
    monkeypatch.setattr(unfused_ops, "process_group", lambda name: types.SimpleNamespace(size=lambda: WORLD))
    with pytest.raises(ValueError, match="SYNCOPATE_OPS_PATH"):
        syncopate.ops.all_gather_matmul(torch.randn(4, K), [torch.randn(K, N)], 0, "g")


def test_a_measured_unfused_choice_does_not_warn(fake):
    fake.seconds = {"fused": 5 * MS, "unfused": 1 * MS}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _ag(64)
        _ag(64)
    assert fake.ran[-1] == "unfused"
    assert not [w for w in caught if "no fused kernel" in str(w.message)]


@pytest.mark.parametrize("faster", ["fused", "unfused"])
def test_the_measuring_call_returns_the_chosen_paths_last_result(fake, faster):
    fake.seconds = {"fused": 1 * MS, "unfused": 2 * MS} if faster == "fused" else {"fused": 2 * MS, "unfused": 1 * MS}
    made = {"fused": [], "unfused": []}

    def path(name):
        def call():
            fake.ran.append(name)
            made[name].append(object())
            return made[name][-1]
        return call

    key = op_path.key("all_gather_matmul", "g", torch.empty(64, K), [torch.empty(K, N)], True)
    result = op_path.run(key, ((64, K), (K, N)), path("fused"), path("unfused"))
    assert result is made[faster][-1]


class _Gemm:
    """A launchable stand-in: ``kernel[grid](a, b, c, ...)`` runs ``body(a, b, c)``."""

    def __init__(self, body):
        self.body = body

    def __getitem__(self, grid):
        return lambda a, b, c, *args, **kwargs: self.body(a, b, c)


@pytest.fixture
def fused_code(monkeypatch):
    """The fused path's own code (pytorch/fused_ops.py) as rank 1 of WORLD,
    the GEMM and symmetric memory stubbed as in test_fused_ops_cpu.py (the
    peer's rows arrive during the GEMM); the unfused path a stand-in."""
    f = Fake()
    _stub_world(monkeypatch, f)
    f.shards = [torch.randn(64, K, generator=torch.Generator().manual_seed(r)) for r in range(WORLD)]

    def ag_gemm(a, b, c):
        a[:64] = f.shards[0]
        c.copy_(a @ b)

    kernels = {"ag": _Gemm(ag_gemm), "rs": _Gemm(lambda a, b, c: c.copy_(WORLD * (a @ b)))}

    def unfused_ag(A, Bs, gather_dim, group_name, return_A):
        f.ran.append("unfused")
        full = torch.cat(f.shards)
        return (full if return_A else None), [full @ B for B in Bs]

    def unfused_rs(A, B, reduce_op, scatter_dim, group_name):
        f.ran.append("unfused")
        return (WORLD * (A @ B)).chunk(WORLD)[1].clone()

    def counted(fn):
        def run(*args):
            f.ran.append("fused")
            return fn(*args)
        return run

    monkeypatch.setattr(fused_ops, "process_group", lambda name: types.SimpleNamespace(size=lambda: WORLD))
    monkeypatch.setattr(dist, "get_rank", lambda group=None: 1)
    monkeypatch.setattr(worlds, "empty", lambda shape, dtype, device, group: torch.full(shape, float("nan"),
                                                                                             dtype=dtype, device=device))
    monkeypatch.setattr(fused_ops, "_BUFFERS", {})
    monkeypatch.setattr(gemm_choice, "sms", lambda device: 132)  # an H100's SM count (no GPU here)
    monkeypatch.setattr(fused_ops, "_kernel", lambda kind, group_name, blocks=1: kernels[kind])
    monkeypatch.setattr(fused_ops, "all_gather_matmul", counted(fused_ops.all_gather_matmul))
    monkeypatch.setattr(fused_ops, "matmul_reduce_scatter", counted(fused_ops.matmul_reduce_scatter))
    monkeypatch.setattr(unfused_ops, "all_gather_matmul", unfused_ag)
    monkeypatch.setattr(unfused_ops, "matmul_reduce_scatter", unfused_rs)
    return f


@pytest.mark.parametrize("faster", ["fused", "unfused"])
def test_the_measuring_call_gives_torchs_result(fused_code, faster):
    f = fused_code
    f.seconds = {faster: 1 * MS, ("unfused" if faster == "fused" else "fused"): 2 * MS}
    b = torch.randn(K, N)
    gathered, (out,) = syncopate.ops.all_gather_matmul(f.shards[1], [b], 0, "g")
    full = torch.cat(f.shards)
    torch.testing.assert_close(gathered, full)
    torch.testing.assert_close(out, full @ b)
    a = torch.randn(WORLD * 64, K)
    out = syncopate.ops.matmul_reduce_scatter(a, b, "sum", 0, "g")
    torch.testing.assert_close(out, (WORLD * (a @ b))[64:])
    assert [c.path for c in op_path.choices().values()] == [faster, faster]
    assert "fused" in f.ran and "unfused" in f.ran  # both paths really ran while measuring


def _choice_lines(caplog):
    return [r.getMessage() for r in caplog.records if r.name == "syncopate" and "rows bucket" in r.getMessage()]


def test_the_choice_is_logged_once_per_key_with_its_reason(fake, caplog):
    caplog.set_level(logging.INFO, logger="syncopate")
    fake.seconds = {"fused": 2 * MS, "unfused": 1 * MS}
    _ag(1000)
    _ag(1000)
    _ag(1024)
    fake.seconds = {"fused": 1 * MS, "unfused": 1.5 * MS}
    _ag(1025)
    assert _choice_lines(caplog) == [
        f"syncopate.ops.all_gather_matmul on 1000x{K}, {K}x{N} (rows bucket 1024): unfused "
        "(measured 2.000 ms fused vs 1.000 ms unfused per call, slowest rank of 2)",
        f"syncopate.ops.all_gather_matmul on 1025x{K}, {K}x{N} (rows bucket 2048): fused "
        "(measured 1.000 ms fused vs 1.500 ms unfused per call, slowest rank of 2)",
    ]
    caplog.clear()
    fake.timed.clear()
    syncopate.stats(reset=True)  # a reset logs each choice again at its next call; it does not measure again
    _ag(1024)
    _ag(1024)
    assert _choice_lines(caplog) == [f"syncopate.ops.all_gather_matmul on 1024x{K}, {K}x{N} (rows bucket 1024): unfused "
                                     "(measured 2.000 ms fused vs 1.000 ms unfused per call, slowest rank of 2)"]
    assert fake.timed == []


def test_a_forced_path_is_logged_once_per_key(fake, monkeypatch, caplog):
    caplog.set_level(logging.INFO, logger="syncopate")
    monkeypatch.setenv(op_path.ENV, "unfused")
    _ag(64)
    _ag(64)
    assert _choice_lines(caplog) == [f"syncopate.ops.all_gather_matmul on 64x{K}, {K}x{N} (rows bucket 64): unfused "
                                     "(forced by SYNCOPATE_OPS_PATH=unfused)"]


def test_under_capture_without_a_choice_the_fused_path_runs_untimed(fake, caplog):
    caplog.set_level(logging.INFO, logger="syncopate")
    fake.seconds = {"fused": 5 * MS, "unfused": 1 * MS}
    fake.capturing = True
    _ag(64)
    _ag(64)
    assert fake.ran == ["fused", "fused"] and fake.timed == [] and fake.aligned == 0 and fake.agreed == []
    assert op_path.choices() == {}  # not cached: an eager call still measures
    (line,) = _choice_lines(caplog)
    assert ": fused (under CUDA-graph capture" in line
    fake.capturing = False
    _ag(64)
    assert len(fake.timed) == 2 * op_path.ROUNDS
    assert [c.path for c in op_path.choices().values()] == ["unfused"]
    fake.capturing = True  # captured after the eager call: the measured choice, untimed
    fake.ran.clear()
    fake.timed.clear()
    _ag(64)
    assert fake.ran == ["unfused"] and fake.timed == []


def test_under_capture_the_device_times_choose(fake, caplog):
    """Eagerly the unfused path wins (the fused one pays host time), on the
    device the fused one: a capture takes the fused path, an eager call the
    unfused one, each settled for its own mode."""
    caplog.set_level(logging.INFO, logger="syncopate")
    fake.seconds = {"fused": 5 * MS, "unfused": 1 * MS}
    fake.device_seconds = {"fused": 1 * MS, "unfused": 2 * MS}
    _ag(64)
    assert fake.device_runs == ["fused", "unfused"] * op_path.ROUNDS
    assert fake.aligned == 4 * op_path.ROUNDS  # every device block aligned too
    assert fake.agreed == [[5 * MS, 1 * MS, 1 * MS, 2 * MS]]  # one agreement for both modes
    (choice,) = op_path.choices().values()
    assert (choice.path, choice.graph_path) == ("unfused", "fused")
    for captured, path in ((True, "fused"), (False, "unfused"), (True, "fused"), (False, "unfused")):
        fake.capturing = captured
        fake.ran.clear()
        _ag(64)
        assert fake.ran == [path], (captured, fake.ran)
    assert fake.timed == ["fused", "unfused"] * op_path.ROUNDS  # nothing measured again
    lines = _choice_lines(caplog)
    assert any(line.endswith(": fused (under CUDA-graph capture: measured 1.000 ms fused vs 2.000 ms unfused of "
                             "device time per call, slowest rank of 2)") for line in lines), lines


def test_the_graph_path_takes_the_slowest_ranks_device_times(fake):
    fake.seconds = {"fused": 1 * MS, "unfused": 2 * MS}
    fake.device_seconds = {"fused": 1 * MS, "unfused": 2 * MS}
    fake.peer = [0.0, 0.0, 3 * MS, 2 * MS]
    _ag(64)
    (choice,) = op_path.choices().values()
    assert (choice.path, choice.graph_path) == ("fused", "unfused")
    assert (choice.fused_device_s, choice.unfused_device_s) == (3 * MS, 2 * MS)


def test_a_device_time_tie_goes_to_the_unfused_path(fake):
    fake.seconds = {"fused": 2 * MS, "unfused": 1 * MS}
    fake.device_seconds = {"fused": 1 * MS, "unfused": 1 * MS}
    _ag(64)
    (choice,) = op_path.choices().values()
    assert (choice.path, choice.graph_path) == ("unfused", "unfused")


def test_without_device_times_a_capture_takes_the_eager_choice(fake, caplog):
    caplog.set_level(logging.INFO, logger="syncopate")
    fake.seconds = {"fused": 5 * MS, "unfused": 1 * MS}
    _ag(64)
    assert fake.device_runs == []
    fake.capturing = True
    fake.ran.clear()
    _ag(64)
    assert fake.ran == ["unfused"]
    assert any("unfused (under CUDA-graph capture, no device times: the eager choice (measured" in line
               for line in _choice_lines(caplog))


def test_time_calls_calls_and_times_on_the_host():
    calls = []

    def slow():
        calls.append(1)
        time.sleep(0.002)

    per_call = op_path.time_calls(slow, 3)
    assert len(calls) == 3 and 0.002 <= per_call < 0.5


# Real agreement and timer, two gloo ranks (checks run by gloo_ranks in spawned processes).

def gloo_agree_takes_the_largest(rank, world):
    group_name = dist.group.WORLD.group_name
    op_path.align(group_name)
    assert op_path.agree([1.0 + rank, 2.0 - rank, 0.5], group_name) == [2.0, 2.0, 0.5]


def gloo_ranks_take_the_same_path(rank, world):
    """Rank 0 finds fused faster, rank 1 finds it slower: both run unfused, the slowest rank's view."""
    group_name = dist.group.WORLD.group_name
    op_path._CHOICES.clear()
    sleeps = {"fused": 0.0 if rank == 0 else 0.010, "unfused": 0.003}

    def path(name):
        def call():
            time.sleep(sleeps[name])
            return name
        return call

    key = op_path.key("all_gather_matmul", group_name, torch.empty(64, K), [torch.empty(K, N)], True)
    assert op_path.run(key, ((64, K), (K, N)), path("fused"), path("unfused")) == "unfused"
    (choice,) = op_path.choices().values()
    assert choice.path == "unfused" and choice.fused_s >= 0.010 and choice.ranks == world
    assert op_path.run(key, ((64, K), (K, N)), path("fused"), path("unfused")) == "unfused"


GLOO_CHECKS = ["gloo_agree_takes_the_largest", "gloo_ranks_take_the_same_path"]


@pytest.fixture(scope="module")
def gloo_results():
    from gloo_ranks import run_checks

    return run_checks("test_op_path", GLOO_CHECKS)


@pytest.mark.parametrize("check", GLOO_CHECKS)
def test_gloo_check_passes_on_every_rank(gloo_results, check):
    for rank, found in enumerate(gloo_results):
        assert found[check] is None, f"rank {rank}:\n{found[check]}"


# --- settled calls (pytorch/settled_calls.py): a call whose path is fixed skips its checks ---

def _counting(monkeypatch, module, name, log):
    real = getattr(module, name)

    def counted(*args, **kwargs):
        log.append(name)
        return real(*args, **kwargs)
    monkeypatch.setattr(module, name, counted)


@pytest.fixture
def checks(fake, monkeypatch):
    """The names of the checks each call ran, in order."""
    log: list[str] = []
    for module, name in ((unfused_ops, "check_all_gather_matmul"), (unfused_ops, "check_matmul_reduce_scatter"),
                         (fused_ops, "all_gather_matmul_refusal"), (fused_ops, "matmul_reduce_scatter_refusal"),
                         (op_path, "key")):
        _counting(monkeypatch, module, name, log)
    return log


def test_a_settled_call_runs_no_check_and_is_still_counted(fake, checks):
    _ag(64)
    _rs(64)
    assert checks == ["check_all_gather_matmul", "all_gather_matmul_refusal", "key",
                      "check_matmul_reduce_scatter", "matmul_reduce_scatter_refusal", "key"]
    checks.clear()
    fake.ran.clear()
    fake.timed.clear()
    for _ in range(3):
        _ag(64)
        _rs(64)
    assert checks == [] and fake.timed == []
    assert fake.ran == ["fused", "fused"] * 3
    assert syncopate.stats() == {"all_gather_matmul": {"fused": 4, "unfused": 0},
                                 "matmul_reduce_scatter": {"fused": 4, "unfused": 0}}


@pytest.mark.parametrize("change", ["strides", "dtype", "rows", "return_A", "group", "device variable"])
def test_anything_a_check_reads_sends_the_call_through_the_checks_again(fake, checks, monkeypatch, change):
    A, B = torch.randn(64, K), torch.randn(K, N)
    syncopate.ops.all_gather_matmul(A, [B], 0, "g")
    checks.clear()
    args, kwargs = [A, [B], 0, "g"], {}
    if change == "strides":  # same shape and dtype, not contiguous: the fused kernel's refusal must see it
        args[0] = torch.randn(K, 64).t()
    elif change == "dtype":
        args[0], args[1] = A.double(), [B.double()]
    elif change == "rows":
        args[0] = torch.randn(65, K)
    elif change == "return_A":
        kwargs["return_A"] = False
    elif change == "group":
        args[3] = "h"
    else:
        monkeypatch.setenv("TRITON_INTERPRET", "0")  # the fused kernel's refusal reads it
    syncopate.ops.all_gather_matmul(*args, **kwargs)
    assert checks[:2] == ["check_all_gather_matmul", "all_gather_matmul_refusal"]


def test_a_settled_refusal_stays_refused_per_call_and_is_logged_again_after_a_reset(fake, monkeypatch, caplog):
    caplog.set_level(logging.INFO, logger="syncopate")
    monkeypatch.setattr(fused_ops, "all_gather_matmul_refusal",
                        lambda A, Bs, dim, g: None if A.is_contiguous() else "a non-contiguous A")
    refused = torch.randn(K, 64).t()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        for _ in range(3):
            syncopate.ops.all_gather_matmul(refused, [torch.randn(K, N)], 0, "g")
    assert fake.ran == ["unfused"] * 3 and fake.timed == []
    assert syncopate.stats(reset=True) == {"all_gather_matmul": {"fused": 0, "unfused": 3}}
    lines = [r.getMessage() for r in caplog.records if "non-contiguous" in r.getMessage()]
    assert len(lines) == 1
    syncopate.ops.all_gather_matmul(refused, [torch.randn(K, N)], 0, "g")
    assert len([r for r in caplog.records if "non-contiguous" in r.getMessage()]) == 2
    assert syncopate.stats() == {"all_gather_matmul": {"fused": 0, "unfused": 1}}


def test_a_settled_call_follows_the_variable(fake, monkeypatch):
    _ag(64)
    monkeypatch.setenv(op_path.ENV, "unfused")
    fake.ran.clear()
    _ag(64)
    _ag(64)
    monkeypatch.setenv(op_path.ENV, "bogus")
    with pytest.raises(ValueError, match="SYNCOPATE_OPS_PATH='bogus'"):
        _ag(64)
    monkeypatch.delenv(op_path.ENV)
    _ag(64)
    assert fake.ran == ["unfused", "unfused", "fused"]


def test_the_settled_table_is_bounded(fake, monkeypatch):
    from syncopate.pytorch import settled_calls

    monkeypatch.setattr(settled_calls, "LIMIT", 4)
    monkeypatch.setenv(op_path.ENV, "fused")
    for rows in range(2, 12, 2):
        _ag(rows)
    assert 1 <= len(settled_calls._PATHS) <= 4


@pytest.fixture
def replay(fake, monkeypatch):
    """The fake world with the replayed path offered to every call (pytorch/replayed_ops.py)."""
    from syncopate.pytorch import replayed_ops

    monkeypatch.setattr(replayed_ops, "applies", lambda *args: True)
    monkeypatch.setattr(replayed_ops, "all_gather_matmul", fake.ag("replayed"))
    monkeypatch.setattr(replayed_ops, "matmul_reduce_scatter", fake.rs("replayed"))
    fake.seconds["replayed"] = 3 * MS
    fake.peer = [0.0, 0.0, 0.0]
    return fake


def test_the_replay_is_measured_beside_the_eager_paths_and_taken_when_fastest(replay, caplog):
    replay.seconds = {"fused": 3 * MS, "unfused": 2 * MS, "replayed": 1 * MS}
    with caplog.at_level(logging.INFO, logger="syncopate"):
        _ag(64)
    assert replay.timed == ["fused", "unfused", "replayed"] * op_path.ROUNDS
    assert all(replay.ran.count(p) == op_path.WARMUPS + op_path.ROUNDS for p in op_path.PATHS)
    (choice,) = op_path.choices().values()
    assert (choice.path, choice.replayed_s) == ("replayed", 1 * MS)
    assert "measured 3.000 ms fused vs 2.000 ms unfused vs 1.000 ms replayed per call" in caplog.text
    replay.ran.clear()
    _ag(64)
    _ag(64)
    assert replay.ran == ["replayed", "replayed"]
    assert syncopate.stats()["all_gather_matmul"] == {"fused": 0, "unfused": 0, "replayed": 3}


@pytest.mark.parametrize("seconds, chosen", [((1, 1, 1), "unfused"), ((2, 1, 1), "unfused"), ((2, 2, 1), "replayed"),
                                             ((1, 2, 1), "fused")])
def test_ties_go_to_unfused_then_to_fused(replay, seconds, chosen):
    replay.seconds = dict(zip(op_path.PATHS, (s * MS for s in seconds)))
    _rs(64)
    assert [c.path for c in op_path.choices().values()] == [chosen]


def test_a_call_the_replay_does_not_apply_to_measures_two_paths(fake):
    fake.seconds = {"fused": 2 * MS, "unfused": 1 * MS}
    _ag(64)
    assert fake.timed == ["fused", "unfused"] * op_path.ROUNDS
    (choice,) = op_path.choices().values()
    assert choice.replayed_s is None and "replayed" not in choice.reason


def test_the_variable_forces_the_replay_where_it_applies_and_unfused_elsewhere(fake, monkeypatch):
    from syncopate.pytorch import replayed_ops

    monkeypatch.setenv(op_path.ENV, "replayed")
    monkeypatch.setattr(replayed_ops, "all_gather_matmul", fake.ag("replayed"))
    _ag(64)  # replayed_ops.applies is the real one: not on CPU tensors
    assert fake.ran == ["unfused"] and fake.timed == []
    monkeypatch.setattr(replayed_ops, "applies", lambda *args: True)
    _ag(32)
    _ag(32)
    assert fake.ran == ["unfused", "replayed", "replayed"] and fake.timed == []
    assert syncopate.stats()["all_gather_matmul"] == {"fused": 0, "unfused": 1, "replayed": 2}

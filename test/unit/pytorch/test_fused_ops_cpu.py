"""The fused path of syncopate.ops (pytorch/fused_ops.py) on CPU: the GEMM
stands in for the fused kernel and the symmetric buffer for symmetric
memory, and the op is called back to back with new inputs. What it checks
is the op's own bookkeeping, which only a 2-GPU run covered before: this
rank's shard lands in its rows of the gathered buffer on every call, and
the reduce-scatter returns this rank's rows."""

from __future__ import annotations

import json
import types

import pytest
import torch
import torch.distributed as dist

from syncopate.ir.analysis import deps
from syncopate.ir.context import make_context
from syncopate.ir.plans.cli import load_plans
from syncopate.pytorch import fused_ops, gemm_choice, worlds
from syncopate.runtime.gpu import direct_collectives

WORLD, M, K, N = 3, 4, 16, 8  # rows per rank, A's width, B's width


def _shard(rank: int, call: int) -> torch.Tensor:
    return torch.randn(M, K, generator=torch.Generator().manual_seed(100 * call + rank))


def multiply(a: torch.Tensor, args: tuple) -> None:
    """What the GEMM launched with ``(a, *args)`` computes: ``c = a @ b``
    for the plain kernel's ``(b, c, M, N, K, ...)``, ``c_i = a @ b_i`` for
    each used slot of the shared-A kernel's ``(b0, b1, b2, c0, c1, c2, M,
    N0, N1, N2, K, ...)`` (an unused slot has width 0)."""
    if not isinstance(args[2], torch.Tensor):
        args[1].copy_(a @ args[0])
        return
    slots = fused_ops.SHARED_BS
    bs, cs, widths = args[:slots], args[slots:2 * slots], args[2 * slots + 1:3 * slots + 1]
    for b, c, n in zip(bs, cs, widths):
        if n:
            c.copy_(a @ b)


class FakeAllGatherGemm:
    """The fused all-gather GEMM of one rank: the peers' rows arrive (the
    peers' shards of ``call``), this rank's must already be there; then
    the products (:func:`multiply`). Keeps the grid of each launch."""

    def __init__(self, rank: int):
        self.rank, self.call, self.grids = rank, 0, []

    def __getitem__(self, grid):
        self.grids.append(grid)

        def run(a, *args, **kwargs):
            for peer in range(WORLD):
                if peer != self.rank:
                    a[peer * M:(peer + 1) * M] = _shard(peer, self.call)
            multiply(a, args)
        return run


class FakeReduceScatterGemm:
    """Every rank holds the same partial, so each owner's rows sum to W times it."""

    def __getitem__(self, grid):
        return lambda a, b, c, *args, **kwargs: c.copy_(WORLD * (a @ b))


def owned_rows(blocks: int, rows: int, rank: int) -> list[tuple[int, int]]:
    """The rows ``rank`` owns of the op's reduce-scatter plan of ``blocks`` over ``rows`` rows."""
    plan = load_plans([fused_ops.plan_for("rs", WORLD, blocks)], make_context())[0]
    return [(c.lo, c.hi) for c in deps.concrete_chunks(plan, {"M": rows}, 0) if c.is_local and c.dst == rank]


class PlannedReduceScatterGemm:
    """The fused GEMM + reduce-scatter of one rank under the plan the op
    compiles: every rank holds the same partial, and only the rows the plan
    gives this rank hold their sum (W times it); the rest are NaN. Keeps the
    A each launch is handed."""

    def __init__(self, rank: int, blocks: int):
        self.rank, self.blocks, self.launched = rank, blocks, []

    def __getitem__(self, grid):
        def run(a, b, c, *args, **kwargs):
            self.launched.append(a)
            c.fill_(float("nan"))
            for lo, hi in owned_rows(self.blocks, a.shape[0], self.rank):
                c[lo:hi] = WORLD * (a[lo:hi] @ b)
        return run


@pytest.fixture
def rank_of(monkeypatch):
    rank = [0]
    monkeypatch.setattr(fused_ops, "process_group", lambda name: types.SimpleNamespace(size=lambda: WORLD))
    monkeypatch.setattr(dist, "get_rank", lambda group=None: rank[0])
    monkeypatch.setattr(worlds, "empty", lambda shape, dtype, device, group: torch.full(shape, float("nan"),
                                                                                             dtype=dtype, device=device))
    monkeypatch.setattr(fused_ops, "_BUFFERS", {})
    monkeypatch.setattr(gemm_choice, "sms", lambda device: 132)  # an H100's SM count (no GPU here)
    return rank


@pytest.mark.parametrize("rank", range(WORLD))
def test_all_gather_matmul_multiplies_this_calls_shards(monkeypatch, rank_of, rank):
    rank_of[0] = rank
    kernel = FakeAllGatherGemm(rank)
    monkeypatch.setattr(fused_ops, "_kernel", lambda kind, group, blocks=1: kernel)
    b = torch.randn(K, N)
    for call in range(3):  # back to back, a new shard each call, one kept buffer
        kernel.call = call
        gathered, outs = fused_ops.all_gather_matmul(_shard(rank, call), [b, 2 * b], 0, "g", return_A=True)
        full = torch.cat([_shard(r, call) for r in range(WORLD)])
        torch.testing.assert_close(gathered, full)
        torch.testing.assert_close(outs[0], full @ b)
        torch.testing.assert_close(outs[1], full @ (2 * b))


def _weights(widths: tuple[int, ...], layout: str) -> list[torch.Tensor]:
    """B's of ``widths``: nn.Linear weights transposed ("nk"), contiguous K x N ("kn"), or alternating ("mixed")."""
    def one(i: int, n: int) -> torch.Tensor:
        nk = layout == "nk" or layout == "mixed" and i % 2 == 0
        return torch.randn(n, K).t() if nk else torch.randn(K, n)
    return [one(i, n) for i, n in enumerate(widths)]


@pytest.mark.parametrize("rank", range(WORLD))
@pytest.mark.parametrize("count", [2, 3, 5])
@pytest.mark.parametrize("layout", ["nk", "kn"])
def test_shared_inputs_run_in_one_fused_launch(monkeypatch, rank_of, rank, count, layout):
    """Two or three B's of one layout (Q/K/V, gate/up) run in one launch of
    the shared-A kernel, told the layout, whose grid covers every B's column
    tiles; B's past the third multiply the gathered rows after it. Each
    output is its own contiguous tensor."""
    rank_of[0] = rank
    kernel = FakeAllGatherGemm(rank)
    launched = []
    monkeypatch.setattr(fused_ops, "_kernel", lambda kind, group, blocks=1: launched.append(kind) or kernel)
    widths = (24, 8, 8, 16, 4)[:count]
    bs = _weights(widths, layout)
    assert fused_ops.shared_layout(bs[:3]) is (layout == "nk")
    for call in range(2):
        kernel.call = call
        _, outs = fused_ops.all_gather_matmul(_shard(rank, call), bs, 0, "g", return_A=False)
        full = torch.cat([_shard(r, call) for r in range(WORLD)])
        for b, out in zip(bs, outs):
            assert out.is_contiguous()
            torch.testing.assert_close(out, full @ b)
    assert launched == ["ag-shared", "ag-shared"]
    tile = gemm_choice.gemm_tile(WORLD * M, sum(widths[:3]), 132)
    assert kernel.grids[-1] == (1, sum(-(-n // tile.block_n) for n in widths[:3]))


@pytest.mark.parametrize("rank", range(WORLD))
def test_shared_inputs_of_mixed_layouts_fuse_the_first(monkeypatch, rank_of, rank):
    """B's of two layouts (or any other strides) have no one ``B_NK``: the
    plain fused GEMM runs the first, torch.matmul the rest, all exact."""
    rank_of[0] = rank
    kernel = FakeAllGatherGemm(rank)
    launched = []
    monkeypatch.setattr(fused_ops, "_kernel", lambda kind, group, blocks=1: launched.append(kind) or kernel)
    bs = _weights((24, 8, 8), "mixed")
    assert fused_ops.shared_layout(bs) is None
    _, outs = fused_ops.all_gather_matmul(_shard(rank, 0), bs, 0, "g", return_A=False)
    full = torch.cat([_shard(r, 0) for r in range(WORLD)])
    for b, out in zip(bs, outs):
        torch.testing.assert_close(out, full @ b)
    assert launched == ["ag"]


@pytest.mark.parametrize("rank", range(WORLD))
@pytest.mark.parametrize("op", ["sum", "avg"])
def test_matmul_reduce_scatter_returns_this_ranks_rows(monkeypatch, rank_of, rank, op):
    rank_of[0] = rank
    monkeypatch.setattr(fused_ops, "_kernel", lambda kind, group, blocks=1: FakeReduceScatterGemm())
    b = torch.randn(K, N)
    for call in range(2):
        a = torch.randn(WORLD * M, K, generator=torch.Generator().manual_seed(call))
        out = fused_ops.matmul_reduce_scatter(a, b, op, 0, "g")
        total = WORLD * (a @ b)
        want = total[rank * M:(rank + 1) * M] / (WORLD if op == "avg" else 1)
        torch.testing.assert_close(out, want)


@pytest.mark.parametrize("rank", range(WORLD))
def test_a_batch_of_one_gathers_and_scatters_along_the_sequence_dim(monkeypatch, rank_of, rank):
    """[1, s, h] activations with the collective on dim 1 (the tp styles'
    default) run the same rows as dim 0: no copy, the right shapes."""
    rank_of[0] = rank
    kernel = FakeAllGatherGemm(rank)
    monkeypatch.setattr(fused_ops, "_kernel", lambda kind, group, blocks=1: kernel)
    b = torch.randn(K, N)
    gathered, (out,) = fused_ops.all_gather_matmul(_shard(rank, 0)[None], [b], 1, "g", return_A=True)
    full = torch.cat([_shard(r, 0) for r in range(WORLD)])[None]
    assert out.shape == (1, WORLD * M, N)
    torch.testing.assert_close(gathered, full)
    torch.testing.assert_close(out, full @ b)
    monkeypatch.setattr(fused_ops, "_kernel", lambda kind, group, blocks=1: PlannedReduceScatterGemm(rank, blocks))
    a = torch.randn(1, WORLD * M, K)
    out = fused_ops.matmul_reduce_scatter(a, b, "sum", 1, "g")
    assert out.shape == (1, M, N)
    torch.testing.assert_close(out, (WORLD * (a @ b))[:, rank * M:(rank + 1) * M])


@pytest.mark.parametrize("rank", range(WORLD))
@pytest.mark.parametrize("shape, dim", [((2, M, K), 1), ((2, 3, M, K), 2), ((M, 2, K), 0), ((2, M, 3, K), 1)],
                         ids=["[b,s,h] dim 1", "[b,h,s,d] dim 2", "[s,b,h] dim 0", "dim 1 of 4"])
def test_a_batch_gathers_and_scatters_along_its_own_dim(monkeypatch, rank_of, rank, shape, dim):
    """A batch of two or more with the collective on a later dim: the rows
    move rank-major along that dim and the results come back in A's dim
    order, the same values as gathering and scattering along ``dim``."""
    rank_of[0] = rank
    shards = [torch.randn(*shape, generator=torch.Generator().manual_seed(7 * r + 1)) for r in range(WORLD)]
    full = torch.cat(shards, dim=dim)

    class Gather(FakeAllGatherGemm):
        def __getitem__(self, grid):
            def run(a, *args, **kwargs):
                for peer in range(WORLD):
                    if peer != self.rank:
                        rows = shards[peer].movedim(dim, 0).reshape(-1, K)
                        a[peer * rows.shape[0]:(peer + 1) * rows.shape[0]] = rows
                multiply(a, args)
            return run

    monkeypatch.setattr(fused_ops, "_kernel", lambda kind, group, blocks=1: Gather(rank))
    b = torch.randn(K, N)
    gathered, outs = fused_ops.all_gather_matmul(shards[rank], [b, 2 * b], dim, "g", return_A=True)
    torch.testing.assert_close(gathered, full)
    torch.testing.assert_close(outs[0], full @ b)
    torch.testing.assert_close(outs[1], full @ (2 * b))
    monkeypatch.setattr(fused_ops, "_kernel", lambda kind, group, blocks=1: PlannedReduceScatterGemm(rank, blocks))
    for op in ("sum", "avg"):
        out = fused_ops.matmul_reduce_scatter(full, b, op, dim, "g")
        want = (WORLD * (full @ b)).chunk(WORLD, dim=dim)[rank] / (WORLD if op == "avg" else 1)
        assert out.is_contiguous()
        torch.testing.assert_close(out, want)


@pytest.mark.parametrize("rank", range(WORLD))
@pytest.mark.parametrize("batch", [1, 2, 3])
@pytest.mark.parametrize("op", ["sum", "avg"])
def test_a_batch_scatters_its_sequence_dim_without_copying_a(monkeypatch, rank_of, rank, batch, op):
    """[b, s, h] activations scattered on the sequence dim (dim 1): the
    fused GEMM is handed A itself, rows in their own order (the same
    storage, no copy that moves s to the front), under a plan whose owner
    regions are this rank's slice of s in every batch; back to back calls
    with new inputs each get this call's sums."""
    rank_of[0] = rank
    kernels: dict[int, PlannedReduceScatterGemm] = {}

    def kernel(kind, group, blocks=1):
        assert kind == "rs"
        return kernels.setdefault(blocks, PlannedReduceScatterGemm(rank, blocks))

    monkeypatch.setattr(fused_ops, "_kernel", kernel)
    b = torch.randn(K, N)
    for call in range(2):
        a = torch.randn(batch, WORLD * M, K, generator=torch.Generator().manual_seed(10 * batch + call))
        out = fused_ops.matmul_reduce_scatter(a, b, op, 1, "g")
        want = (WORLD * (a @ b))[:, rank * M:(rank + 1) * M] / (WORLD if op == "avg" else 1)
        assert out.shape == (batch, M, N) and out.is_contiguous()
        torch.testing.assert_close(out, want)
        (launched,) = [k.launched.pop() for k in kernels.values() if k.launched]
        shares = launched.untyped_storage().data_ptr() == a.untyped_storage().data_ptr()
        assert shares, "the GEMM was handed a copy of A"
        assert launched.data_ptr() == a.data_ptr() and launched.shape == (batch * WORLD * M, K)
    assert list(kernels) == [batch]  # the plan's blocks: one per batch entry


@pytest.mark.parametrize("world, blocks", [(2, 16), (8, 16), (16, 4), (32, 1), (72, 1)])
def test_the_most_blocks_fit_the_signal_pad(world, blocks):
    """``max_blocks``: the caps on blocks and chunks; such a plan's flags fit
    the signal pad, one per chunk in its lower half and its ce staging's
    arrival flags and tokens in its upper half."""
    from dataclasses import replace

    from syncopate.ir.plans.templates import instantiate
    from syncopate.runtime.gpu.flags import FLAG_CAPACITY
    from syncopate.runtime.gpu.gather_tokens import GatherTokens
    from syncopate.runtime.staging import StagingLayout, owner_regions

    assert fused_ops.max_blocks(world) == blocks
    rows = 16 * blocks * world  # a literal size: the chunks of M bound to it, without symbolic work
    plan = instantiate(replace(fused_ops.plan_for("rs", world, blocks), size=rows))
    chunks = [deps.ConcreteChunk("rs", c.id, c.id, "c", "c_ptr", 0, c.offset, c.offset + c.size, c.src, c.dst,
                                 c.step, "ce") for c in plan.chunks]
    assert len(chunks) <= FLAG_CAPACITY // 2
    StagingLayout(owner_regions(chunks), world, FLAG_CAPACITY // 2, GatherTokens(world, FLAG_CAPACITY).base)


@pytest.mark.parametrize("rank", range(WORLD))
def test_a_batch_beyond_the_most_blocks_is_moved_and_still_exact(monkeypatch, rank_of, rank):
    """Past ``max_blocks`` the op copies A with the scatter dim in front and
    runs one block: the same values."""
    rank_of[0] = rank
    monkeypatch.setattr(fused_ops, "max_blocks", lambda world: 2)
    monkeypatch.setattr(fused_ops, "_kernel", lambda kind, group, blocks=1: PlannedReduceScatterGemm(rank, blocks)
                        if blocks == 1 else pytest.fail(f"{blocks} blocks"))
    a, b = torch.randn(3, WORLD * M, K), torch.randn(K, N)
    out = fused_ops.matmul_reduce_scatter(a, b, "sum", 1, "g")
    torch.testing.assert_close(out, (WORLD * (a @ b))[:, rank * M:(rank + 1) * M])


@pytest.mark.parametrize("shape, dim, fused", [
    ((8, 16), 0, True), ((2, 8, 16), 0, True), ((1, 8, 16), 1, True), ((1, 1, 8, 16), 2, True),
    ((2, 8, 16), 1, True), ((2, 3, 8, 16), 2, True),  # a batch: the collective's dim moves to the front
    ((8, 16), 1, False), ((1, 8, 16), 2, False), ((8, 16), -1, False),  # the features
])
def test_which_collective_dims_run_fused(shape, dim, fused):
    refusal = fused_ops.dim_refusal(shape, dim)
    assert (refusal is None) == fused
    if refusal:
        assert f"the collective on dim {dim} of shape {shape}" in refusal


@pytest.mark.parametrize("m, n, sms, expected", [
    (1024, 2048, 132, (128, 128)),  # 128 x 256 would leave half the SMs idle (64 tiles)
    (8192, 2752, 132, (128, 256)),  # Llama-7B's gather at W = 4: enough tiles for the large one
    (8192, 8192, 132, (128, 256)),
    (256, 1024, 132, (64, 128)),  # 32 tiles of 128 x 128 on 132 SMs: the smallest tile fills more
    (1024, 2048, 16, (128, 256)),  # a small GPU: waves of either take as long, the larger tile is more efficient
])
def test_the_gemm_tile_fills_the_sms_the_output_can(m, n, sms, expected):
    t = gemm_choice.gemm_tile(m, n, sms)
    assert (t.block_m, t.block_n) == expected
    assert t in gemm_choice.TILES


@pytest.mark.parametrize("rank", range(WORLD))
@pytest.mark.parametrize("op", ["sum", "avg"])
def test_matmul_all_reduce_reduces_this_ranks_rows_then_gathers_every_ranks(monkeypatch, rank_of, rank, op):
    """The fused all-reduce: the fused matmul + reduce-scatter gives this
    rank's rows of the sum (of every leading dim flattened), the all-gather
    puts them at this rank's place among the peers' (stood in for here)."""
    rank_of[0] = rank
    monkeypatch.setattr(fused_ops, "_kernel", lambda kind, group, blocks=1: FakeReduceScatterGemm())
    a = torch.randn(2, WORLD * M // 2, K)
    b = torch.randn(K, N)
    total = (WORLD * (a @ b)).reshape(WORLD * M, N) / (WORLD if op == "avg" else 1)
    gathered = []

    def all_gather_into(out, part, group):
        gathered.append(part.clone())
        for peer in range(WORLD):  # the peers' parts: their rows of the same total
            out[peer * M:(peer + 1) * M] = part if peer == rank else total[peer * M:(peer + 1) * M]

    monkeypatch.setattr(direct_collectives, "all_gather_into", all_gather_into)
    out = fused_ops.matmul_all_reduce(a, b, op, "g")
    assert out.shape == (2, WORLD * M // 2, N)
    torch.testing.assert_close(gathered[0], total[rank * M:(rank + 1) * M])
    torch.testing.assert_close(out, total.reshape(2, WORLD * M // 2, N))


def test_new_row_counts_in_a_seen_bucket_allocate_no_symmetric_memory(monkeypatch, rank_of):
    """Serving: after one call, 100 calls with other row counts of the same
    power-of-two bucket reuse the kept buffers (symmetric memory is a
    collective allocation), and each still gets its own rows right."""
    allocations: list[tuple] = []
    empty = worlds.empty
    monkeypatch.setattr(worlds, "empty", lambda shape, dtype, device, group: (
        allocations.append(tuple(shape)), empty(shape, dtype, device, group))[1])

    class Gemm:
        def __getitem__(self, grid):
            return lambda a, b, c, *args, **kwargs: c.copy_(a @ b)

    monkeypatch.setattr(fused_ops, "_kernel", lambda kind, group, blocks=1: Gemm())
    b = torch.randn(K, N)
    for n, rows in enumerate([171] + [172 + i for i in range(100)]):  # W x rows: 513 to 813, one bucket
        if n == 1:
            assert allocations and allocations == [allocations[0]] * len(allocations)
            allocations.clear()
        shard = torch.randn(rows, K, generator=torch.Generator().manual_seed(rows))
        gathered, (out,) = fused_ops.all_gather_matmul(shard, [b], 0, "g", return_A=True)
        assert gathered.shape == (WORLD * rows, K)
        torch.testing.assert_close(gathered[:rows], shard)  # rank 0's rows of this call
        torch.testing.assert_close(out, gathered @ b, equal_nan=True)  # peers write no rows here
    assert allocations == [], f"new row counts in a seen bucket allocated symmetric memory: {allocations[:3]}"


@pytest.mark.parametrize("rank", range(WORLD))
def test_a_non_contiguous_a_runs_fused(monkeypatch, rank_of, rank):
    """An attention output laid out [b, s, heads, d] in memory but padded
    between batch entries (as SDPA's kernels can leave it), reshaped to
    [b, s, features]: not contiguous, and its rows are no single strided
    view. The fused path takes it (no refusal): the gather copies the shard
    into its rows, the reduce-scatter hands the GEMM a contiguous copy."""
    rank_of[0] = rank
    batch, heads = 2, 2
    padded = torch.randn(batch, WORLD * M * heads * (K // heads) + 8)
    a = padded[:, :WORLD * M * K].view(batch, WORLD * M, heads, K // heads).reshape(batch, WORLD * M, K)
    assert not a.is_contiguous()
    assert fused_ops.layout_refusal(a.bfloat16(), [torch.randn(K, N).bfloat16()], 1) is None
    monkeypatch.setattr(fused_ops, "_kernel", lambda kind, group, blocks=1: PlannedReduceScatterGemm(rank, blocks))
    b = torch.randn(K, N)
    out = fused_ops.matmul_reduce_scatter(a, b, "sum", 1, "g")
    torch.testing.assert_close(out, (WORLD * (a @ b))[:, rank * M:(rank + 1) * M])
    shard = a[:, rank * M:(rank + 1) * M]
    assert not shard.is_contiguous()

    class Gather(FakeAllGatherGemm):
        def __getitem__(self, grid):
            def run(g, b, c, *args, **kwargs):
                for peer in range(WORLD):
                    if peer != self.rank:
                        rows = a[:, peer * M:(peer + 1) * M].movedim(1, 0).reshape(-1, K)
                        g[peer * rows.shape[0]:(peer + 1) * rows.shape[0]] = rows
                c.copy_(g @ b)
            return run

    monkeypatch.setattr(fused_ops, "_kernel", lambda kind, group, blocks=1: Gather(rank))
    gathered, (prod,) = fused_ops.all_gather_matmul(shard, [b], 1, "g", return_A=True)
    torch.testing.assert_close(gathered, a)
    torch.testing.assert_close(prod, a @ b)


def test_the_shipped_table_covers_the_paper_shapes_in_both_layouts():
    """pytorch/gemm_table.json (test/e2e/probes/ops_gemm_table.py) holds a
    measured tile for the per-rank GEMM of every paper AG and RS shape at
    W = 2 and 4, for nn.Linear weights and for K x N matrices, on Hopper."""
    from syncopate.bench.shapes import AG_GEMM, GEMM_RS, PAPER, SHAPES

    capability, table = gemm_choice.measured()
    assert capability == (9, 0)
    for shape in (s for s in SHAPES if PAPER in s.groups and s.workload in (AG_GEMM, GEMM_RS)):
        kind = "ag" if shape.workload == AG_GEMM else "rs"
        for world in (2, 4):
            m, k, n = shape.local(world).gemm
            for b_nk in (True, False):
                tile = gemm_choice.measured_tile(kind, m, k, n, b_nk, (9, 0))
                assert tile is not None and (kind, b_nk, k, n) in table, (shape.name, world, b_nk)
                assert tile.block_k == 64 and tile.num_warps in (4, 8)


def test_a_measured_tile_is_the_entry_nearest_in_rows_of_the_same_gpu_generation(monkeypatch):
    a, b = gemm_choice.Tile(1, 1, 64, 4, 4, 1.0), gemm_choice.Tile(2, 2, 64, 8, 3, 1.0)
    monkeypatch.setattr(gemm_choice, "measured", lambda: ((9, 0), {("ag", True, 64, 32): [(1024, a), (8192, b)]}))
    assert gemm_choice.measured_tile("ag", 2048, 64, 32, True, (9, 0)) is a  # 2x from 1024, 4x from 8192
    assert gemm_choice.measured_tile("ag", 4096, 64, 32, True, (9, 0)) is b
    assert gemm_choice.measured_tile("ag", 4096, 64, 32, True, (10, 0)) is None  # another GPU generation
    assert gemm_choice.measured_tile("ag", 4096, 64, 32, False, (9, 0)) is None  # B in the other layout
    assert gemm_choice.measured_tile("ag", 4096, 64, 32, None, (9, 0)) is None  # B in neither
    assert gemm_choice.measured_tile("rs", 4096, 64, 32, True, (9, 0)) is None


@pytest.mark.parametrize("kernel", [gemm_choice.PTR, gemm_choice.PERSISTENT])
def test_a_launch_takes_the_measured_kernel_and_tile_on_the_tables_gpus(monkeypatch, kernel):
    """On the table's GPU generation a shape in it launches in its measured
    kernel and tile (the persistent kernel on one program per SM); elsewhere
    (or without an entry) in the cost model's tile of the pointer kernel."""
    entries = [e for e in json.load(open(gemm_choice.TABLE))["entries"] if e["kernel"] == kernel]
    # prefer an entry whose blocks are not the model's, so the two launches differ in more than the kernel
    entry = next((e for e in entries if e["tile"][:2] != list(gemm_choice.gemm_tile(e["m"], e["n"], 132)[:2])),
                 entries[0])
    launched = []

    class Kernel:
        def __init__(self, kind):
            self.kind = kind

        def __getitem__(self, grid):
            return lambda *args, **kwargs: launched.append((self.kind, grid, kwargs["BLOCK_M"], kwargs["BLOCK_N"]))

    m, k, n = entry["m"], entry["k"], entry["n"]
    a = torch.empty(m, k, device="meta")
    b = torch.empty(n, k, device="meta").t() if entry["b_nk"] else torch.empty(k, n, device="meta")
    c = torch.empty(m, n, device="meta")
    monkeypatch.setattr(gemm_choice, "sms", lambda device: 132)
    monkeypatch.setattr(fused_ops, "_kernel", lambda kind, group, blocks=1: Kernel(kind))
    monkeypatch.setattr(fused_ops, "ensure_triton_allocator", lambda: None)
    for capability in ((9, 0), (8, 0)):
        monkeypatch.setattr(gemm_choice, "capability", lambda device, capability=capability: capability)
        fused_ops._gemm(a, b, c, entry["kind"], "g")
    bm, bn = entry["tile"][:2]
    model = gemm_choice.gemm_tile(m, n, 132)
    measured = (entry["kind"], (-(-m // bm), -(-n // bn))) if kernel == gemm_choice.PTR \
        else (f"{entry['kind']}-persistent", (132,))
    assert launched == [(*measured, bm, bn),
                        (entry["kind"], (-(-m // model.block_m), -(-n // model.block_n)), model.block_m, model.block_n)]

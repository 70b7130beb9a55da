"""Checks of the fused GPU path of syncopate.ops and of syncopate.compile on
two GPUs with NCCL (test_gpu_pytorch_ops.py owns them). Each raises on failure.

References: the same op on fp32 inputs (which runs unfused: fp32 is not a
fused dtype) or products of inputs every rank builds from seeds.
"""

from __future__ import annotations

import functools
import warnings

import torch
import torch.distributed as dist

import syncopate

BF16_TOL = {"rtol": 2e-2, "atol": 2e-2}


def _group() -> str:
    return dist.group.WORLD.group_name


def _randn(*shape, seed, scale=None):
    g = torch.Generator().manual_seed(seed)
    t = torch.randn(*shape, generator=g)
    return (t / (scale or shape[-1]) ** 0.5 if scale != 1 else t).cuda()


def _no_unfused_notice(call):
    from syncopate.pytorch import unfused_ops

    unfused_ops._WARNED.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = call()
    notes = [str(w.message) for w in caught if "no fused kernel" in str(w.message)]
    assert not notes, notes
    return out


def fused_all_gather_matmul(rank, world):
    shards = [_randn(256, 512, seed=r, scale=1) for r in range(world)]
    Bs = [_randn(512, 384, seed=50), _randn(512, 128, seed=51)]
    A, outs = _no_unfused_notice(lambda: syncopate.ops.all_gather_matmul(
        shards[rank].bfloat16(), [B.bfloat16() for B in Bs], 0, _group()))
    full = torch.cat(shards)
    torch.testing.assert_close(A, full.bfloat16(), rtol=0, atol=0)
    for out, B in zip(outs, Bs):
        torch.testing.assert_close(out.float(), full @ B, **BF16_TOL)
    x = _randn(2, 128, 512, seed=rank + 10, scale=1).bfloat16()  # leading dims flattened into rows
    _, (y,) = _no_unfused_notice(lambda: syncopate.ops.all_gather_matmul(x, [Bs[0].bfloat16()], 0, _group()))
    xs = [torch.empty_like(x) for _ in range(world)]
    dist.all_gather(xs, x)
    torch.testing.assert_close(y.float(), torch.cat(xs).float() @ Bs[0], **BF16_TOL)


def fused_batch_sequence_dim(rank, world):
    """[b, s, h] activations with a batch of 2, gathered and scattered along
    the sequence dim (the tp styles' layout), fused (the module forces the
    path): the same values as the collectives along dim 1. The
    reduce-scatter hands the fused GEMM A itself (no copy) under a plan of
    one block per batch entry (fused_ops.plan_for), for batches of 2 and 3,
    sum and avg, back to back with new inputs, and with each rank's slice
    of s not a multiple of the GEMM's row tile (tiles that straddle two
    owners' rows)."""
    from syncopate.pytorch import fused_ops

    x = _randn(2, 96, 256, seed=rank + 40, scale=1).bfloat16()
    w = _randn(256, 128, seed=41).bfloat16()
    A, (y,) = _no_unfused_notice(lambda: syncopate.ops.all_gather_matmul(x, [w], 1, _group()))
    xs = [torch.empty_like(x) for _ in range(world)]
    dist.all_gather(xs, x)
    full = torch.cat(xs, dim=1)
    assert y.shape == (2, 96 * world, 128) and A.shape == full.shape
    torch.testing.assert_close(A, full, rtol=0, atol=0)
    torch.testing.assert_close(y.float(), full.float() @ w.float(), **BF16_TOL)
    gemm, handed = fused_ops._gemm, []

    def spying(kernel, a, b, c):
        handed.append(a.data_ptr())
        return gemm(kernel, a, b, c)

    fused_ops._gemm = spying
    try:
        for call, (batch, seq) in enumerate([(2, 32), (2, 32), (3, 48), (2, 200)]):
            a = _randn(batch, seq * world, 256, seed=rank + 60 + 10 * call, scale=1).bfloat16()
            b = _randn(256, 128, seed=61 + rank + 10 * call).bfloat16()
            total = (a.float() @ b.float())
            dist.all_reduce(total)
            for op in ("sum", "avg"):
                handed.clear()
                out = _no_unfused_notice(lambda: syncopate.ops.matmul_reduce_scatter(a, b, op, 1, _group()))
                assert handed == [a.data_ptr()], "the fused GEMM was not handed A itself"
                assert out.shape == (batch, seq, 128) and out.is_contiguous()
                want = total.chunk(world, dim=1)[rank] / (world if op == "avg" else 1)
                torch.testing.assert_close(out.float(), want, **BF16_TOL)
    finally:
        fused_ops._gemm = gemm
    assert {("rs", _group(), 2), ("rs", _group(), 3)} <= set(fused_ops._KERNELS)


def fused_matmul_reduce_scatter(rank, world):
    As = [_randn(512, 256, seed=r, scale=1) for r in range(world)]
    Bs = [_randn(256, 384, seed=20 + r) for r in range(world)]
    total = sum(a @ b for a, b in zip(As, Bs))
    for op in ("sum", "avg"):
        out = _no_unfused_notice(functools.partial(syncopate.ops.matmul_reduce_scatter, As[rank].bfloat16(),
                                                   Bs[rank].bfloat16(), op, 0, _group()))
        ref = total.chunk(world)[rank] / (world if op == "avg" else 1)
        torch.testing.assert_close(out.float(), ref, **BF16_TOL)


def _layer(x, w1, w2):
    _, (h,) = syncopate.ops.all_gather_matmul(x, [w1], 0, _group(), return_A=False)
    return syncopate.ops.matmul_reduce_scatter(torch.nn.functional.gelu(h), w2, "sum", 0, _group())


def _layer_inputs(rank, dtype):
    return [_randn(*s, seed=100 * i + rank).to(dtype) for i, s in enumerate(((128, 256), (256, 512), (512, 256)))]


def compiled_matches_eager(rank, world):
    args = _layer_inputs(rank, torch.bfloat16)
    compiled = torch.compile(_layer, fullgraph=True)  # Inductor may fuse the GELU differently: bf16 tolerance
    torch.testing.assert_close(compiled(*args), _layer(*args), **BF16_TOL)


def cuda_graph_replay(rank, world):
    static = _layer_inputs(rank, torch.bfloat16)
    _layer(*static)  # the first call of a shape allocates symmetric memory: eagerly, before capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = _layer(*static)
    for step in range(3):
        fresh = _layer_inputs(rank + 7 * (step + 1), torch.bfloat16)
        for s, f in zip(static, fresh):
            s.copy_(f)
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(out, _layer(*fresh), rtol=0, atol=0)


def gradients_match_unfused(rank, world):
    """bf16 (fused) gradients equal the fp32 (unfused) ones within bf16 error."""
    grads = {}
    for dtype in (torch.bfloat16, torch.float32):
        args = [a.requires_grad_() for a in _layer_inputs(rank, dtype)]
        _layer(*args).float().square().sum().backward()
        grads[dtype] = [a.grad.float() for a in args]
    for fused, plain in zip(grads[torch.bfloat16], grads[torch.float32]):
        torch.testing.assert_close(fused, plain, rtol=5e-2, atol=5e-2 * plain.abs().max().item())


def compile_needs_symmetric(rank, world):
    """syncopate.compile on the GPU world: an ordinary gathered tensor is
    refused with a message naming syncopate.empty; a syncopate.empty one works."""
    from syncopate.kernels.gemm_bf16 import gemm_kernel

    fused = syncopate.compile(gemm_kernel, ["all-gather{tensor=a_ptr dim=0}"])
    m, k, n = 128 * world, 256, 256
    b = _randn(k, n, seed=3).bfloat16()
    c = torch.empty(m, n, dtype=torch.bfloat16, device="cuda")

    def launch(a):
        fused[(m // 64, n // 64)](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                  c.stride(0), c.stride(1), BLOCK_M=64, BLOCK_N=64, BLOCK_K=64)

    try:
        launch(torch.empty(m, k, dtype=torch.bfloat16, device="cuda"))
    except syncopate.SyncopateSetupError as err:
        assert "syncopate.empty" in str(err) and "'a_ptr'" in str(err), str(err)
    else:
        raise AssertionError("an ordinary gathered tensor was accepted")
    shards = [_randn(128, k, seed=r, scale=1).bfloat16() for r in range(world)]
    a = syncopate.empty(m, k, dtype=torch.bfloat16)
    a[rank * 128:(rank + 1) * 128] = shards[rank]
    dist.barrier()
    launch(a)
    torch.testing.assert_close(c.float(), torch.cat(shards).float() @ b.float(), **BF16_TOL)


def compile_autotuned(rank, world):
    """An autotuned kernel on GPUs: the original's autotuner benchmarks, rank
    0's choice is used everywhere, and the fused launch gives the product."""
    from autotuned_gemm import autotuned_gemm

    fused = syncopate.compile(autotuned_gemm, ["all-gather{tensor=a_ptr dim=0}"])
    m, k, n = 256, 128, 128
    shards = [_randn(m, k, seed=r, scale=1).bfloat16() for r in range(world)]
    a = syncopate.empty(m * world, k, dtype=torch.bfloat16)
    a[rank * m:(rank + 1) * m] = shards[rank]
    b = _randn(k, n, seed=9).bfloat16()
    c = torch.empty(m * world, n, dtype=torch.bfloat16, device="cuda")

    def grid(meta):
        return (-(-meta["M"] // meta["BLOCK_M"]), -(-meta["N"] // meta["BLOCK_N"]))

    for _ in range(2):  # the second launch reuses the chosen configuration
        fused[grid](a, b, c, m * world, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                    c.stride(1), BLOCK_K=32)
        torch.testing.assert_close(c.float(), torch.cat(shards).float() @ b.float(), **BF16_TOL)
    chosen = [autotuned_gemm.configs.index(cfg) for cfg in fused.chosen.values()]
    everyone = [None] * world
    dist.all_gather_object(everyone, chosen)
    assert len(chosen) == 1 and all(e == chosen for e in everyone), everyone


def measured_choice_agrees(rank, world):
    """SYNCOPATE_OPS_PATH=auto: the first call of a shape times both paths,
    every rank takes the same path, the measuring call's result is right,
    a second call times nothing, and a CUDA graph captured afterwards (the
    path chosen from the device times, the same on every rank) replays with
    fresh inputs."""
    import os

    from syncopate.pytorch import op_path

    saved = os.environ.get(op_path.ENV)
    os.environ[op_path.ENV] = "auto"
    try:
        shards = [_randn(96, 512, seed=r, scale=1) for r in range(world)]
        B = _randn(512, 256, seed=60)
        A, (out,) = syncopate.ops.all_gather_matmul(shards[rank].bfloat16(), [B.bfloat16()], 0, _group())
        full = torch.cat(shards)
        torch.testing.assert_close(A, full.bfloat16(), rtol=0, atol=0)
        torch.testing.assert_close(out.float(), full @ B, **BF16_TOL)
        chosen = [(k.op, k.rows_bucket, c.path, c.fused_s, c.unfused_s, c.ranks, c.graph_path, c.fused_device_s,
                   c.unfused_device_s) for k, c in op_path.choices().items()
                  if k.op == "all_gather_matmul" and k.rows_bucket == 128 and k.b_shapes == ((512, 256),)]
        assert len(chosen) == 1 and chosen[0][5] == world, chosen
        graph_path, device_s = chosen[0][6], chosen[0][7:]
        assert graph_path in op_path.GRAPH_PATHS and all(0 < t < 1 for t in device_s), chosen
        everyone = [None] * world
        dist.all_gather_object(everyone, chosen)
        assert all(e == chosen for e in everyone), everyone  # the same path from the same (agreed) times
        timed = []
        saved_timer = op_path.time_calls
        op_path.time_calls = lambda fn, calls: timed.append(calls) or saved_timer(fn, calls)
        try:
            syncopate.ops.all_gather_matmul(shards[rank].bfloat16(), [B.bfloat16()], 0, _group())
        finally:
            op_path.time_calls = saved_timer
        assert timed == [], timed
        static = shards[rank].bfloat16().clone()
        graph = torch.cuda.CUDAGraph()
        before = syncopate.stats()["all_gather_matmul"].get(graph_path, 0)
        with torch.cuda.graph(graph):
            _, (captured,) = syncopate.ops.all_gather_matmul(static, [B.bfloat16()], 0, _group())
        assert syncopate.stats()["all_gather_matmul"].get(graph_path, 0) == before + 1, syncopate.stats()
        static.copy_(_randn(96, 512, seed=rank + 30, scale=1).bfloat16())
        graph.replay()
        torch.cuda.synchronize()
        fresh = [_randn(96, 512, seed=r + 30, scale=1) for r in range(world)]
        torch.testing.assert_close(captured.float(), torch.cat(fresh) @ B, **BF16_TOL)
    finally:
        if saved is None:
            os.environ.pop(op_path.ENV, None)
        else:
            os.environ[op_path.ENV] = saved


def torch_plan_compiles_to_syncopate_ops(rank, world):
    """torch's own ColwiseParallel/RowwiseParallel plan with sequence
    parallelism, compiled after syncopate.tp.enable(): the compiled graph
    calls syncopate's ops (counted by syncopate.stats), and the output
    equals the eager model's."""
    import torch._dynamo
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Shard
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

    import syncopate.tp

    class Mlp(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.up = torch.nn.Linear(512, 1024, bias=False)
            self.down = torch.nn.Linear(1024, 512, bias=False)

        def forward(self, x):
            return self.down(torch.nn.functional.silu(self.up(x)))

    torch.manual_seed(0)
    mesh = init_device_mesh("cuda", (world,))
    plan = {"up": ColwiseParallel(input_layouts=Shard(0), use_local_output=True),
            "down": RowwiseParallel(output_layouts=Shard(0), use_local_output=True)}
    model = parallelize_module(Mlp().cuda().bfloat16(), mesh, plan)
    x = _randn(256, 512, seed=70 + rank, scale=1).bfloat16()  # this rank's tokens ([tokens, hidden], Shard(0))
    want = model(x)
    syncopate.tp.enable(_group())
    try:
        torch._dynamo.reset()
        syncopate.stats(reset=True)
        got = torch.compile(model, fullgraph=True)(x)
        counts = syncopate.stats()
    finally:
        syncopate.tp.disable()
        torch._dynamo.reset()
    assert counts.get("all_gather_matmul", {}).get("fused", 0) + counts.get("all_gather_matmul", {}).get("unfused", 0) \
        >= 1 and sum(counts.get("matmul_reduce_scatter", {}).values()) >= 1, counts
    torch.testing.assert_close(got.float(), want.float(), **BF16_TOL)


def replayed_back_to_back(rank, world):
    """SYNCOPATE_OPS_PATH=replayed: the three ops replayed from CUDA graphs
    (pytorch/replayed_ops.py), called back to back with fresh inputs and no
    synchronisation, rank 0 slowed before some calls; every result checked
    afterwards (a result that aliased a static buffer would hold a later
    call's values). Then a capture of the forced path records the eager one."""
    import os

    from syncopate.pytorch import op_path, replayed_ops

    saved = os.environ.get(op_path.ENV)
    os.environ[op_path.ENV] = "replayed"
    try:
        syncopate.stats(reset=True)
        graphs_before = len(replayed_ops._GRAPHS)  # an earlier check's measured choice may have captured one
        B_ag, B_rs = _randn(256, 128, seed=70), _randn(64 * world, 192, seed=71 + rank)
        w_ag, w_rs = B_ag.bfloat16(), B_rs.bfloat16()  # one weight tensor each: a graph is kept per weight address
        results = []
        for i in range(6):
            if rank == 0 and i % 2:
                torch.cuda._sleep(2_000_000)
            a = _randn(32, 256, seed=1000 * i + rank, scale=1).bfloat16()
            x = _randn(128, 64 * world, seed=2000 * i + rank, scale=1).bfloat16()
            _, (h,) = syncopate.ops.all_gather_matmul(a, [w_ag], 0, _group(), return_A=False)
            y = syncopate.ops.matmul_reduce_scatter(x, w_rs, "sum", 0, _group())
            z = syncopate.ops.matmul_all_reduce(x, w_rs, "avg", _group())
            results.append((h, y, z))
        torch.cuda.synchronize()
        B_all = [_randn(64 * world, 192, seed=71 + r) for r in range(world)]
        for i, (h, y, z) in enumerate(results):
            full = torch.cat([_randn(32, 256, seed=1000 * i + r, scale=1).bfloat16().float() for r in range(world)])
            torch.testing.assert_close(h.float(), full @ B_ag, **BF16_TOL)
            xs = [_randn(128, 64 * world, seed=2000 * i + r, scale=1).bfloat16().float() for r in range(world)]
            total = sum(xr @ br.bfloat16().float() for xr, br in zip(xs, B_all))
            torch.testing.assert_close(y.float(), total.chunk(world)[rank], **BF16_TOL)
            torch.testing.assert_close(z.float(), total / world, **BF16_TOL)
        counts = syncopate.stats()
        assert all(counts[op].get("replayed") == 6 for op in ("all_gather_matmul", "matmul_reduce_scatter",
                                                                 "matmul_all_reduce")), counts
        assert len(replayed_ops._GRAPHS) == graphs_before + 3, list(replayed_ops._GRAPHS)  # captured on the second call of each
        static = _randn(32, 256, seed=rank, scale=1).bfloat16()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            _, (captured,) = syncopate.ops.all_gather_matmul(static, [w_ag], 0, _group(), return_A=False)
        static.copy_(_randn(32, 256, seed=rank + 50, scale=1).bfloat16())
        graph.replay()
        torch.cuda.synchronize()
        fresh = torch.cat([_randn(32, 256, seed=r + 50, scale=1).bfloat16().float() for r in range(world)])
        torch.testing.assert_close(captured.float(), fresh @ B_ag, **BF16_TOL)
    finally:
        if saved is None:
            os.environ.pop(op_path.ENV, None)
        else:
            os.environ[op_path.ENV] = saved


def serving_row_counts(rank, world):
    """Serving: the fused ops called back to back with 12 row counts of one
    power-of-two bucket (after one call of the bucket's largest), fresh
    inputs, no synchronisation, rank 0 slowed before every other call.
    Every result is checked afterwards, and the calls after the first make
    no new signal pad and no symmetric allocation: a reduce-scatter's pad
    is shared by its row counts (its flags are zeroed after each launch)."""
    import os

    from syncopate.pytorch import op_path, worlds

    saved = os.environ.get(op_path.ENV)
    os.environ[op_path.ENV] = "fused"
    try:
        w_ag, w_rs = _randn(256, 128, seed=80).bfloat16(), _randn(128, 192, seed=81 + rank).bfloat16()
        rows = [64] + list(range(33, 45))  # per rank: W x 33 .. W x 44 rows, the bucket of W x 64
        gpu = worlds.gpu_world(dist.group.WORLD)
        pads_before = len(gpu.pads)  # other checks' configurations, in this process
        results, allocated = [], None
        for i, m in enumerate(rows):
            if i == 1:
                torch.cuda.synchronize()
                allocated = (len(gpu.pads), len(gpu.handles))
            if rank == 0 and i % 2:
                torch.cuda._sleep(2_000_000)
            a = _randn(m, 256, seed=3000 * i + rank, scale=1).bfloat16()
            x = _randn(world * m, 128, seed=4000 * i + rank, scale=1).bfloat16()
            _, (h,) = syncopate.ops.all_gather_matmul(a, [w_ag], 0, _group(), return_A=False)
            y = syncopate.ops.matmul_reduce_scatter(x, w_rs, "sum", 0, _group())
            results.append((m, h, y))
        after = (len(gpu.pads), len(gpu.handles))
        torch.cuda.synchronize()
        w_all = [_randn(128, 192, seed=81 + r).bfloat16().float() for r in range(world)]
        for i, (m, h, y) in enumerate(results):
            full = torch.cat([_randn(m, 256, seed=3000 * i + r, scale=1).bfloat16().float() for r in range(world)])
            torch.testing.assert_close(h.float(), full @ w_ag.float(), **BF16_TOL)
            total = sum(_randn(world * m, 128, seed=4000 * i + r, scale=1).bfloat16().float() @ w_all[r]
                        for r in range(world))
            torch.testing.assert_close(y.float(), total.chunk(world)[rank], **BF16_TOL)
        assert after == allocated, f"row counts of a seen bucket allocated: pads, symmetric buffers {allocated} -> {after}"
        assert after[0] - pads_before <= 2, f"{after[0] - pads_before} new signal pads for two ops"
    finally:
        if saved is None:
            os.environ.pop(op_path.ENV, None)
        else:
            os.environ[op_path.ENV] = saved

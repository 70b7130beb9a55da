"""Checks of syncopate.ops and syncopate.compile run on every rank of a gloo
group (see gloo_ranks.py); test_pytorch_ops.py owns them. Each raises on failure.

Inputs are made from seeds every rank knows, so each rank builds the
reference of the whole group without any collective.
"""

from __future__ import annotations

import contextlib
import logging
import os
import warnings

import torch
import torch.distributed as dist

import syncopate


def _group() -> str:
    return dist.group.WORLD.group_name


def _shards(shape, world, dtype=torch.float64, seed=0):
    return [torch.randn(*shape, generator=torch.Generator().manual_seed(seed * 100 + r), dtype=dtype)
            for r in range(world)]


@contextlib.contextmanager
def _syncopate_log():
    """The INFO messages of the ``syncopate`` logger while the block runs."""
    logger, lines = logging.getLogger("syncopate"), []
    handler = logging.Handler(logging.INFO)
    handler.emit = lambda record: lines.append(record.getMessage())
    logger.addHandler(handler)
    old_level = logger.level
    logger.setLevel(logging.INFO)
    try:
        yield lines
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)


def ag_values(rank, world):
    for shape, dim in [((3, 4), 0), ((2, 3, 4), 1), ((3, 4), 1), ((2, 3, 4), 0)]:
        shards = _shards(shape, world, seed=dim + len(shape))
        K = shape[-1] * (world if dim == len(shape) - 1 else 1)
        Bs = [torch.randn(K, n, generator=torch.Generator().manual_seed(7 + n), dtype=torch.float64) for n in (5, 2)]
        A, outs = syncopate.ops.all_gather_matmul(shards[rank], Bs, dim, _group())
        ref = torch.cat(shards, dim=dim)
        torch.testing.assert_close(A, ref, rtol=0, atol=0)
        for out, B in zip(outs, Bs):
            torch.testing.assert_close(out, ref @ B)
        none, outs2 = syncopate.ops.all_gather_matmul(shards[rank], Bs, dim, _group(), return_A=False)
        assert none is None
        torch.testing.assert_close(outs2[0], outs[0], rtol=0, atol=0)


def rs_values(rank, world):
    for shape, dim, op in [((4, 3), 0, "sum"), ((2, 4, 3), 1, "avg"), ((4, 3), 1, "sum")]:
        As = _shards(shape, world, seed=dim)
        Bs = _shards((shape[-1], 6), world, seed=9)
        out = syncopate.ops.matmul_reduce_scatter(As[rank], Bs[rank], op, dim, _group())
        total = sum(a @ b for a, b in zip(As, Bs))
        if op == "avg":
            total = total / world
        torch.testing.assert_close(out, total.chunk(world, dim)[rank])


def unfused_moves_each_byte_once(rank, world):
    """The unfused path reduce-scatters (no all-reduce, which moves every
    byte twice) and all-gathers into one tensor (no list of pieces + cat)."""
    import torch.distributed._functional_collectives as funcol

    from syncopate.pytorch import unfused_ops

    def refuse(*args, **kwargs):
        raise AssertionError("the unfused path used an all-reduce or a list all-gather")

    saved = funcol.all_reduce, dist.all_gather
    funcol.all_reduce, dist.all_gather = refuse, refuse
    try:
        for dim in (0, 1):
            As = _shards((4, 4), world, seed=20 + dim)
            Bs = _shards((4, 6), world, seed=30)
            out = unfused_ops.matmul_reduce_scatter(As[rank], Bs[rank], "sum", dim, _group())
            torch.testing.assert_close(out, sum(a @ b for a, b in zip(As, Bs)).chunk(world, dim)[rank])
            b = torch.randn(4 * (world if dim == 1 else 1), 6, generator=torch.Generator().manual_seed(5),
                            dtype=torch.float64)
            gathered, outs = unfused_ops.all_gather_matmul(As[rank], [b], dim, _group(), return_A=True)
            torch.testing.assert_close(gathered, torch.cat(As, dim))
            torch.testing.assert_close(outs[0], torch.cat(As, dim) @ b)
    finally:
        funcol.all_reduce, dist.all_gather = saved


def decisions_are_visible(rank, world):
    """syncopate.stats() counts each call's path; the syncopate logger says
    once per op, shape and decision why a call ran unfused."""
    from syncopate.pytorch import unfused_ops

    syncopate.stats(reset=True)
    unfused_ops._WARNED.clear()
    with _syncopate_log() as lines, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = torch.randn(2, 3), torch.randn(3, 2)
        for _ in range(3):
            syncopate.ops.all_gather_matmul(a, [b], 0, _group())
        syncopate.ops.matmul_reduce_scatter(torch.randn(2 * world, 3), b, "sum", 0, _group())
    assert syncopate.stats() == {"all_gather_matmul": {"fused": 0, "unfused": 3},
                                 "matmul_reduce_scatter": {"fused": 0, "unfused": 1}}, syncopate.stats()
    ag = [line for line in lines if line.startswith("syncopate.ops.all_gather_matmul on 2x3, 3x2: unfused")]
    assert len(ag) == 1 and "cpu tensors" in ag[0], lines
    assert syncopate.stats(reset=True) and syncopate.stats() == {}


def same_as_torch_fallback(rank, world):
    """Results equal PyTorch's own symm_mem fallback (what async-TP runs off-GPU)."""
    from torch.distributed._symmetric_memory import (
        _fused_all_gather_matmul_fallback,
        _fused_matmul_reduce_scatter_fallback,
    )

    a = _shards((2, 3, 4), world, seed=3)[rank]
    b = torch.randn(4, 5, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    for dim in (0, 1):
        mine = syncopate.ops.all_gather_matmul(a, [b], dim, _group())
        theirs = _fused_all_gather_matmul_fallback(a, [b], dim, _group())
        torch.testing.assert_close(mine[0], theirs[0], rtol=0, atol=0)
        torch.testing.assert_close(mine[1][0], theirs[1][0])
    mine = syncopate.ops.matmul_reduce_scatter(a, b, "sum", 0, _group())
    assert mine.shape == torch.Size([1, 3, 5])
    if "gloo" not in str(dist.get_backend()):  # gloo has no reduce_scatter for torch's fallback
        torch.testing.assert_close(mine, _fused_matmul_reduce_scatter_fallback(a, b, "sum", 0, _group()))


class _Own(torch.autograd.Function):
    """Replicated global tensor -> this rank's block (the adjoint sums every rank's gradient)."""

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        return x.chunk(dist.get_world_size(), dim)[dist.get_rank()].clone()

    @staticmethod
    def backward(ctx, g):
        full = [torch.zeros_like(g) for _ in range(dist.get_world_size())]
        full[dist.get_rank()] = g
        full = torch.cat(full, ctx.dim)
        dist.all_reduce(full)
        return full, None


class _Everyone(torch.autograd.Function):
    """This rank's result -> every rank's, concatenated (replicated output)."""

    @staticmethod
    def forward(ctx, y, dim):
        ctx.dim = dim
        pieces = [torch.empty_like(y) for _ in range(dist.get_world_size())]
        dist.all_gather(pieces, y.contiguous())
        return torch.cat(pieces, dim)

    @staticmethod
    def backward(ctx, g):
        return g.chunk(dist.get_world_size(), ctx.dim)[dist.get_rank()].contiguous(), None


def ag_gradcheck(rank, world):
    def whole(A_all, B_all):
        A, outs = syncopate.ops.all_gather_matmul(_Own.apply(A_all, 0), [_Own.apply(B_all, 0)[0],
                                                                      _Own.apply(B_all, 0)[0] * 2], 0, _group())
        return _Everyone.apply(A, 0), _Everyone.apply(outs[0], 0), _Everyone.apply(outs[1], 0)

    g = torch.Generator().manual_seed(4)
    A_all = torch.randn(2 * world, 3, dtype=torch.float64, generator=g, requires_grad=True)
    B_all = torch.randn(world, 3, 2, dtype=torch.float64, generator=g, requires_grad=True)
    torch.manual_seed(0)  # gradcheck's random projections: the same on every rank
    assert torch.autograd.gradcheck(whole, (A_all, B_all), fast_mode=True)


def ag_backward_transposes_no_weight(rank, world):
    """The backward of a gather with several B's is one matmul + reduce-scatter
    against the B's side by side, as a transposed view (row stride 1): each
    weight is copied once as whole rows, never transposed in memory. The
    input gradient equals the sum of each B's own product."""
    from syncopate.pytorch import unfused_ops

    seen = []
    original = unfused_ops.matmul_reduce_scatter

    def recording(A, B, *args):
        seen.append((tuple(B.shape), B.stride()))
        return original(A, B, *args)

    g = torch.Generator().manual_seed(6 + rank)
    a = torch.randn(2, 5, dtype=torch.float64, generator=g, requires_grad=True)
    bs = [torch.randn(5, n, dtype=torch.float64, generator=g, requires_grad=True) for n in (3, 4)]
    unfused_ops.matmul_reduce_scatter = recording
    try:
        _, outs = syncopate.ops.all_gather_matmul(a, bs, 0, _group(), return_A=False)
        grads = [torch.randn(o.shape, dtype=torch.float64, generator=g) for o in outs]
        torch.autograd.backward(outs, grads)
    finally:
        unfused_ops.matmul_reduce_scatter = original
    assert seen == [((7, 5), (1, 7))], seen
    full = sum(gr @ b.detach().t() for gr, b in zip(grads, bs))  # this rank's grads times its B's ...
    total = full.clone()
    dist.all_reduce(total)  # ... summed over the ranks, then this rank's rows
    torch.testing.assert_close(a.grad, total[rank * 2:(rank + 1) * 2])


def rs_gradcheck(rank, world):
    for op, dim in (("sum", 0), ("avg", 1)):
        def whole(A_all, B_all, op=op, dim=dim):
            out = syncopate.ops.matmul_reduce_scatter(_Own.apply(A_all, 0)[0], _Own.apply(B_all, 0)[0], op, dim,
                                                      _group())
            return _Everyone.apply(out, dim)

        g = torch.Generator().manual_seed(5)
        A_all = torch.randn(world, 2 * world, 3, dtype=torch.float64, generator=g, requires_grad=True)
        B_all = torch.randn(world, 3, 2 * world, dtype=torch.float64, generator=g, requires_grad=True)
        torch.manual_seed(0)
        assert torch.autograd.gradcheck(whole, (A_all, B_all), fast_mode=True)


def fake_tracing(rank, world):
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        a = torch.empty(3, 8, 4, dtype=torch.bfloat16)
        b = torch.empty(4, 6, dtype=torch.bfloat16)
        A, (c,) = syncopate.ops.all_gather_matmul(a, [b], 1, _group())
        r = syncopate.ops.matmul_reduce_scatter(a, b, "sum", 1, _group())
        none, _ = syncopate.ops.all_gather_matmul(a, [b], 0, _group(), return_A=False)
    assert A.shape == (3, 8 * world, 4) and c.shape == (3, 8 * world, 6) and c.dtype == torch.bfloat16
    assert r.shape == (3, 8 // world, 6) and none is None


def compile_fullgraph(rank, world):
    """torch.compile(fullgraph=True) raises on any graph break; forward and
    gradients equal eager."""
    group = _group()

    def layer(x, w1, w2):
        _, (h,) = syncopate.ops.all_gather_matmul(x, [w1], 0, group, return_A=False)
        return syncopate.ops.matmul_reduce_scatter(torch.relu(h), w2, "sum", 0, group)

    g = torch.Generator().manual_seed(rank)
    args = [torch.randn(*s, generator=g, dtype=torch.float64, requires_grad=True) for s in ((4, 6), (6, 8), (8, 6))]
    compiled = torch.compile(layer, fullgraph=True, backend="aot_eager")
    out = compiled(*args)
    grads = torch.autograd.grad(out.sum(), args)
    ref = layer(*args)
    ref_grads = torch.autograd.grad(ref.sum(), args)
    torch.testing.assert_close(out, ref)
    for a, b in zip(grads, ref_grads):
        torch.testing.assert_close(a, b)


def warns_once(rank, world):
    from syncopate.pytorch import unfused_ops

    unfused_ops._WARNED.clear()
    a, b = torch.randn(2, 3), torch.randn(3, 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        syncopate.ops.all_gather_matmul(a, [b], 0, _group())
        syncopate.ops.all_gather_matmul(a, [b], 0, _group())
    notes = [w for w in caught if "all_gather_matmul: no fused kernel for cpu tensors" in str(w.message)]
    assert len(notes) == 1, [str(w.message) for w in caught]
    assert os.path.abspath(notes[0].filename) == os.path.abspath(__file__), notes[0].filename  # the caller's line


def bad_arguments(rank, world):
    a, b = torch.randn(4, 3), torch.randn(3, 2)
    cases = [
        (lambda: syncopate.ops.matmul_reduce_scatter(a, b, "max", 0, _group()), "reduce_op must be one of"),
        (lambda: syncopate.ops.matmul_reduce_scatter(torch.randn(3, 3), b, "sum", 0, _group()), "not a multiple"),
        (lambda: syncopate.ops.all_gather_matmul(a, [torch.randn(4, 2)], 0, _group()), "Bs[0] must be a matrix"),
        (lambda: syncopate.ops.all_gather_matmul(a, [b], 2, _group()), "gather_dim 2 is not a dim"),
    ]
    for call, text in cases:
        try:
            call()
        except ValueError as err:
            assert text in str(err), str(err)
        else:
            raise AssertionError(f"no error for {text}")


def compile_kernel(rank, world):
    """syncopate.compile on gloo: the fused kernel (Triton interpreter) with
    the collective done unfused gives the gathered product; a second compile
    loads the cached IR instead of running the passes."""
    from syncopate.pytorch import cache

    ex = _example("ag_gemm")
    gemm_kernel, BLOCK_M, BLOCK_N, BLOCK_K = ex.gemm_kernel, ex.BLOCK_M, ex.BLOCK_N, ex.BLOCK_K

    fused = syncopate.compile(gemm_kernel, ["all-gather{tensor=a_ptr dim=0}"])
    shards = _shards((8, 16), world, dtype=torch.float32)
    a = syncopate.empty(8 * world, 16, dtype=torch.float32)
    assert isinstance(a, torch.Tensor) and a.shape == (8 * world, 16)
    a[rank * 8:(rank + 1) * 8] = shards[rank]
    b = torch.randn(16, 16, generator=torch.Generator().manual_seed(3))
    c = torch.empty(8 * world, 16)
    fused[(triton_cdiv(8 * world, BLOCK_M), triton_cdiv(16, BLOCK_N))](
        a, b, c, 8 * world, 16, 16, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    torch.testing.assert_close(c, torch.cat(shards) @ b, rtol=1e-4, atol=1e-4)
    entries = [f for f in os.listdir(cache.cache_dir()) if f.endswith(".mlir")]
    assert len(entries) == 1, entries

    import syncopate.pytorch.compile as compile_module

    def refuse(*args, **kwargs):
        raise AssertionError("the second compile ran the passes instead of loading the cache")

    saved, compile_module._run_frontend = compile_module._run_frontend, refuse
    try:
        with _syncopate_log() as lines:
            again = syncopate.compile(gemm_kernel, ["all-gather{tensor=a_ptr dim=0}"])
    finally:
        compile_module._run_frontend = saved
    assert again.program.source == fused.program.source
    assert len(lines) == 1 and lines[0].startswith("syncopate.compile gemm_kernel (all-gather{tensor=a_ptr dim=0 world=")
    assert "loaded from the cache in" in lines[0], lines


def compile_reduce_scatter(rank, world):
    """syncopate.compile of the reduce-scatter GEMM with the plan in its
    typed form, as the ops build it (fused_ops.plan_for): each rank gets
    its rows of the summed product."""
    from syncopate.pytorch import fused_ops

    ex = _example("gemm_rs")
    gemm_rs_kernel, BLOCK_M, BLOCK_N, BLOCK_K = ex.gemm_rs_kernel, ex.BLOCK_M, ex.BLOCK_N, ex.BLOCK_K
    fused = syncopate.compile(gemm_rs_kernel, [fused_ops.plan_for("rs", world)])
    As, Bs = _shards((8, 16), world, torch.float32, 1), _shards((16, 16), world, torch.float32, 2)
    a, b = As[rank], Bs[rank]
    c = torch.empty(8, 16)
    fused[(triton_cdiv(8, BLOCK_M), triton_cdiv(16, BLOCK_N))](
        a, b, c, 8, 16, 16, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    rows = 8 // world
    ref = sum(x @ y for x, y in zip(As, Bs))
    torch.testing.assert_close(c[rank * rows:(rank + 1) * rows], ref[rank * rows:(rank + 1) * rows],
                               rtol=1e-4, atol=1e-4)


def compile_autotuned(rank, world):
    """An @triton.autotune kernel: launched with the original syntax (grid from
    META, BLOCK_M/BLOCK_N from the configuration, BLOCK_K as a keyword);
    in the interpreter the first configuration is used."""
    from autotuned_gemm import autotuned_gemm

    fused = syncopate.compile(autotuned_gemm, ["all-gather{tensor=a_ptr dim=0}"])
    M, K, N = 24 * world, 16, 16
    shards = _shards((24, K), world, dtype=torch.float32, seed=5)
    a = syncopate.empty(M, K, dtype=torch.float32)
    a[rank * 24:(rank + 1) * 24] = shards[rank]
    b = torch.randn(K, N, generator=torch.Generator().manual_seed(6))
    c = torch.empty(M, N)

    def grid(meta):
        return (triton_cdiv(meta["M"], meta["BLOCK_M"]), triton_cdiv(meta["N"], meta["BLOCK_N"]))

    with _syncopate_log() as lines:
        for _ in range(2):  # the second launch reuses the choice: no second line
            fused[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                        c.stride(1), BLOCK_K=16)
    torch.testing.assert_close(c, torch.cat(shards) @ b, rtol=1e-4, atol=1e-4)
    assert list(fused.chosen.values()) == [autotuned_gemm.configs[0]]
    tuned = [line for line in lines if "for autotuning key" in line]
    assert len(tuned) == 1 and tuned[0].startswith("syncopate.compile autotuned_gemm: configuration "), lines


def compile_heuristics(rank, world):
    """@triton.heuristics, alone and under a one-config @triton.autotune, and
    the plain jit function under both given every constexpr: syncopate.compile
    computes the values as Triton's launch does (runtime/autotune.py), on
    the launch path workloads use."""
    from syncopate.runtime.harness.workload import load_workload

    workloads = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "workloads")
    alone, autotuned = (load_workload(os.path.join(workloads, f"{name}.py")).module
                        for name in ("heuristics_copy", "heuristics_autotuned"))
    n = 125 * world  # uneven: the masked arm
    shards = _shards((125,), world, dtype=torch.float32, seed=7)
    for kernel, launch in ((alone.KERNEL, alone.launch), (autotuned.KERNEL, autotuned.launch),
                           (autotuned.KERNEL.fn.fn, autotuned.launch_plain)):  # the jit under autotune, heuristics
        fused = syncopate.compile(kernel, ["all-gather{tensor=x_ptr dim=0 size=n}"])
        x = syncopate.empty(n, dtype=torch.float32)
        x[rank * 125:(rank + 1) * 125] = shards[rank]
        torch.testing.assert_close(launch(fused, x), torch.cat(shards) * 2.0)


def _example(name):
    from syncopate.runtime.harness.workload import load_workload

    # The package root is the repository root, so the workload examples sit next to syncopate/__init__.py.
    return load_workload(os.path.join(os.path.dirname(os.path.abspath(syncopate.__file__)), "examples",
                                      f"{name}.py")).module


def triton_cdiv(a, b):
    return -(-a // b)


def opcheck_passes(rank, world):
    """torch.library.opcheck: schema, autograd registration, fake tensors and
    AOT dispatch agree with the real implementation."""
    a = _shards((2, 4, 4), world, seed=8)[rank].requires_grad_()
    b = torch.randn(4, 2, generator=torch.Generator().manual_seed(2), dtype=torch.float64, requires_grad=True)
    cases = [(torch.ops.syncopate.all_gather_matmul.default, (a, [b], 1, _group()), {"return_A": True}),
             (torch.ops.syncopate.matmul_reduce_scatter.default, (a, b, "sum", 1, _group()), {})]
    for op, args, kwargs in cases:
        result = torch.library.opcheck(op, args, kwargs)
        assert set(result.values()) == {"SUCCESS"}, result


def ar_values(rank, world):
    """matmul_all_reduce: every rank gets the whole sum (or mean) of the ranks' products, for 2-D and 3-D A."""
    for shape, op in (((4, 3), "sum"), ((2, 5, 3), "avg")):
        As = _shards(shape, world, seed=20 + len(shape))
        Bs = _shards((3, 6), world, seed=30)
        out = syncopate.ops.matmul_all_reduce(As[rank], Bs[rank], op, _group())
        want = sum(a @ b for a, b in zip(As, Bs))
        torch.testing.assert_close(out, want / world if op == "avg" else want)
        assert out.shape == (*shape[:-1], 6)


def ar_gradcheck(rank, world):
    for op in ("sum", "avg"):
        def whole(A_all, B_all, op=op):
            return syncopate.ops.matmul_all_reduce(_Own.apply(A_all, 1), _Own.apply(B_all, 0), op, _group())

        g = torch.Generator().manual_seed(6)
        A_all = torch.randn(3, 2 * world, dtype=torch.float64, generator=g, requires_grad=True)
        B_all = torch.randn(2 * world, 4, dtype=torch.float64, generator=g, requires_grad=True)
        torch.manual_seed(0)
        assert torch.autograd.gradcheck(whole, (A_all, B_all), fast_mode=True)


def ar_op_contract(rank, world):
    """Fake tensors give the shape; opcheck agrees with the implementation; bad arguments name the op."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        out = syncopate.ops.matmul_all_reduce(torch.empty(3, 8, 4, dtype=torch.bfloat16),
                                              torch.empty(4, 6, dtype=torch.bfloat16), "sum", _group())
    assert out.shape == (3, 8, 6) and out.dtype == torch.bfloat16
    a = _shards((2, 4, 4), world, seed=9)[rank].requires_grad_()
    b = torch.randn(4, 2, generator=torch.Generator().manual_seed(3), dtype=torch.float64, requires_grad=True)
    result = torch.library.opcheck(torch.ops.syncopate.matmul_all_reduce.default, (a, b, "sum", _group()))
    assert set(result.values()) == {"SUCCESS"}, result
    for args, words in (((torch.ones(3, 4), torch.ones(5, 2), "sum"), "first dim matches"),
                        ((torch.ones(3, 4), torch.ones(4, 2), "max"), "reduce_op")):
        try:
            syncopate.ops.matmul_all_reduce(*args, _group())
        except ValueError as err:
            assert "syncopate.ops.matmul_all_reduce" in str(err) and words in str(err), err
        else:
            raise AssertionError(f"accepted {args}")

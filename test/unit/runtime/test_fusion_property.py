"""Property: a kernel composed from idioms the compiler supports, fused with
any plan and pipeline options, is either refused cleanly (an error naming
the problem, no traceback) or passes isolated delivery at W = 2, 3, 4, where
each program sees only the chunks it waited for itself.

Hypothesis draws the idiom (how tiles read the gathered rows, or write the
reduce-scattered ones), the sizes, the plan options (order, chunks per rank)
and the pipeline options (tile order, hoisted waits). Few, small examples:
each one compiles and runs W ranks in the Triton interpreter."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.utils.exceptions import DiagnosticException

from syncopate.ir.frontend.errors import FrontendError
from syncopate.ir.plans.errors import PlanError
from syncopate.runtime.abi import AbiError
from syncopate.runtime.harness.check import RunError, compile_workload, run_simulated
from syncopate.runtime.harness.workload import WorkloadError, load_workload

CLEAN_REFUSALS = (PlanError, FrontendError, DiagnosticException, AbiError, RunError, WorkloadError)

HEADER = '''
import torch
import triton
import triton.language as tl

from syncopate.runtime.harness.workload import shard_bounds


@triton.jit
def kernel(x_ptr, out_ptr, M, N, stride_xm, stride_om, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(axis=0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
'''

# how a tile reads rows [pid*BLOCK_M, +BLOCK_M) of x (gathered) and writes them to out (scattered)
BODIES = {
    "plain": '''
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    y = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :], y * 2.0, mask=mask)
''',
    "column loop": '''
    for c0 in range(0, N, BLOCK_N):
        cols = c0 + tl.arange(0, BLOCK_N)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        y = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0)
        tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :], y + 1.0, mask=mask)
''',
    "if/else": '''
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    if pid % 2 == 0:
        y = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0) * 2.0
    else:
        y = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0) - 1.0
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :], y, mask=mask)
''',
    "pointer walk": '''
    cols = tl.arange(0, BLOCK_N)
    xp = x_ptr + rows[:, None] * stride_xm + cols[None, :]
    op = out_ptr + rows[:, None] * stride_om + cols[None, :]
    for c0 in range(0, N, BLOCK_N):
        mask = (rows[:, None] < M) & ((c0 + cols)[None, :] < N)
        tl.store(op, tl.load(xp, mask=mask, other=0.0) * 3.0, mask=mask)
        xp += BLOCK_N
        op += BLOCK_N
''',
    "row sum": '''
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    y = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0)
    total = tl.sum(y, axis=1)
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :], y - total[:, None], mask=mask)
''',
}

GATHER = '''
PLANS = [{plan!r}]
COLLECTIVES = {{"x_ptr": "x"}}


def make_inputs(rank, world, seed):
    _, size = shard_bounds(M_DIM, world, rank)
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    return {{"x": torch.randn(size, N_DIM, generator=g)}}


def launch(kernel, x):
    M, N = x.shape
    out = torch.empty(M, N)
    kernel[(triton.cdiv(M, BLOCK_M),)](x, out, M, N, x.stride(0), out.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out
'''

SCATTER = '''
PLANS = [{plan!r}]
COLLECTIVES = {{"out_ptr": "out"}}


def make_inputs(rank, world, seed):
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    return {{"x": torch.randn(M_DIM, N_DIM, generator=g)}}


def launch(kernel, x):
    M, N = x.shape
    out = torch.empty(M, N)
    kernel[(triton.cdiv(M, BLOCK_M),)](x, out, M, N, x.stride(0), out.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out
'''


@st.composite
def cases(draw):
    collective = draw(st.sampled_from(["all-gather", "reduce-scatter"]))
    body = draw(st.sampled_from(sorted(BODIES)))
    world = draw(st.sampled_from([2, 3, 4]))
    m = draw(st.integers(min_value=3, max_value=40))
    block_m = draw(st.sampled_from([4, 8, 16]))
    order = draw(st.sampled_from(["ring", "direct"]))
    per_rank = draw(st.sampled_from([1, 2]))
    tensor = "x_ptr" if collective == "all-gather" else "out_ptr"
    plan = f"{collective}{{tensor={tensor} dim=0 order={order} chunks_per_rank={per_rank}}}"
    pipeline = draw(st.sampled_from(["overlap", "overlap{order=rotate}", "overlap{order=none}",
                                     "overlap{hoist_loops=true}"]))
    return collective, body, world, m, block_m, plan, pipeline


def _source(collective: str, body: str, m: int, block_m: int, plan: str) -> str:
    sizes = f"\nM_DIM, N_DIM = {m}, 8\nBLOCK_M, BLOCK_N = {block_m}, 8\nKERNEL = kernel\n"
    tail = (GATHER if collective == "all-gather" else SCATTER).format(plan=plan)
    return HEADER + BODIES[body] + sizes + tail


@settings(max_examples=8, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_a_fused_kernel_is_refused_cleanly_or_passes_isolated_delivery(case):
    collective, body, world, m, block_m, plan, pipeline = case
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "composed.py"
        path.write_text(_source(collective, body, m, block_m, plan))
        workload = load_workload(str(path))
        try:
            program = compile_workload(workload, world, pipeline)
            results = run_simulated(workload, world, "isolated", program=program)
        except CLEAN_REFUSALS as err:
            text = str(err)
            assert text and "Traceback" not in text, text
            return
        bad = [(r.rank, r.max_error) for r in results if not r.ok]
        assert not bad, f"{body} {plan} {pipeline} W={world} M={m} BLOCK_M={block_m}: ranks {bad} differ"

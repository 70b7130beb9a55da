"""One benchmark case of any workload: the shape's :class:`BenchSpec` on this
rank, with fresh inputs and references from the workload's own module (the
GEMM problems of ``problem.py``, ``attention.py``'s, ``moe.py``'s,
``paper_layers.py``'s). It sits
above those modules, which build on ``problem.py``."""

from __future__ import annotations

from syncopate.bench.attention import CPU_ATTN, GPU_ATTN, make_attn_problem
from syncopate.bench.configs import GemmConfig
from syncopate.bench.context import BenchWorld
from syncopate.bench.moe import make_moe_problem
from syncopate.bench import paper_layers
from syncopate.bench.problem import PAPER_LAYERS, BenchSpec, make_problem
from syncopate.bench.shapes import A2A_GEMM, AG_ATTN, GEMM_WORKLOADS, Shape


def make_spec(shape: Shape, ctx: BenchWorld, config: GemmConfig, seed: int = 0) -> BenchSpec:
    """The spec of ``shape`` on this rank, with fresh inputs and references
    (``config`` is the GEMM configuration; ag-attn uses its own)."""
    if shape.workload == AG_ATTN:
        problem = make_attn_problem(shape, ctx.world, ctx.rank, ctx.device, ctx.dtype, seed)
        return BenchSpec(shape, ctx.world, ctx.rank, ctx.dtype, CPU_ATTN if ctx.cpu else GPU_ATTN, problem)
    if shape.workload in PAPER_LAYERS:
        problem = paper_layers.make_problem(shape, ctx.world, ctx.rank, ctx.device, ctx.dtype, seed)
        return BenchSpec(shape, ctx.world, ctx.rank, ctx.dtype, paper_layers.config_for(config, ctx.cpu), problem)
    if shape.workload == A2A_GEMM:
        problem = make_moe_problem(shape, ctx.world, ctx.rank, ctx.device, ctx.dtype, seed)
        return BenchSpec(shape, ctx.world, ctx.rank, ctx.dtype, config, problem)
    problem = make_problem(shape, ctx.world, ctx.rank, ctx.device, ctx.dtype, seed) \
        if shape.workload in GEMM_WORKLOADS else None
    return BenchSpec(shape, ctx.world, ctx.rank, ctx.dtype, config, problem)

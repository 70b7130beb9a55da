"""overlap-run --gpu: one rank of a workload on a GPU, fused vs reference.

Every rank draws every rank's inputs from the same seeds, so the reference
(the gathered tensor built with torch.cat, then the original kernel) needs
no communication; the fused run gathers through the GPU World.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from syncopate.runtime.check import RankResult, _collective_arg, _error, compile_workload
from syncopate.runtime.fused import FusedKernel, FusedProgram
from syncopate.runtime.gpu_world import GpuWorld, GpuWorldError
from syncopate.runtime.world import rows

ATOL = RTOL = 2e-2  # fp32 tl.dot runs in TF32 on tensor cores; the reference uses the same kernel


def _cuda(value: Any, device: torch.device) -> Any:
    return value.to(device) if isinstance(value, torch.Tensor) else value


def run_gpu(workload, world: GpuWorld, seed: int = 0, program: FusedProgram | None = None,
            launches: int = 3) -> RankResult:
    program = program or compile_workload(workload, world.world)
    r = world.rank
    inputs = [{k: _cuda(v, world.device) for k, v in workload.make_inputs(s, world.world, seed).items()}
              for s in range(world.world)]
    ref_inputs = dict(inputs[r])
    fused_inputs = dict(inputs[r])
    own_rows = {}
    for plan in program.plans:
        if plan.collective != "all-gather":
            raise GpuWorldError(f"--gpu supports all-gather plans so far, not '{plan.collective}'")
        _param, arg, dim = _collective_arg(workload, plan)
        parts = [i[arg] for i in inputs]
        full = torch.cat(parts, dim=dim).contiguous()
        ref_inputs[arg] = full
        buf = world.symmetric(full)
        start = sum(p.shape[dim] for p in parts[:r])
        own_rows[arg] = (buf, dim, start, start + parts[r].shape[dim], parts[r])
        fused_inputs[arg] = buf
    reference = workload.launch(workload.kernel, **ref_inputs)
    worst, ok = 0.0, True
    for _ in range(launches):
        for buf, dim, lo, hi, shard in own_rows.values():
            buf.fill_(float("nan"))  # poison: only delivered chunks may hold data
            rows(buf, dim, lo, hi).copy_(shard)
        torch.cuda.synchronize()
        world.barrier()  # every rank's own rows are in place before anyone pulls them
        out = workload.launch(FusedKernel(program, workload.kernel, world.context()), **fused_inputs)
        torch.cuda.synchronize()
        err = _error(out, reference)
        worst = err if math.isnan(err) or err > worst else worst
        ok = ok and out.shape == reference.shape and bool(torch.allclose(out, reference, atol=ATOL, rtol=RTOL))
        world.barrier()  # nobody poisons its buffer while a peer still copies from it
    return RankResult(r, worst, ok, 0)

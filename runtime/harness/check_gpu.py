"""overlap-run --gpu: one rank of a workload on a GPU, fused vs reference.

Every rank draws every rank's inputs from the same seeds, so the reference
(the collective done with torch.cat / the all-to-all's block shuffle / the
sum of all ranks' outputs, then the original kernel) needs no
communication; the fused run moves data through the GPU World. Each of the
``launches`` checks draws fresh random inputs (seed, launch), fills gathered
and received buffers with NaN outside this rank's own rows, and poisons the
allocator block the output will come from, so only moved data can match.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from syncopate.ir.analysis import deps
from syncopate.ir.contract import PRODUCED
from syncopate.runtime.abi import check_shards
from syncopate.runtime.harness.check import (
    RUNTIME_ERRORS,
    RankResult,
    RunError,
    _collective_arg,
    _cut,
    _error,
    _receive_buffers,
    check_world,
    compile_workload,
    outputs_of,
)
from syncopate.runtime.fused import FusedKernel, FusedProgram
from syncopate.runtime.gpu import GpuWorld
from syncopate.runtime.gpu.scratch import ensure_triton_allocator
from syncopate.runtime.rows import rows

ATOL = RTOL = 2e-2  # fp32 tl.dot runs in TF32 on tensor cores; the reference uses the same kernel


def _cuda(value: Any, device: torch.device) -> Any:
    return value.to(device) if isinstance(value, torch.Tensor) else value


class _Buffers:
    """Symmetric buffers reused across checks (allocation is collective)."""

    def __init__(self, world: GpuWorld):
        self.world = world
        self.cache: dict[tuple, torch.Tensor] = {}

    def get(self, key: str, shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
        k = (key, shape, dtype)
        if k not in self.cache:
            self.cache[k] = self.world.symmetric(torch.empty(shape, dtype=dtype))
        return self.cache[k]


def _poison_allocator(like: torch.Tensor) -> None:
    """Leave a poisoned block of ``like``'s size in the caching allocator, so
    the output ``launch`` allocates next starts as garbage (NaN, or the most
    negative integer), not as stale results."""
    if like.dtype.is_floating_point or like.dtype.is_complex:
        poison = float("nan")
    elif like.dtype == torch.bool:
        poison = True
    else:
        poison = torch.iinfo(like.dtype).min
    block = torch.full_like(like, poison)
    del block


def run_gpu(workload, world: GpuWorld, seed: int = 0, program: FusedProgram | None = None,
            launches: int = 3) -> RankResult:
    ensure_triton_allocator()
    program = program or compile_workload(workload, world.world)
    check_world(program, world.world, "GPUs")
    buffers = _Buffers(world)
    worst, ok = 0.0, True
    for i in range(launches):
        err, good = _check_once(workload, world, program, buffers, seed * 1000 + i)
        worst = err if math.isnan(err) or err > worst else worst
        ok = ok and good
    return RankResult(world.rank, worst, ok, 0)


def _check_once(workload, world: GpuWorld, program: FusedProgram, buffers: _Buffers, seed: int) -> tuple[float, bool]:
    r, w = world.rank, world.world
    inputs = [{k: _cuda(v, world.device) for k, v in workload.make_inputs(s, w, seed).items()} for s in range(w)]
    ref_inputs = [dict(i) for i in inputs]
    fused_inputs = dict(inputs[r])
    sources: dict[str, torch.Tensor] = {}
    produced = []
    shards: dict[str, tuple[str, list[tuple[int, int]]]] = {}
    for plan in program.plans:
        param, arg, dim = _collective_arg(workload, plan)
        if plan.collective in PRODUCED:  # the tensor is launch's output
            produced.append((plan, dim))
            continue
        parts = [i[arg] for i in inputs]
        if plan.collective == "all-to-all":
            received = _receive_buffers(plan, parts, dim)
            for s in range(w):
                ref_inputs[s][arg] = received[s]
            widest = max(p.shape[0] for p in parts)
            send = buffers.get("send:" + arg, (widest, *parts[r].shape[1:]), parts[r].dtype)
            send[: parts[r].shape[0]].copy_(parts[r])
            sources[param] = send[: parts[r].shape[0]]
            fused_inputs[arg] = torch.full_like(received[r], float("nan"))
        else:
            shards[param] = (arg, _cut(workload, plan, parts, arg, dim))
            full = torch.cat(parts, dim=dim).contiguous()
            for s in range(w):
                ref_inputs[s][arg] = full
            buf = buffers.get("gather:" + arg, tuple(full.shape), full.dtype)
            buf.fill_(float("nan"))  # poison: only delivered chunks may hold data
            start = sum(p.shape[dim] for p in parts[:r])
            rows(buf, dim, start, start + parts[r].shape[dim]).copy_(parts[r])
            fused_inputs[arg] = buf
    passthrough = RUNTIME_ERRORS + (RunError,)

    def outputs(kernel: Any, inputs: dict[str, Any], what: str) -> list[torch.Tensor]:
        got = outputs_of(workload, workload.call_launch(kernel, inputs, what, passthrough))
        if produced and len(got) != 1:
            raise RunError(f"{workload.path}: launch returns {len(got)} tensors; with a reduce-scatter plan it must "
                           "return the one tensor the plan reduces")
        return got

    references = outputs(workload.kernel, ref_inputs[r], "KERNEL")
    if produced:
        references = [sum(outputs(workload.kernel, ref_inputs[s], "KERNEL")[0] for s in range(w))]
    context = world.context(sources)
    # the receiver's own block of an all-to-all is in place before the launch
    for plan in program.plans:
        if plan.collective == "all-to-all":
            _param, arg, dim = _collective_arg(workload, plan)
            _place_own_block(plan, inputs[r][arg], fused_inputs[arg], r, dim)
    for ref in references:
        _poison_allocator(ref)
    # no barrier: the launch's ready tokens hold every reader until this
    # rank's rows are written, and its release tokens hold the next check's
    # poisoning until every reader is done (runtime/gpu/gather_tokens.py)
    outs = outputs(FusedKernel(program, workload.kernel, context), fused_inputs, "the fused kernel")
    torch.cuda.synchronize()
    check_shards(context.last, shards)  # a shard cut unlike the plan moved the wrong rows: misuse, not a mismatch
    if len(outs) != len(references):
        raise RunError(f"{workload.path}: launch returned {len(references)} tensor(s) with the original kernel and "
                       f"{len(outs)} with the fused one")
    if any(o.shape != ref.shape for o, ref in zip(outs, references)):
        return math.inf, False
    out, reference = torch.cat([o.flatten() for o in outs]), torch.cat([ref.flatten() for ref in references])
    if produced:
        out, reference = outs[0], references[0]
        got, want = [], []
        for plan, dim in produced:
            chunks = context.last.chunks[plan.sym_name.data]
            for c in chunks:  # a reduce-scatter leaves this rank its own rows summed, an all-reduce every row
                if c.is_local and (c.dst == r or plan.collective == "all-reduce"):
                    got.append(rows(out, dim, c.lo, c.hi).flatten())
                    want.append(rows(reference, dim, c.lo, c.hi).flatten())
        out, reference = torch.cat(got), torch.cat(want)
    err = _error(out, reference)
    good = out.shape == reference.shape and bool(torch.allclose(out, reference, atol=ATOL, rtol=RTOL))
    return err, good


def _place_own_block(plan, send: torch.Tensor, recv: torch.Tensor, r: int, dim: int) -> None:
    split = deps.split_matrix(plan)
    recv_start = sum(split[s][r] for s in range(r))
    send_start = sum(split[r][:r])
    n = split[r][r]
    rows(recv, dim, recv_start, recv_start + n).copy_(rows(send, dim, send_start, send_start + n))


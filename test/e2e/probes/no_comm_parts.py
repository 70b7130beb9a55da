"""Device probe (not a test): what each part of a fused reduce-scatter GEMM
costs without communication, against the plain Triton kernel.

    python3 test/e2e/probes/no_comm_parts.py
    SHAPES=4096x8192x8192 KERNELS=ptr WORLDS=1,4 ROUNDS=15 python3 test/e2e/probes/no_comm_parts.py

For each shape (M x N x K, bf16, B as K x N) and each GEMM kernel of the
bench (``ptr``: one program per tile; ``persistent``: SM-count programs over
a tile loop; ``persistent-flat``: its tile and K loops pipelined as one), it compiles the bench's program of each workload in ``WORKLOADS``
(default gemm-rs; ag-gemm gets the whole gathered A; ce backend, arrival
order) for each world size in ``WORLDS`` and launches it through
``runtime.local.LocalRank`` as rank 0 (every flag raised, nothing moved: the
bench's "no-comm" row). Variants of the emitted source isolate the parts:

- ``fused``: the emitted kernel as it is;
- ``nosig``: its tile signals removed;
- ``sig1``: one signal per tile, to the first chunk's flag, without
  the walk over the chunk table; ``nobar``: the same without the barrier
  before it; ``sigvec``: the walk as one masked vector of atomics (at most
  16 chunks); ``barloop``: the barrier inside the walk, just before each
  atomic; ``spec``: the kernel without its jit's ``do_not_specialize`` of
  the chunk counts (lowering/runtime_counts.py), so Triton turns a count
  of 1 into a constant;
- ``noorder``: the tile order table read replaced by the program's own
  tile (the original order);

Every variant's output is checked against ``torch.matmul`` first; a
wrong one is reported and not timed. Each
variant then runs as a CUDA graph of ``LAUNCHES`` launches, variants
interleaved over ``ROUNDS`` rounds; the table gives the median and the
minimum per launch in microseconds and each median over the plain
kernel's. A variant with nothing to edit in a kernel is left out.
Variants that drop signals are not correct protocols: they
only measure.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import re
import statistics

import torch

ROUNDS, LAUNCHES = int(os.environ.get("ROUNDS", "15")), int(os.environ.get("LAUNCHES", "10"))
SHAPES = os.environ.get("SHAPES", "4096x8192x8192,8192x8192x8192,4096x8192x4096,16384x8192x8192,4096x28672x8192")
WORKLOADS = os.environ.get("WORKLOADS", "gemm-rs").split(",")
KERNELS = os.environ.get("KERNELS", "ptr,persistent,persistent-flat").split(",")
VARIANTS = os.environ.get("VARIANTS", "fused,spec,nosig,sig1,nobar,sigvec,noorder").split(",")
WORLDS = [int(w) for w in os.environ.get("WORLDS", "1,4").split(",")]
SIGNAL_CALL = re.compile(r"^(\s+)syn_signal_span\((.*)\)$", re.M)
ONE_SIGNAL = """def syn_signal_span(flags, table, n, lo, hi):
    tl.debug_barrier()
    tl.atomic_add(flags + tl.load(table + 2), 1, sem='release', scope='sys')
"""
NO_BARRIER = ONE_SIGNAL.replace("    tl.debug_barrier()\n", "")
VECTOR_SIGNAL = """def syn_signal_span(flags, table, n, lo, hi):
    tl.debug_barrier()
    i = tl.arange(0, 16)
    chunk_lo = tl.load(table + 3 * i, mask=i < n, other=0)
    chunk_hi = tl.load(table + 3 * i + 1, mask=i < n, other=0)
    flag = tl.load(table + 3 * i + 2, mask=i < n, other=0)
    tl.atomic_add(flags + flag, 1, mask=(i < n) & (chunk_lo < hi) & (chunk_hi > lo), sem='release', scope='sys')
"""
BARRIER_IN_LOOP = """def syn_signal_span(flags, table, n, lo, hi):
    for i in range(n):
        chunk_lo = tl.load(table + 3 * i)
        chunk_hi = tl.load(table + 3 * i + 1)
        if (chunk_lo < hi) & (chunk_hi > lo):
            tmp = tl.load(table + 3 * i + 2)
            tl.debug_barrier()
            tl.atomic_add(flags + tmp, 1, sem='release', scope='sys')
"""
HELPERS = {"sig1": ONE_SIGNAL, "nobar": NO_BARRIER, "sigvec": VECTOR_SIGNAL, "barloop": BARRIER_IN_LOOP}


def edited(program, name: str):
    """``program`` with its emitted source edited as variant ``name``."""
    src = program.source
    if name == "nosig":
        src = SIGNAL_CALL.sub(r"\1pass", src)
    elif name in HELPERS and "def syn_signal_span(" in src:
        start = src.index("def syn_signal_span(")
        end = src.find("\n\n\n", start)
        src = src[:start] + HELPERS[name] + (src[end:] if end >= 0 else "\n")
    elif name == "spec":  # Triton may specialize the chunk counts again (a one-row table becomes a constant)
        src = re.sub(r"^@triton\.jit\(do_not_specialize=\[[^\]]*\]\)$", "@triton.jit", src, count=1, flags=re.M)
    elif name == "noorder":
        src = re.sub(r"syn_tile_pid0\(syn_tile_order, (\w+), [^\n]*?\)$", r"\1", src, flags=re.M)
        src = re.sub(r"syn_tile_pid1\(syn_tile_order, \w+, (\w+), [^\n]*?\)$", r"\1", src, flags=re.M)
    if src == program.source:
        return program if name == "fused" else None
    path = f"/tmp/syncopate-probe-{name}-{abs(hash(src))}.py"
    with open(path, "w") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location(f"probe_{name}_{abs(hash(src))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dataclasses.replace(program, source=src, path=path, jit=getattr(module, program.kernel_name))


def graph_of(launch):
    launch()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(LAUNCHES):
            launch()
    return graph


def main() -> None:
    os.environ.pop("TRITON_INTERPRET", None)
    from syncopate.bench.configs import GemmConfig
    from syncopate.bench.fused import program_for
    from syncopate.bench.gemm import gemm_kernel, launch_gemm
    from syncopate.runtime.fused import FusedKernel
    from syncopate.runtime.local import LocalRank

    device = torch.device("cuda", 0)
    torch.cuda.set_device(device)
    print(f"{'shape':>18} {'kernel':>10} {'variant':>14} {'median us':>10} {'min us':>9} {'/plain':>7}")
    for shape in SHAPES.split(","):
        m, n, k = (int(x) for x in shape.split("x"))
        gen = torch.Generator().manual_seed(7)
        a = torch.randn(m, k, generator=gen).to(device, torch.bfloat16)
        b = (torch.randn(k, n, generator=gen) / 32).to(device, torch.bfloat16)
        ref = (a.float() @ b.float())
        for kind in KERNELS:
            cfg = GemmConfig(128, 256, 64, 8, 3, kind)
            plain = gemm_kernel(cfg)
            rows = {"plain": (plain, torch.empty(m, n, dtype=a.dtype, device=device))}
            for workload in WORKLOADS:
                for w in WORLDS:
                    program = program_for(workload, w, "ce", "arrival", cfg)
                    for name in VARIANTS:
                        if (variant := edited(program, name)) is not None:  # None: nothing of it in this kernel
                            rows[f"{workload[:2]}:{name}/W{w}"] = (FusedKernel(variant, plain, LocalRank(device, 0)),
                                                                   torch.empty(m, n, dtype=a.dtype, device=device))
            graphs = {}
            for label, (kernel, out) in rows.items():
                out.fill_(float("nan"))
                launch_gemm(kernel, a, b, out, cfg)
                torch.cuda.synchronize()
                err = ((out.float() - ref).abs().max() / ref.abs().max()).item()
                if not err < 2e-2:  # nan included
                    print(f"{shape:>18} {kind:>10} {label:>14} WRONG: relative max error {err}; not timed", flush=True)
                    continue
                graphs[label] = graph_of(lambda kernel=kernel, out=out: launch_gemm(kernel, a, b, out, cfg))
            times: dict[str, list[float]] = {label: [] for label in graphs}
            for _ in range(ROUNDS):
                for label, graph in graphs.items():
                    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    start.record()
                    graph.replay()
                    end.record()
                    end.synchronize()
                    times[label].append(start.elapsed_time(end) * 1e3 / LAUNCHES)
            base = statistics.median(times["plain"])
            for label, t in times.items():
                print(f"{shape:>18} {kind:>10} {label:>14} {statistics.median(t):10.1f} {min(t):9.1f} "
                      f"{statistics.median(t) / base:7.3f}", flush=True)


if __name__ == "__main__":
    main()

"""Device probe (not a test): what each part of a fused reduce-scatter GEMM
costs without communication, against the plain Triton kernel.

    python3 test/e2e/probes/no_comm_parts.py
    SHAPES=4096x8192x8192 KERNELS=ptr WORLDS=1,4 ROUNDS=15 python3 test/e2e/probes/no_comm_parts.py

``SHAPES=bench``: every default shape of overlap-bench of ``WORKLOADS``,
as the GEMM one rank runs at each W of ``WORLDS`` (the no-comm row of a
W-rank run, measured on one GPU), and a closing summary: per case the
fused kernel over the fastest plain kernel of ``KERNELS``, then per W the
geometric mean, the worst and the count at or below 1.02 (issue 37).

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


def cases():
    """(label, m, n, k, [(workload, world), ...]) to run: ``SHAPES`` as
    given, or with ``SHAPES=bench`` every default ag-gemm and gemm-rs shape
    of overlap-bench at each world size, as the GEMM one rank runs there."""
    if SHAPES != "bench":
        for shape in SHAPES.split(","):
            m, n, k = (int(x) for x in shape.split("x"))
            yield shape, m, n, k, [(workload, w) for workload in WORKLOADS for w in WORLDS]
        return
    from syncopate.bench.shapes import LABEL_PREFIX, select_shapes

    for w in WORLDS:
        for shape in select_shapes(WORKLOADS, None, w):
            m, k, n = shape.local(w).gemm
            yield f"{LABEL_PREFIX[shape.workload]} {shape.key} W{w}", m, n, k, [(shape.workload, w)]


def time_rows(rows, a, b, ref, cfg, label_of):
    """Median and minimum µs per launch of each checked row (CUDA graphs, rounds interleaved)."""
    from syncopate.bench.gemm import launch_gemm

    graphs = {}
    for label, (kernel, out) in rows.items():
        out.fill_(float("nan"))
        launch_gemm(kernel, a, b, out, cfg)
        torch.cuda.synchronize()
        err = ((out.float() - ref).abs().max() / ref.abs().max()).item()
        if not err < 2e-2:  # nan included
            print(f"{label_of(label)} WRONG: relative max error {err}; not timed", flush=True)
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
    return {label: (statistics.median(t), min(t)) for label, t in times.items()}


def main() -> None:
    os.environ.pop("TRITON_INTERPRET", None)
    from syncopate.bench.configs import GemmConfig
    from syncopate.bench.fused import program_for
    from syncopate.bench.gemm import gemm_kernel
    from syncopate.runtime.fused import FusedKernel
    from syncopate.runtime.local import LocalRank

    device = torch.device("cuda", 0)
    torch.cuda.set_device(device)
    print(f"{'shape':>26} {'kernel':>15} {'variant':>14} {'median us':>10} {'min us':>9} {'/plain':>7}")
    best: dict[str, tuple[float, float, str]] = {}  # case -> (plain, fused, kernel) of the fastest plain kernel
    for shape, m, n, k, runs in cases():
        gen = torch.Generator().manual_seed(7)
        a = torch.randn(m, k, generator=gen).to(device, torch.bfloat16)
        b = (torch.randn(k, n, generator=gen) / 32).to(device, torch.bfloat16)
        ref = (a.float() @ b.float())
        for kind in KERNELS:
            cfg = GemmConfig(128, 256, 64, 8, 3, kind)
            plain = gemm_kernel(cfg)
            rows = {"plain": (plain, torch.empty(m, n, dtype=a.dtype, device=device))}
            for workload, w in runs:
                program = program_for(workload, w, "ce", "arrival", cfg)
                for name in VARIANTS:
                    if (variant := edited(program, name)) is not None:  # None: nothing of it in this kernel
                        rows[f"{workload[:2]}:{name}/W{w}"] = (FusedKernel(variant, plain, LocalRank(device, 0)),
                                                               torch.empty(m, n, dtype=a.dtype, device=device))
            timed = time_rows(rows, a, b, ref, cfg, lambda label: f"{shape:>26} {kind:>15} {label:>14}")
            if "plain" not in timed:
                continue
            base = timed["plain"][0]
            for label, (median, least) in timed.items():
                print(f"{shape:>26} {kind:>15} {label:>14} {median:10.1f} {least:9.1f} {median / base:7.3f}", flush=True)
            fused = [t for label, (t, _) in timed.items() if label.endswith(f"fused/W{runs[0][1]}")]
            if fused and len(runs) == 1 and (shape not in best or base < best[shape][0]):
                best[shape] = (base, fused[0], kind)
    summarize(best)


def summarize(best: dict[str, tuple[float, float, str]]) -> None:
    """Per world size: the fused kernel over the fastest plain kernel, per case, geomean and worst."""
    if not best:
        return
    print("\nfused (no communication) / fastest plain kernel, per case (SHAPES=bench):")
    for shape, (plain, fused, kind) in best.items():
        print(f"{shape:>26} {kind:>15} {plain:10.1f} {fused:10.1f} {fused / plain:7.3f}")
    for w in sorted({label.rsplit("W", 1)[1] for label in best}):
        ratios = [f / p for label, (p, f, _) in best.items() if label.endswith(f"W{w}")]
        worst = max(ratios)
        print(f"W = {w}: geometric mean {statistics.geometric_mean(ratios):.3f} over {len(ratios)} cases, "
              f"worst {worst:.3f}, <= 1.02 on {sum(r <= 1.02 for r in ratios)}/{len(ratios)}")


if __name__ == "__main__":
    main()

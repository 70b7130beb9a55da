"""Device probe (not a test): measures the GEMM configurations of
``syncopate.ops``' fused kernel per shape and writes the table the ops ship
(pytorch/gemm_table.json):

    torchrun --standalone --nproc-per-node=1 test/e2e/probes/ops_gemm_table.py [OUT.json]

The ops' two library GEMMs (kernels/gemm_bf16.py, the pointer kernel, and
kernels/gemm_bf16_persistent.py, launched as pytorch/gemm_choice.py
launches it: one program per SM, ``B_NK`` from B's layout) are fused with the ops' own plans
(``all-gather`` of A's rows, ``reduce-scatter`` of C's rows) and pipeline
(``overlap``) at W = 1 on one GPU: tile reorder and the waits and signals
on local chunks run as in a real launch, without transfers, so what is
timed is the kernel's compute. For every per-rank GEMM of the bench's
ag-gemm and gemm-rs shapes (anchor, Llama and paper groups) at W = 2 and
4, plus the paper shapes at M = 1024 to 4096 (serving), with B as
``nn.Linear`` keeps a weight (N x K, used transposed: torch TP's layout,
``b_nk``) and as a contiguous K x N matrix, each candidate of ``CONFIGS``
is checked against ``torch.matmul`` and timed (``triton.testing.do_bench``,
median ms); the fastest is the shape's entry, with its ``kernel``. ``cublas_ms`` is
``torch.matmul`` on the same operands, for reference. ``SHAPES=N`` keeps
the first N GEMMs (a quick run).
"""

from __future__ import annotations

import json
import os
import sys

import torch
import triton

# (kernel, BLOCK_M, BLOCK_N, BLOCK_K, warps, stages): the pointer kernel's tiles that won a shape before, and the
# persistent kernel's two (its 128 x 256 tile fits three stages in shared memory)
CONFIGS = (("ptr", 128, 256, 64, 8, 3), ("ptr", 128, 256, 64, 8, 4), ("ptr", 128, 128, 64, 8, 3),
           ("persistent", 128, 256, 64, 8, 3), ("persistent", 128, 128, 64, 8, 4))
SERVING_ROWS = (1024, 2048, 4096)


def gemms() -> list[tuple[str, int, int, int]]:
    """(kind, m, k, n) of every per-rank GEMM the table covers, without repeats."""
    from syncopate.bench.shapes import AG_GEMM, GEMM_RS, LLAMA, PAPER, SHAPES, ANCHOR

    found: list[tuple[str, int, int, int]] = []
    for shape in SHAPES:
        if shape.workload not in (AG_GEMM, GEMM_RS) or not set(shape.groups) & {ANCHOR, LLAMA, PAPER}:
            continue
        kind = "ag" if shape.workload == AG_GEMM else "rs"
        for world in (2, 4):
            m, k, n = shape.local(world).gemm
            rows = (m, *SERVING_ROWS) if PAPER in shape.groups else (m,)
            found += [(kind, r, k, n) for r in rows if (kind, r, k, n) not in found]
    return found


def main() -> None:
    os.environ.pop("TRITON_INTERPRET", None)
    from syncopate import kernels
    from syncopate.kernels.gemm_bf16 import gemm_kernel
    from syncopate.kernels.gemm_bf16_persistent import gemm_persistent_kernel
    from syncopate.pytorch import gemm_choice
    from syncopate.runtime.fused import FusedKernel, compile_fused
    from syncopate.runtime.gpu import GpuWorld
    from syncopate.runtime.gpu.scratch import ensure_triton_allocator

    world = GpuWorld.from_torchrun()
    ensure_triton_allocator()
    plans = {"ag": "all-gather{tensor=a_ptr dim=0 world=1}", "rs": "reduce-scatter{tensor=c_ptr dim=0 world=1}"}
    sources = {"ptr": ("gemm_bf16.py", gemm_kernel), "persistent": ("gemm_bf16_persistent.py", gemm_persistent_kernel)}
    fused = {(kind, kernel): FusedKernel(compile_fused(kernels.source_path(file), original.__name__, [spec], "overlap"),
                                         original, world.context())
             for kind, spec in plans.items() for kernel, (file, original) in sources.items()}
    chosen = gemms()[:int(os.environ.get("SHAPES", "100000"))]
    props = torch.cuda.get_device_properties(world.device)
    programs = props.multi_processor_count
    table = {"about": "Measured by test/e2e/probes/ops_gemm_table.py: the fused library GEMMs (kernels/gemm_bf16.py, "
                      "kernels/gemm_bf16_persistent.py) at W = 1, fastest kernel and tile per per-rank GEMM (kind, m, "
                      "k, n, B layout); read by pytorch/gemm_choice.measured_tile.",
             "command": "torchrun --standalone --nproc-per-node=1 test/e2e/probes/ops_gemm_table.py "
                        "pytorch/gemm_table.json",
             "device": props.name, "capability": [props.major, props.minor], "sms": props.multi_processor_count,
             "triton": triton.__version__, "torch": torch.__version__, "entries": []}
    path = sys.argv[1] if len(sys.argv) > 1 else "gemm_table.json"
    entries = table["entries"]
    torch.manual_seed(0)
    for i, (kind, m, k, n) in enumerate(chosen):
        source = torch.randn(m, k, device=world.device, dtype=torch.bfloat16)
        a = world.symmetric(source) if kind == "ag" else source
        a.copy_(source)
        weight = torch.randn(n, k, device=world.device, dtype=torch.bfloat16) * 0.02
        for b_nk, b in ((True, weight.t()), (False, weight.t().contiguous())):
            c = torch.empty(m, n, device=world.device, dtype=torch.bfloat16)
            ref = a @ b
            cublas = triton.testing.do_bench(lambda: a @ b, warmup=5, rep=25)
            times = {}
            for kernel, bm, bn, bk, warps, stages in CONFIGS:
                args = (a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
                options = dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, num_warps=warps, num_stages=stages)
                if kernel == "ptr":
                    def run(kernel=kernel, args=args, options=options, bm=bm, bn=bn):
                        fused[kind, kernel][(triton.cdiv(m, bm), triton.cdiv(n, bn))](*args, **options)
                else:
                    def run(kernel=kernel, args=args, options=options):
                        fused[kind, kernel][(programs,)](*args, **options, PROGRAMS=programs,
                                                         GROUP_M=gemm_choice.PERSISTENT_GROUP_M, FLATTEN=False,
                                                         B_NK=b_nk)
                c.zero_()
                run()
                torch.cuda.synchronize()
                err = ((c.float() - ref.float()).abs().max() / ref.float().abs().max()).item()
                if err > 2e-2:
                    raise SystemExit(f"{kind} {m}x{k}x{n} b_nk={b_nk} {kernel} {bm}x{bn}x{bk}: off by {err:.3g}")
                times[f"{kernel}:{bm}x{bn}x{bk}x{warps}x{stages}"] = triton.testing.do_bench(run, warmup=5, rep=25)
            best = min(times, key=times.get)
            kernel, tile = best.split(":")
            entries.append({"kind": kind, "m": m, "k": k, "n": n, "b_nk": b_nk, "kernel": kernel,
                            "tile": [int(x) for x in tile.split("x")],
                            "ms": round(times[best], 4), "cublas_ms": round(cublas, 4),
                            "ms_by_tile": {t: round(v, 4) for t, v in times.items()}})
            print(f"[{i + 1}/{len(chosen)}] {kind} {m}x{k}x{n} b_nk={int(b_nk)}: best {best} {times[best]:.3f} ms, "
                  f"ptr 128x256 {times['ptr:128x256x64x8x3']:.3f}, cuBLAS {cublas:.3f}", flush=True)
        with open(path, "w") as f:  # after every shape, so a cut-short run keeps what it measured
            json.dump(table, f, indent=1)
    print(f"wrote {len(entries)} entries to {path}")
    torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()

"""Device probe (not a test): measures the GEMM configurations of
``syncopate.ops``' fused kernel per shape and writes the table the ops ship
(pytorch/gemm_table.json):

    torchrun --standalone --nproc-per-node=1 test/e2e/probes/ops_gemm_table.py [OUT.json]

The library GEMM (kernels/gemm_bf16.py) is fused with the ops' own plans
(``all-gather`` of A's rows, ``reduce-scatter`` of C's rows) and pipeline
(``overlap``) at W = 1 on one GPU: tile reorder and the waits and signals
on local chunks run as in a real launch, without transfers, so what is
timed is the kernel's compute. For every per-rank GEMM of the bench's
ag-gemm and gemm-rs shapes (anchor, Llama and paper groups) at W = 2 and
4, plus the paper shapes at M = 1024 to 4096 (serving), with B as
``nn.Linear`` keeps a weight (N x K, used transposed: torch TP's layout,
``b_nk``) and as a contiguous K x N matrix, each candidate of ``CONFIGS``
is checked against ``torch.matmul`` and timed (``triton.testing.do_bench``,
median ms); the fastest is the shape's entry. ``cublas_ms`` is
``torch.matmul`` on the same operands, for reference. ``SHAPES=N`` keeps
the first N GEMMs (a quick run).
"""

from __future__ import annotations

import json
import os
import sys

import torch
import triton

CONFIGS = ((128, 256, 64, 8, 3), (128, 128, 64, 8, 3), (128, 128, 64, 4, 4), (64, 128, 64, 4, 4),
           (128, 256, 64, 8, 4), (256, 128, 64, 8, 3))  # (BLOCK_M, BLOCK_N, BLOCK_K, warps, stages)
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
    from syncopate.runtime.fused import FusedKernel, compile_fused
    from syncopate.runtime.gpu import GpuWorld

    world = GpuWorld.from_torchrun()
    plans = {"ag": "all-gather{tensor=a_ptr dim=0 world=1}", "rs": "reduce-scatter{tensor=c_ptr dim=0 world=1}"}
    fused = {kind: FusedKernel(compile_fused(kernels.source_path("gemm_bf16.py"), "gemm_kernel", [spec], "overlap"),
                               gemm_kernel, world.context()) for kind, spec in plans.items()}
    chosen = gemms()[:int(os.environ.get("SHAPES", "100000"))]
    props = torch.cuda.get_device_properties(world.device)
    table = {"device": props.name, "capability": [props.major, props.minor], "sms": props.multi_processor_count,
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
            for bm, bn, bk, warps, stages in CONFIGS:
                def run(bm=bm, bn=bn, bk=bk, warps=warps, stages=stages):
                    fused[kind][(triton.cdiv(m, bm), triton.cdiv(n, bn))](
                        a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, num_warps=warps, num_stages=stages)
                c.zero_()
                run()
                torch.cuda.synchronize()
                err = ((c.float() - ref.float()).abs().max() / ref.float().abs().max()).item()
                if err > 2e-2:
                    raise SystemExit(f"{kind} {m}x{k}x{n} b_nk={b_nk} {bm}x{bn}x{bk}: off by {err:.3g}")
                times[f"{bm}x{bn}x{bk}x{warps}x{stages}"] = triton.testing.do_bench(run, warmup=5, rep=25)
            best = min(times, key=times.get)
            entries.append({"kind": kind, "m": m, "k": k, "n": n, "b_nk": b_nk, "tile": [int(x) for x in best.split("x")],
                            "ms": round(times[best], 4), "cublas_ms": round(cublas, 4),
                            "ms_by_tile": {t: round(v, 4) for t, v in times.items()}})
            print(f"[{i + 1}/{len(chosen)}] {kind} {m}x{k}x{n} b_nk={int(b_nk)}: best {best} {times[best]:.3f} ms, "
                  f"128x256 {times['128x256x64x8x3']:.3f}, cuBLAS {cublas:.3f}", flush=True)
        with open(path, "w") as f:  # after every shape, so a cut-short run keeps what it measured
            json.dump(table, f, indent=1)
    print(f"wrote {len(entries)} entries to {path}")
    torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()

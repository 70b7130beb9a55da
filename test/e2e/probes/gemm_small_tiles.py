"""Plain Triton (unfused), one GPU: the worst small AG GEMMs of pytorch/gemm_table.json in more tile shapes of
the persistent and pointer kernels than the ops choose from, against cuBLAS; every output is checked first.

    python3 test/e2e/probes/gemm_small_tiles.py

Prints, per shape and B layout (nn.Linear's N x K or K x N), cuBLAS's time and each tile's speed as a fraction
of cuBLAS (BAD: a wrong result; fail: the tile does not compile)."""
import torch
import triton
from syncopate.bench.configs import GemmConfig
from syncopate.bench.gemm import gemm_kernel, launch_gemm

SHAPES = [(1024, 4096, 2752), (1024, 4096, 5504), (2048, 4096, 2752), (2048, 4096, 7168), (1024, 4096, 3584)]
CFGS = [("persistent", 128, 256, 64, 8, 3), ("persistent", 128, 128, 64, 8, 4), ("persistent", 64, 128, 64, 4, 4),
        ("persistent", 64, 256, 64, 8, 3), ("persistent", 64, 256, 64, 4, 4), ("persistent", 128, 64, 64, 4, 4),
        ("persistent", 128, 128, 128, 8, 3), ("persistent", 64, 128, 128, 4, 3), ("persistent", 128, 256, 32, 8, 4),
        ("persistent", 64, 64, 64, 4, 4), ("ptr", 64, 256, 64, 8, 3), ("ptr", 128, 64, 64, 4, 4), ("ptr", 64, 128, 64, 4, 4)]
for m, k, n in SHAPES:
    for nk in (True, False):
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16) * 0.02
        b = w.t() if nk else w.t().contiguous()
        c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        ref = a.float() @ b.float()
        tc = triton.testing.do_bench(lambda: a @ b, warmup=10, rep=50)
        row = []
        for kind, bm, bn, bk, wp, st in CFGS:
            cfg = GemmConfig(block_m=bm, block_n=bn, block_k=bk, num_warps=wp, num_stages=st, kernel=kind)
            try:
                kern = gemm_kernel(cfg)
                f = lambda: launch_gemm(kern, a, b, c, cfg)
                c.zero_(); f(); torch.cuda.synchronize()
                err = ((c.float() - ref).abs().max() / ref.abs().max()).item()
                if err > 2e-2:
                    row.append(f"{kind[:4]}{bm}x{bn}x{bk}w{wp}s{st}=BAD"); continue
                t = triton.testing.do_bench(f, warmup=10, rep=50)
                row.append((tc / t, f"{kind[:4]}{bm}x{bn}x{bk}w{wp}s{st}={tc / t:.2f}"))
            except Exception as ex:
                row.append(f"{kind[:4]}{bm}x{bn}x{bk}w{wp}s{st}=fail:{type(ex).__name__}")
        ok = sorted([r for r in row if isinstance(r, tuple)], reverse=True)
        print(f"ag {m} {k} {n} {'nk' if nk else 'kn'} cuBLAS {tc * 1e3:.1f} us | best {ok[0][1] if ok else '-'} | "
              + " ".join(r[1] if isinstance(r, tuple) else r for r in row), flush=True)

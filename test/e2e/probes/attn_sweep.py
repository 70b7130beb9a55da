"""Device probe (not a test): the benchmark's Triton attention kernel
(``kernels/attn_bf16.py``) over block sizes, warps and stages, against
torch SDPA, on one GPU:

    python3 test/e2e/probes/attn_sweep.py

Shapes are the ag-attn anchor's per-rank work at W = 2 and 4 (S_q = 4096 and
2048 queries, N_KV = 8192 keys, 64 heads, 8 K/V heads, head dim 128). Each
configuration is checked against SDPA (max abs error printed) before it is
timed with ``triton.testing.do_bench``.
"""

import torch
import triton

from syncopate.kernels.attn_bf16 import attn_kernel

CONFIGS = ((128, 64, 8, 3), (128, 128, 8, 3), (128, 64, 4, 3), (128, 128, 8, 2), (64, 64, 4, 3), (128, 64, 8, 4),
           (256, 64, 8, 3), (128, 32, 4, 4))  # (BLOCK_M, BLOCK_N, warps, stages)


def sdpa(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    q, k, v = (x.transpose(0, 1).unsqueeze(0) for x in (q, k, v))
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=True)[0].transpose(0, 1)


def main() -> None:
    torch.manual_seed(0)
    n_kv, heads, kv_heads, dim = 8192, 64, 8, 128
    for s_q in (4096, 2048):
        q = torch.randn(s_q, heads, dim, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(n_kv, kv_heads, dim, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(n_kv, kv_heads, dim, device="cuda", dtype=torch.bfloat16)
        o = torch.empty_like(q)
        ref = sdpa(q, k, v)
        flops = 4 * s_q * n_kv * dim * heads
        ms = triton.testing.do_bench(lambda: sdpa(q, k, v), warmup=20, rep=100)
        print(f"S_q={s_q} N_kv={n_kv}: SDPA {ms:.3f} ms {flops / ms / 1e9:.0f} TFLOP/s", flush=True)
        for bm, bn, warps, stages in CONFIGS:
            def run(bm=bm, bn=bn, warps=warps, stages=stages) -> None:
                attn_kernel[(s_q // bm, heads)](q, k, v, o, s_q, n_kv, dim ** -0.5, *q.stride(), *k.stride(),
                                                *v.stride(), *o.stride(), GROUP=heads // kv_heads, BLOCK_M=bm,
                                                BLOCK_N=bn, BLOCK_D=dim, num_warps=warps, num_stages=stages)
            try:
                run()
                torch.cuda.synchronize()
                err = (o.float() - ref.float()).abs().max().item()
                ms = triton.testing.do_bench(run, warmup=10, rep=60)
                print(f"  {bm}x{bn} w{warps} s{stages}: {ms:.3f} ms {flops / ms / 1e9:.0f} TFLOP/s err {err:.3g}",
                      flush=True)
            except Exception as exc:  # a configuration that does not fit (shared memory, registers)
                print(f"  {bm}x{bn} w{warps} s{stages}: failed: {type(exc).__name__} {str(exc)[:80]}", flush=True)


if __name__ == "__main__":
    main()

"""Device probe (not a test): the ops' shared-A GEMM (kernels/gemm_shared_a.py)
against what the fused op ran for shared inputs before it, and against
cuBLAS, fused at W = 1 on one GPU (tile-reorder and the waits, on local
chunks: the kernels' compute without transfers):

    torchrun --standalone --nproc-per-node=1 test/e2e/probes/shared_a_gemm.py

Rows: a Llama-70B layer's Q/K/V and gate/up projections per rank at W = 2
and 4 (hidden 8192, 64 query and 8 K/V heads of 128, FFN 28672), for 4k
and 8k gathered tokens, bf16, the weights as ``nn.Linear`` keeps them
(N x K, used transposed). Columns (ms, ``triton.testing.do_bench``):
``cuBLAS``, one ``torch.matmul`` per B; ``before``, the fused library GEMM
(kernels/gemm_bf16.py, in the cost model's tile) for the first B and ``torch.matmul`` for the rest;
``shared-A``, the fused shared-A kernel for all, launched as the op
launches it (``fused_ops.gemm_shared_a``). Every output is checked against
``torch.matmul`` before timing.
"""

import os

import torch
import triton

HIDDEN, HEADS, KV_HEADS, HEAD_DIM, FFN = 8192, 64, 8, 128, 28672
PIPELINE = "overlap{order=arrival backend=ce}"


def relative_error(got: torch.Tensor, want: torch.Tensor) -> float:
    return ((got.float() - want.float()).abs().max() / want.float().abs().max()).item()


def main() -> None:
    os.environ.pop("TRITON_INTERPRET", None)
    from syncopate import kernels
    from syncopate.kernels.gemm_bf16 import gemm_kernel
    from syncopate.kernels.gemm_shared_a import gemm_shared_a_kernel
    from syncopate.pytorch import fused_ops, gemm_choice
    from syncopate.runtime.fused import FusedKernel, compile_fused
    from syncopate.runtime.gpu import GpuWorld

    world = GpuWorld.from_torchrun()
    plan = ["all-gather{tensor=a_ptr dim=0 world=1}"]
    plain = FusedKernel(compile_fused(kernels.source_path("gemm_bf16.py"), "gemm_kernel", plan, PIPELINE),
                        gemm_kernel, world.context())
    shared = FusedKernel(compile_fused(kernels.source_path("gemm_shared_a.py"), "gemm_shared_a_kernel", plan,
                                       PIPELINE), gemm_shared_a_kernel, world.context())
    torch.manual_seed(0)
    print(f"fused at W = 1 on {torch.cuda.get_device_name(world.device)}, bf16, ms")
    print(f"{'projection':<16}{'tokens':>7}{'cuBLAS':>9}{'before':>9}{'shared-A':>10}{'vs before':>11}{'vs cuBLAS':>11}")
    for w in (2, 4):
        qkv = (HEADS * HEAD_DIM // w, KV_HEADS * HEAD_DIM // w, KV_HEADS * HEAD_DIM // w)
        for name, widths in ((f"qkv W={w}", qkv), (f"gate/up W={w}", (FFN // w, FFN // w))):
            for tokens in (4096, 8192):
                source = torch.randn(tokens, HIDDEN, device=world.device, dtype=torch.bfloat16)
                a = world.symmetric(source)  # not filled
                a.copy_(source)
                bs = [(torch.randn(n, HIDDEN, device=world.device, dtype=torch.bfloat16) * 0.02).t() for n in widths]
                cs = [torch.empty(tokens, n, device=world.device, dtype=torch.bfloat16) for n in widths]
                refs = [a @ b for b in bs]

                m, n = tokens, widths[0]
                t = gemm_choice.gemm_tile(m, n, gemm_choice.sms(a.device))

                def before():
                    plain[(triton.cdiv(m, t.block_m), triton.cdiv(n, t.block_n))](
                        a, bs[0], cs[0], m, n, HIDDEN, a.stride(0), a.stride(1), bs[0].stride(0), bs[0].stride(1),
                        cs[0].stride(0), cs[0].stride(1), BLOCK_M=t.block_m, BLOCK_N=t.block_n, BLOCK_K=t.block_k,
                        num_warps=t.num_warps, num_stages=t.num_stages)
                    return [a @ b for b in bs[1:]]

                def after():
                    fused_ops.gemm_shared_a(shared, a, bs, cs, fused_ops.shared_layout(bs))

                before()
                torch.cuda.synchronize()
                assert relative_error(cs[0], refs[0]) < 2e-2
                after()
                torch.cuda.synchronize()
                assert max(relative_error(c, r) for c, r in zip(cs, refs)) < 2e-2
                t_cublas, t_before, t_after = (triton.testing.do_bench(f, warmup=10, rep=60)
                                               for f in (lambda: [a @ b for b in bs], before, after))
                print(f"{name:<16}{tokens:>7}{t_cublas:>9.3f}{t_before:>9.3f}{t_after:>10.3f}"
                      f"{t_before / t_after:>10.2f}x{t_cublas / t_after:>10.2f}x", flush=True)
    torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()

"""Compile fused kernels for Hopper (sm_90) with this machine's Triton and
print one JSON line per case: ``{"case": ..., "ok": ..., "error": ...}``.
A case also fails when its PTX raises a flag (a release atomic) after a
tensor-descriptor store without waiting for that store's writes.
Run as a script with the interpreter off (test_hopper_compile.py does);
Triton lowers to a cubin without a GPU."""

import inspect
import json
import re
import sys
import traceback
from pathlib import Path

import triton
from triton.backends.compiler import GPUTarget

from syncopate import kernels
from syncopate.bench import attention, moe
from syncopate.bench.configs import GemmConfig
from syncopate.bench.fused import program_for
from syncopate.bench.gemm import kernel_constexprs
from syncopate.bench.shapes import A2A_GEMM, AG_GEMM, GEMM_RS, SHAPES
from syncopate.dialects import tile
from syncopate.runtime.fused import compile_fused

HOPPER = GPUTarget("cuda", 90, 32)
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
WORKLOADS = Path(__file__).resolve().parents[1] / "workloads"
BF16 = ("a_ptr", "b_ptr", "c_ptr", "b0_ptr", "b1_ptr", "b2_ptr", "c0_ptr", "c1_ptr", "c2_ptr", "q_ptr", "k_ptr",
        "v_ptr", "o_ptr", "x_ptr", "w_ptr", "y_ptr", "out_ptr")


def compile_for_hopper(program, constexprs: dict, scalars: dict | None = None, **options):
    """The compiled fused kernel: bf16 data pointers, int32 tables and
    scalars (int64 for the SM backend's copy table). A constexpr parameter
    the case leaves out takes its default, as a launch would."""
    func = program.kernel
    defaults = inspect.signature(program.jit.fn).parameters
    constexprs = {**{name: p.default for name, p in defaults.items()
                     if p.default is not inspect.Parameter.empty and "constexpr" in str(p.annotation)}, **constexprs}
    signature = {}
    for name, arg in zip(func.arg_names, func.body.block.args):
        if name in constexprs:
            signature[name] = "constexpr"
        elif isinstance(arg.type, tile.PointerType):
            signature[name] = "*bf16" if name in BF16 else "*i64" if name.startswith("syn_sm_") else "*i32"
        else:
            signature[name] = (scalars or {}).get(name, "i32")
    index = {name: i for i, name in enumerate(func.arg_names)}
    source = triton.compiler.ASTSource(fn=program.jit, signature=signature,
                                       constexprs={(index[k],): v for k, v in constexprs.items()})
    return triton.compile(source, target=HOPPER, options=options)


def cases():
    for workload in (AG_GEMM, GEMM_RS):
        for kernel, backend in (("ptr", "ce"), ("tma", "ce"), ("ptr", "sm"), ("ptr", "nccl"), ("persistent", "ce"),
                                ("persistent-flat", "ce")):
            if workload == GEMM_RS and backend == "sm":
                continue  # the SM backend does not reduce-scatter
            config = GemmConfig(kernel=kernel)
            constexprs = kernel_constexprs(config, 132)  # an H200's SM count
            yield (f"{workload} {kernel} {backend}",
                   lambda w=workload, c=config, b=backend, k=constexprs: compile_for_hopper(
                       program_for(w, 2, b, "arrival", c, chunks=2), k, **c.launch_options()))
    cfg = attention.GPU_ATTN
    for backend in ("ce", "sm"):
        yield (f"ag-attn {backend}", lambda b=backend: compile_for_hopper(
            attention.program_for(2, b, "arrival"),
            {"GROUP": 8, "BLOCK_M": cfg.block_m, "BLOCK_N": cfg.block_n, "BLOCK_D": 128}, {"sm_scale": "fp32"},
            num_warps=cfg.num_warps, num_stages=cfg.num_stages))
    # without hoist_loops the K/V waits walk the loop (syn_wait_span_loop)
    yield ("ag-attn ce per-iteration", lambda: compile_for_hopper(
        compile_fused(attention.kernel_path(), attention.KERNEL_NAME, attention.plans(2),
                      "overlap{order=arrival backend=ce}"),
        {"GROUP": 8, "BLOCK_M": cfg.block_m, "BLOCK_N": cfg.block_n, "BLOCK_D": 128}, {"sm_scale": "fp32"},
        num_warps=cfg.num_warps, num_stages=cfg.num_stages))
    # the one-shot push all-reduce (overlap{reduce=push}): a decode GEMM and the example's tiled GEMM
    yield ("gemm-ar push decode", lambda: compile_for_hopper(
        compile_fused(str(WORKLOADS / "gemm_ar_decode.py"), "decode_ar_kernel", ["all-reduce{tensor=y_ptr dim=0 world=4}"],
                      "overlap{reduce=push}"), {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_K": 128}))
    yield ("gemm-ar push tiles", lambda: compile_for_hopper(
        compile_fused(str(EXAMPLES / "gemm_ar.py"), "gemm_ar_kernel", ["all-reduce{tensor=c_ptr dim=0 world=2}"],
                      "overlap{reduce=push}"), {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64}))
    persistent = compile_fused(str(EXAMPLES / "ag_gemm_persistent.py"), "gemm_persistent_kernel",
                               ["all-gather{tensor=a_ptr dim=0 world=2}"], "overlap{order=arrival backend=ce}")
    yield ("persistent gemm ce", lambda: compile_for_hopper(
        persistent, {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "PROGRAMS": 132}, num_warps=8, num_stages=3))
    # syncopate.ops' shared-A GEMM (two or three B's of one gathered A), as pytorch/fused_ops.py compiles it
    yield ("ops shared-a ce", lambda: compile_for_hopper(
        compile_fused(kernels.source_path("gemm_shared_a.py"), "gemm_shared_a_kernel",
                      ["all-gather{tensor=a_ptr dim=0 world=2}"], "overlap{order=arrival backend=ce}"),
        {"B_NK": True, "BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64}, num_warps=8, num_stages=3))
    # syncopate.ops' persistent GEMM with nn.Linear weights (B_NK), as pytorch/fused_ops.py launches it
    for kind, spec in (("ag", "all-gather{tensor=a_ptr dim=0 world=2}"), ("rs", "reduce-scatter{tensor=c_ptr dim=0 world=2}")):
        yield (f"ops {kind} persistent nk ce", lambda spec=spec: compile_for_hopper(
            compile_fused(kernels.source_path("gemm_bf16_persistent.py"), "gemm_persistent_kernel", [spec],
                          "overlap{order=arrival backend=ce}"),
            {"B_NK": True, "BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "PROGRAMS": 132, "GROUP_M": 8,
             "FLATTEN": False}, num_warps=8, num_stages=3))
    shape = next(s for s in SHAPES if s.workload == A2A_GEMM and s.name == "mixtral-8x7b-4k")
    for backend, kernel in (("ce", "ptr"), ("sm", "ptr"), ("ce", "tma"), ("ce", "persistent")):
        config = GemmConfig(kernel=kernel)
        yield (f"a2a-gemm {backend}" + (f" {kernel}" if kernel != "ptr" else ""), lambda b=backend, c=config:
               compile_for_hopper(moe.program_for(moe.MoeDims.of(shape, 2), b, "arrival", c),
                                  moe.grouped_constexprs(c, 132), **c.launch_options()))


TMA_STORE = re.compile(r"cp\.async\.bulk\.tensor\.\w+\.global\.shared")
STORES_DONE = re.compile(r"cp\.async\.bulk\.wait_group\s+0\s*;")  # not .read: the writes are performed
RELEASE = re.compile(r"\b(atom|red)\.[\w.]*\brelease\b")


def unwaited_release(ptx: str) -> str | None:
    """The first release atomic that follows a tensor-descriptor (TMA) store
    in the PTX text with no full ``cp.async.bulk.wait_group 0`` between
    them (a flag that could be seen before the stored tile), else None. A
    straight-line reading: the signal helpers follow their store in program
    order, as the text does."""
    pending = False
    for number, line in enumerate(ptx.splitlines(), 1):
        if TMA_STORE.search(line):
            pending = True
        elif STORES_DONE.search(line):
            pending = False
        elif pending and RELEASE.search(line):
            return f"PTX line {number}: {line.strip()}"
    return None


def main() -> int:
    for name, build in cases():
        try:
            compiled = build()
            ok = bool(compiled.asm.get("cubin")) and "syn_" in compiled.asm["ttir"]
            race = unwaited_release(compiled.asm["ptx"])
            error = "" if ok else "no cubin or no syn_ helper"
            if ok and race:
                ok, error = False, f"a signal released before its tile's TMA store was written: {race}"
            print(json.dumps({"case": name, "ok": ok, "error": error}), flush=True)
        except Exception as err:  # report every case
            print(json.dumps({"case": name, "ok": False, "error": f"{type(err).__name__}: {err}"[:2000]}), flush=True)
            traceback.print_exc(file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

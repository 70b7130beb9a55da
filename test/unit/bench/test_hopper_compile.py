"""Every fused kernel the benchmark runs compiles for Hopper (sm_90) with
this machine's Triton: no GPU is needed to lower Triton to a cubin, so a
generated kernel Triton cannot compile (a helper's loop-carried types, a
tensor descriptor, the SM backend's programs) fails here, on CPU, before it
reaches a device. The compile runs in a subprocess with the interpreter off
(this folder's conftest turns it on). The device image runs an older
Triton (3.6): a kernel that compiles here is still run there before any
result is quoted."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # hopper_compile, the compile script

HERE = Path(__file__).resolve().parent
CASES = ["ag-gemm ptr ce", "ag-gemm tma ce", "ag-gemm ptr sm", "ag-gemm ptr nccl", "ag-gemm persistent ce", "ag-gemm persistent-flat ce",
         "gemm-rs ptr ce", "gemm-rs persistent ce", "gemm-rs persistent-flat ce",
         "gemm-rs tma ce", "gemm-rs ptr nccl", "ag-attn ce", "ag-attn sm", "ag-attn ce per-iteration", "a2a-gemm ce",
         "a2a-gemm sm", "a2a-gemm ce tma", "a2a-gemm ce persistent", "persistent gemm ce", "ops shared-a ce",
         "ops ag persistent nk ce", "ops rs persistent nk ce", "gemm-ar push decode", "gemm-ar push tiles"]


@pytest.fixture(scope="module")
def compiled():
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    done = subprocess.run([sys.executable, str(HERE / "hopper_compile.py")], capture_output=True, text=True,
                          env=env, timeout=600)
    results = {r["case"]: r for r in map(json.loads, filter(None, done.stdout.splitlines()))}
    return results, done.stderr[-3000:]


@pytest.mark.parametrize("case", CASES)
def test_fused_kernel_compiles_for_hopper(compiled, case: str):
    results, stderr = compiled
    assert case in results, stderr
    assert results[case]["ok"], results[case]["error"]


STORE = "@%p35 cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd34, {%r135, %r136}], [%r137];"
RELEASE = "@%p41 atom.global.sys.release.add.u32 %r207, [ %rd39 + 0 ], %r208;"


@pytest.mark.parametrize("lines, race", [
    # Triton 3.6's persistent kernel: the store's group committed, the flag raised, the read-wait later
    ([STORE, "cp.async.bulk.commit_group;", "bar.sync 0;", RELEASE, "cp.async.bulk.wait_group.read 0;"], True),
    ([STORE, "cp.async.bulk.commit_group;", "cp.async.bulk.wait_group.read 0;", "bar.sync 0;", RELEASE], True),
    ([STORE, "cp.async.bulk.commit_group;", "cp.async.bulk.wait_group 0;", "bar.sync 0;", RELEASE], False),
    ([RELEASE, STORE], False),  # a release before any store covers none
    (["atom.global.gpu.acquire.add.u32 %r1, [%rd1], 0;", STORE, "atom.global.gpu.relaxed.add.u32 %r1, [%rd1], 0;"], False),
])
def test_unwaited_release_reads_the_ptx_order(lines, race):
    from hopper_compile import unwaited_release

    found = unwaited_release("\n".join(lines))
    assert (found is not None) == race, found

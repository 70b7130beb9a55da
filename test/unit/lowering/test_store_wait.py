"""A tile's signal waits for its tensor-descriptor stores first (syn_bulk_store_wait),
and the interpreter takes that wait, and only it, as a no-op (runtime/interpreter_asm.py)."""

import re

import pytest


def _helper_body(source: str, name: str) -> list[str]:
    start = source.index(f"def {name}(")
    end = source.find("\n\n\n", start)
    return [line.strip() for line in source[start:end if end >= 0 else None].splitlines()[1:]]


@pytest.mark.parametrize("kernel, bulk", [("persistent", True), ("tma", True), ("ptr", False)])
def test_signal_helpers_wait_for_bulk_stores_before_the_barrier(monkeypatch, kernel, bulk):
    """Kernels with descriptor stores wait for them before signalling; pointer
    kernels (which may run before sm_90, where the instruction does not exist) do not."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    from syncopate.bench.configs import GemmConfig
    from syncopate.bench.fused import program_for

    source = program_for("gemm-rs", 2, "ce", "arrival", GemmConfig(16, 16, 16, 1, 1, kernel)).source
    calls = [line.strip() for line in source.splitlines() if line.strip().startswith("syn_signal_span(")]
    assert calls and all(call.endswith(f", {bulk})") for call in calls), calls
    body = _helper_body(source, "syn_signal_span")
    assert body[:3] == ["if BULK_STORES:", "syn_bulk_store_wait()", "tl.debug_barrier()"], body
    release = [i for i, line in enumerate(body) if re.search(r"atomic_add\(.*sem='release'", line)]
    assert release and min(release) > 1
    assert "cp.async.bulk.wait_group 0;" in "\n".join(_helper_body(source, "syn_bulk_store_wait"))


def test_interpreter_takes_the_wait_and_refuses_other_asm(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    import torch
    import triton
    import triton.language as tl

    from syncopate.runtime import interpreter_asm

    interpreter_asm.install()
    interpreter_asm.install()  # idempotent

    @triton.jit
    def waits_then_stores(out):
        tl.inline_asm_elementwise("cp.async.bulk.wait_group 0;", "=r", [], dtype=tl.int32, is_pure=False, pack=1)
        tl.store(out, 7)

    @triton.jit
    def other_asm(out):
        tl.inline_asm_elementwise("nanosleep.u32 100;", "=r", [], dtype=tl.int32, is_pure=False, pack=1)
        tl.store(out, 7)

    out = torch.zeros(1, dtype=torch.int32)
    waits_then_stores[(1,)](out)
    assert out.item() == 7
    with pytest.raises(Exception, match="inline_asm not supported"):
        other_asm[(1,)](torch.zeros(1, dtype=torch.int32))

"""Spellings of ``triton.language`` objects."""

from __future__ import annotations

TL = "triton.language"

# Names that `triton.language.core` / `triton.language.standard` define and
# `triton.language` re-exports as the same object (Triton 3.6 to 3.9):
# `tl.core.load`, `tlc.load` after `import triton.language.core as tlc`, or
# `from triton.language.core import load` are `tl.load`, so they import as the
# same op (anything else of those modules stays a generic call as written).
SAME_AS_TL = {
    f"{TL}.core": frozenset("""
        PropagateNan TRITON_MAX_TENSOR_NUMEL add arange associative_scan assume atomic_add atomic_and atomic_cas
        atomic_max atomic_min atomic_or atomic_xchg atomic_xor bfloat16 block_type broadcast broadcast_to cast cat
        clamp constexpr debug_barrier device_assert device_print dot dot_scaled dtype expand_dims float16 float32
        float64 float8e4b15 float8e4b8 float8e4nv float8e5 float8e5b16 full gather histogram inline_asm_elementwise
        int1 int16 int32 int64 int8 join load make_block_ptr make_tensor_descriptor map_elementwise max_constancy
        max_contiguous maximum minimum mul multiple_of num_programs permute pointer_type program_id range reduce
        reshape slice split static_assert static_print static_range store sub tensor trans tuple uint16 uint32
        uint64 uint8 view void where""".split()),
    f"{TL}.standard": frozenset("""
        argmax argmin cdiv cumprod cumsum flip interleave max min ravel reduce_or sigmoid softmax sort squeeze sum
        swizzle2d topk unsqueeze xor_sum zeros zeros_like""".split()),
}


def canonical_path(path: str) -> str:
    """``triton.language.core.load`` -> ``triton.language.load`` (see ``SAME_AS_TL``)."""
    module, _, name = path.rpartition(".")
    return f"{TL}.{name}" if name in SAME_AS_TL.get(module, ()) else path

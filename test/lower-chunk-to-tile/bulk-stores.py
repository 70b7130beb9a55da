# A signal after a tensor-descriptor (TMA) store first waits for that store's
# writes (cp.async.bulk.wait_group 0 in syn_bulk_store_wait), since the store
# completes after its statement: signals of a kernel with descriptor stores pass
# BULK_STORES=True. A kernel that only loads through descriptors and stores
# through pointers passes False (the instruction needs sm_90; pointer stores are
# ordered by the barrier alone).
# RUN: overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr world=2 size=M}' -p 'overlap{backend=ce}' -t triton --kernel scale_tma | filecheck %s --check-prefix=TMA
# RUN: overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr world=2 size=M}' -p 'overlap{backend=ce}' -t triton --kernel scale_ptr | filecheck %s --check-prefix=PTR
import triton
import triton.language as tl


@triton.jit
def scale_tma(a_ptr, c_ptr, M, N, stride_am, stride_cm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[stride_am, 1], block_shape=[BLOCK_M, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[stride_cm, 1], block_shape=[BLOCK_M, BLOCK_N])
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    c_desc.store([off_m, off_n], a_desc.load([off_m, off_n]) * 2)


@triton.jit
def scale_ptr(a_ptr, c_ptr, M, N, stride_am, stride_cm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[stride_am, 1], block_shape=[BLOCK_M, BLOCK_N])
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    rows = off_m + tl.arange(0, BLOCK_M)
    cols = off_n + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], a_desc.load([off_m, off_n]) * 2, mask=mask)

# TMA-LABEL: def scale_tma(
# TMA:           c_desc.store([off_m, off_n], {{.*}})
# TMA-NEXT:      # inserted by lower-chunk-to-tile
# TMA-NEXT:      syn_signal_span(syn_flags, syn_signal_rs_c_ptr_tab, syn_signal_rs_c_ptr_n, off_m, off_m + BLOCK_M, True)
# TMA-LABEL: def syn_bulk_store_wait():
# TMA-NEXT:      tl.inline_asm_elementwise('cp.async.bulk.wait_group 0;', '=r', [], dtype=tl.int32, is_pure=False, pack=1)
# TMA-LABEL: def syn_signal_span(flags, table, n, lo, hi, BULK_STORES: tl.constexpr):
# TMA-NEXT:      if BULK_STORES:
# TMA-NEXT:          syn_bulk_store_wait()
# TMA-NEXT:      tl.debug_barrier()
# TMA:               tl.atomic_add({{.*}}, sem='release', scope='sys')

# PTR-LABEL: def scale_ptr(
# PTR:           tl.store(c_ptr + {{.*}}, mask=mask)
# PTR-NEXT:      # inserted by lower-chunk-to-tile
# PTR-NEXT:      syn_signal_span(syn_flags, syn_signal_rs_c_ptr_tab, syn_signal_rs_c_ptr_n, {{.*}}, False)

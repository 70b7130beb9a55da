# RUN: overlap-opt %S/../corpus/attention_fwd_inner_helper.py --kernel _attn_fwd --plan 'all-gather{tensor=K dim=2 size=N_CTX world=2}' -p chunk-dependency-analysis | filecheck %s
# RUN: overlap-opt %S/../corpus/attention_fwd_inner_helper.py --kernel _attn_fwd --plan 'all-gather{tensor=V dim=2 size=N_CTX world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=V
# RUN: not overlap-opt %S/../corpus/attention_fwd_inner_helper.py --kernel _attn_fwd --plan 'all-gather{tensor=K dim=1 size=N_CTX world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=WRONG
# K and V reach the attention tutorial's `_attn_fwd_inner` as block pointers;
# the helper is inlined into the kernel (twice: the off-diagonal and the
# diagonal stage), so its loads are the kernel's own: bounded along the
# sequence in each iteration of its loop (the start `lo` differs per stage,
# known only in the kernel). The batch and
# head offset `qvk_offset = off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64)
# * stride_qh` moves along dims 0 and 1, not the sequence. A plan on the head
# dim names a length the kernel never masks that dim with.

# CHECK-LABEL: tile.func @_attn_fwd
# CHECK:       scf.for
# CHECK:       tile.load {{.*}}chunk.access = {plan = @ag, tensor = "K", dim = 2 : i64, role = "read", lo = "?", extent = "BLOCK_N", loops = 1 : i64
# CHECK:       scf.for
# CHECK:       tile.load {{.*}}chunk.access = {plan = @ag, tensor = "K", dim = 2 : i64, role = "read", lo = "?", extent = "BLOCK_N", loops = 1 : i64
# CHECK-NOT:   tile.call_jit @_attn_fwd_inner

# V:           tile.load {{.*}}chunk.access = {plan = @ag, tensor = "V", dim = 2 : i64, role = "read", lo = "?", extent = "BLOCK_N", loops = 1 : i64
# V:           tile.load {{.*}}chunk.access = {plan = @ag, tensor = "V", dim = 2 : i64, role = "read", lo = "?", extent = "BLOCK_N", loops = 1 : i64

# WRONG: attention_fwd_inner_helper.py:36: 'tile.load': the address of 'K' has 4 dims (strides stride_qz, stride_qh, stride_kn, stride_kk), the plan's tensor 2; give the plan option stride=<the stride parameter of dim 1>

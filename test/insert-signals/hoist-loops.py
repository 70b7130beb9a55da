# A loop that walks the gathered dim (attention's loop over K/V blocks) waits
# per iteration by default; with hoist_loops=true one wait per tensor covers
# every chunk, before the outermost loop, and the loop body has none.
# RUN: overlap-opt %s --plan 'all-gather{tensor=k_ptr world=2 size=N name=agk}' --plan 'all-gather{tensor=v_ptr world=2 size=N name=agv}' -p insert-signals | filecheck %s --check-prefix=EACH
# RUN: overlap-opt %s --plan 'all-gather{tensor=k_ptr world=2 size=N name=agk}' --plan 'all-gather{tensor=v_ptr world=2 size=N name=agv}' -p 'insert-signals{hoist_loops=true}' | filecheck %s --check-prefix=HOIST
# A wait that no loop variable moves stays where it was.
# RUN: overlap-opt %s --plan 'all-gather{tensor=q_ptr world=2 size=N}' -p 'insert-signals{hoist_loops=true}' | filecheck %s --check-prefix=INVARIANT
import triton
import triton.language as tl


@triton.jit
def scores(q_ptr, k_ptr, v_ptr, o_ptr, N, stride_n, BLOCK: tl.constexpr, D: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ds = tl.arange(0, D)
    q = tl.load(q_ptr + rows[:, None] * stride_n + ds[None, :])
    acc = tl.zeros((BLOCK, D), dtype=tl.float32)
    for outer in range(0, 2):
        for start in range(0, N, BLOCK):
            kv = start + tl.arange(0, BLOCK)
            k = tl.load(k_ptr + kv[:, None] * stride_n + ds[None, :])
            v = tl.load(v_ptr + kv[:, None] * stride_n + ds[None, :])
            acc += tl.dot(tl.dot(q, tl.trans(k)), v)
    tl.store(o_ptr + rows[:, None] * stride_n + ds[None, :], acc)

# EACH:      scf.for
# EACH:      scf.for
# EACH:      chunk.wait_span_loop %start, %BLOCK first {{.*}} plan @agk tensor "k_ptr"
# EACH:      tile.load
# EACH:      chunk.wait_span_loop %start, %BLOCK first {{.*}} plan @agv tensor "v_ptr"

# HOIST:      %[[LO:.*]] = arith.constant {tile.origin = "insert-signals"} 0 : i32
# HOIST-NEXT: %[[ALL:.*]] = arith.constant {tile.origin = "insert-signals"} 2147483647 : i32
# HOIST-NEXT: chunk.wait_span %[[LO]], %[[ALL]] plan @agk tensor "k_ptr"
# HOIST:      chunk.wait_span {{.*}} plan @agv tensor "v_ptr"
# HOIST-NEXT: scf.for
# HOIST-NOT:  chunk.wait_span
# HOIST:      tile.store

# INVARIANT:      chunk.wait_span {{.*}} plan @ag tensor "q_ptr"
# INVARIANT-NEXT: %q = tile.load

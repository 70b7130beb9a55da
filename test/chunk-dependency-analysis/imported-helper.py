# RUN: overlap-opt %S/../frontend/inputs/helperpkg/gather.py --plan 'all-gather{tensor=x_ptr world=2}' -p chunk-dependency-analysis | filecheck %s
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p chunk-dependency-analysis | filecheck %s
# The analysis sees through a helper imported from another module of the
# package (helperpkg/gather.py: `from helperpkg.tiles import tile_coords`)
# exactly as through the same helper in the kernel's file (below): both
# give the same access. The row start comes out of the helper: exact in the
# kernel, and on the host the helper's returned expression over the call's
# arguments (its nested helper and module constant expanded too).
import triton
import triton.language as tl

GROUP_M: tl.constexpr = 2


@triton.jit
def _group_of(pid, num_n):
    return pid // (GROUP_M * num_n)


@triton.jit
def tile_coords(pid, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    first_m = _group_of(pid, num_n) * GROUP_M
    size_m = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % size_m)
    pid_n = (pid % (GROUP_M * num_n)) // size_m
    return pid_m, pid_n


@triton.jit
def gather_tiles(x_ptr, y_ptr, M, N, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    pid_m, pid_n = tile_coords(pid, M, N, BLOCK_M, BLOCK_N)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0)
    tl.store(y_ptr + rows[:, None] * stride_ym + cols[None, :], x * 2.0, mask=mask)

# CHECK-LABEL: tile.func @gather_tiles
# CHECK:       %pid_m, %pid_n = tile.call_jit @tile_coords(%pid, %M, %N, %BLOCK_M, %BLOCK_N)
# CHECK:       %x = tile.load {{.*}} {chunk.access = {plan = @ag, tensor = "x_ptr", dim = 0 : i64, role = "read", lo = "((((pid0 // (2 * cdiv(N, BLOCK_N))) * 2) + (pid0 % min((cdiv(M, BLOCK_M) - ((pid0 // (2 * cdiv(N, BLOCK_N))) * 2)), 2))) * BLOCK_M)", extent = "BLOCK_M", loops = 0 : i64, invariant = 0 : i64}}
# CHECK-NOT:   chunk.access
# CHECK:       chunk.plan @ag kind "all-gather" world 2 {
# CHECK-NEXT:  chunk.tensor "x_ptr" -> "x_ptr" shape ["M", "D1"] strides ["stride_xm", "stride_x_ptr_1"]

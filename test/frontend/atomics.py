# RUN: overlap-opt %s | filecheck %s
import triton
import triton.language as tl


@triton.jit
def atomics_kernel(lock_ptr, counter_ptr, x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    old = tl.atomic_add(counter_ptr, 1, sem="acq_rel", scope="gpu")
    mx = tl.atomic_max(x_ptr + offs, offs, mask=offs < 4)
    got = tl.atomic_cas(lock_ptr, 0, 1, sem="acquire")
    tl.atomic_xchg(lock_ptr, 0, sem="release", scope="sys")

# CHECK-LABEL: tile.func @atomics_kernel
# CHECK:       %old = tile.atomic_rmw "add" %counter_ptr, %{{.*}} {sem = "acq_rel", scope = "gpu"} : !tile.ptr, i32 -> !tile.any
# CHECK:       %mx = tile.atomic_rmw "max" %{{.*}}, %offs mask %{{.*}} : !tile.block<?xi1> : !tile.block<?x!tile.ptr>, !tile.block<?xi32> -> !tile.block<?xi32>
# CHECK:       %got = tile.atomic_cas %lock_ptr, %{{.*}}, %{{.*}} {sem = "acquire"} : !tile.ptr, i32, i32 -> !tile.any
# CHECK:       tile.atomic_rmw "xchg" %lock_ptr, %{{.*}} {sem = "release", scope = "sys"}

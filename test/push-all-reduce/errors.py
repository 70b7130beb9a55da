# push-all-reduce refuses what it cannot push, naming the file, line and construct.
# RUN: not overlap-opt %s --kernel copy --plan 'reduce-scatter{tensor=c_ptr dim=0 world=2 size=M}' -p 'chunk-dependency-analysis,push-all-reduce' 2>&1 | filecheck %s --check-prefix=RS
# RUN: not overlap-opt %s --kernel in_loop --plan 'all-reduce{tensor=c_ptr dim=0 world=2 size=M}' -p 'chunk-dependency-analysis,push-all-reduce' 2>&1 | filecheck %s --check-prefix=LOOP
# RUN: not overlap-opt %s --kernel in_branch --plan 'all-reduce{tensor=c_ptr dim=0 world=2 size=M}' -p 'chunk-dependency-analysis,push-all-reduce' 2>&1 | filecheck %s --check-prefix=BRANCH
# RUN: not overlap-opt %s --kernel twice --plan 'all-reduce{tensor=c_ptr dim=0 world=2 size=M}' -p 'chunk-dependency-analysis,push-all-reduce' 2>&1 | filecheck %s --check-prefix=TWICE
# RUN: not overlap-opt %s --kernel atomic --plan 'all-reduce{tensor=c_ptr dim=0 world=2 size=M}' -p 'chunk-dependency-analysis,push-all-reduce' 2>&1 | filecheck %s --check-prefix=ATOMIC
# RUN: not overlap-opt %s --kernel described --plan 'all-reduce{tensor=c_ptr dim=0 world=2 size=M}' -p 'chunk-dependency-analysis,push-all-reduce' 2>&1 | filecheck %s --check-prefix=DESC
# RUN: not overlap-opt %s --kernel copy --plan 'all-reduce{tensor=c_ptr dim=0 world=2 size=M}' -p 'overlap{reduce=push order=rotate}' 2>&1 | filecheck %s --check-prefix=ROTATE
import triton
import triton.language as tl


@triton.jit
def copy(x_ptr, c_ptr, M, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(c_ptr + rows, tl.load(x_ptr + rows, mask=rows < M), mask=rows < M)


@triton.jit
def in_loop(x_ptr, c_ptr, M, BLOCK: tl.constexpr):
    for i in range(0, 2):
        rows = (tl.program_id(0) * 2 + i) * BLOCK + tl.arange(0, BLOCK)
        tl.store(c_ptr + rows, tl.load(x_ptr + rows, mask=rows < M), mask=rows < M)


@triton.jit
def in_branch(x_ptr, c_ptr, M, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if tl.program_id(0) * BLOCK < M:
        tl.store(c_ptr + rows, tl.load(x_ptr + rows, mask=rows < M), mask=rows < M)


@triton.jit
def twice(x_ptr, c_ptr, M, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(c_ptr + rows, tl.load(x_ptr + rows, mask=rows < M), mask=rows < M)
    tl.store(c_ptr + rows, tl.load(x_ptr + rows, mask=rows < M) * 2, mask=rows < M)


@triton.jit
def atomic(x_ptr, c_ptr, M, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(c_ptr + rows, tl.load(x_ptr + rows, mask=rows < M), mask=rows < M)


@triton.jit
def described(x_ptr, c_ptr, M, N, BLOCK: tl.constexpr):
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK, BLOCK])
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK, BLOCK])
    c_desc.store([tl.program_id(0) * BLOCK, 0], x_desc.load([tl.program_id(0) * BLOCK, 0]))

# RS: push-all-reduce: plan @rs is a reduce-scatter: push leaves every rank the full sum, but a reduce-scatter leaves each rank only its own rows
# LOOP: push-all-reduce: {{.*}}errors.py:23: 'tile.store': @in_loop stores 'c_ptr' (plan @ar) inside a loop ({{.*}}errors.py:21: 'scf.for'); push needs one store per program at the top level of the kernel
# BRANCH: push-all-reduce: {{.*}}errors.py:30: 'tile.store': @in_branch stores 'c_ptr' (plan @ar) inside a branch ({{.*}}errors.py:29: 'scf.if')
# TWICE: push-all-reduce: {{.*}}errors.py:36: 'tile.store': @twice stores 'c_ptr' (plan @ar), and {{.*}}errors.py:37: 'tile.store' stores an all-reduced tensor too
# ATOMIC: push-all-reduce: {{.*}}errors.py:43: 'tile.atomic_rmw': @atomic stores 'c_ptr' (plan @ar) with 'tile.atomic_rmw'
# DESC: push-all-reduce: {{.*}}errors.py:50: 'tile.desc_store': @described stores 'c_ptr' (plan @ar) through a tensor descriptor
# ROTATE: push-all-reduce: @copy rotates its tiles (tile-reorder order=rotate)

# Wrapped offsets (`% M`) give a wrapped range (the `wrap` key), value hints
# are looked through; a wrapped store and a clamped-then-wrapped index are
# refused (clamps alone: clamped-offsets.py).
# RUN: overlap-opt %s --kernel wrapped --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=WRAP
# RUN: overlap-opt %s --kernel hinted --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=HINT
# RUN: not overlap-opt %s --kernel wrapped --plan 'reduce-scatter{tensor=c_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=STORE
# RUN: not overlap-opt %s --kernel clamped --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=CLAMP
# Tile -> chunk edges of rank 0 (M=40, BLOCK_M=16, two chunks [0,20) and [20,40)):
# the last tile [32, 48) wraps to [0, 8) and needs both chunks.
# RUN: overlap-opt %s --kernel wrapped --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis | %python %S/inputs/tile_chunks.py 0 3 M=40 BLOCK_M=16 | filecheck %s --check-prefix=EDGES
import triton
import triton.language as tl


@triton.jit
def wrapped(a_ptr, c_ptr, M, stride_am, BLOCK_M: tl.constexpr, D: tl.constexpr):
    offs_am = (tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    ds = tl.arange(0, D)
    tl.store(c_ptr + offs_am[:, None] * stride_am + ds[None, :], tl.load(a_ptr + offs_am[:, None] * stride_am + ds[None, :]))


@triton.jit
def hinted(a_ptr, c_ptr, M, stride_am, BLOCK_M: tl.constexpr, D: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs = tl.max_contiguous(tl.multiple_of(offs, BLOCK_M), BLOCK_M)
    ds = tl.arange(0, D)
    tl.store(c_ptr + offs[:, None] * stride_am + ds[None, :], tl.load(a_ptr + offs[:, None] * stride_am + ds[None, :]))


@triton.jit
def clamped(a_ptr, c_ptr, M, stride_am, BLOCK_M: tl.constexpr, D: tl.constexpr):
    offs = tl.minimum(tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M), M - 1) % M
    ds = tl.arange(0, D)
    tl.store(c_ptr + offs[:, None] * stride_am + ds[None, :], tl.load(a_ptr + offs[:, None] * stride_am + ds[None, :]))

# WRAP:  tile.load {{.*}}chunk.access = {plan = @ag, tensor = "a_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK_M)", extent = "BLOCK_M", loops = 0 : i64, invariant = 0 : i64, wrap = "M"}
# HINT:  tile.load {{.*}}chunk.access = {plan = @ag, tensor = "a_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK_M)", extent = "BLOCK_M", loops = 0 : i64, invariant = 0 : i64}}
# STORE: chunk-dependency-analysis: {{.*}}'c_ptr' is accessed through offsets wrapped with `%` along dim 0 in a store; only loads of `(start + tl.arange(0, B)) % M` are supported
# CLAMP: chunk-dependency-analysis: {{.*}}wrapped-and-hinted.py:{{[0-9]+}}: {{.*}}cannot bound the access of 'a_ptr' along dim 0: the index is clamped and then wrapped with `%`; wrap first, then clamp
# EDGES:      tile (0, 0, 0): waits ag#{{[0-9]+}}[0, 20){{$}}
# EDGES-NEXT: tile (1, 0, 0): waits ag#{{[0-9]+}}[0, 20) ag#{{[0-9]+}}[20, 40){{$}}
# EDGES-NEXT: tile (2, 0, 0): waits ag#{{[0-9]+}}[0, 20) ag#{{[0-9]+}}[20, 40){{$}}

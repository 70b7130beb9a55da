// overlap-opt --plan: a template spec or a .mlir file, alone or attached to a kernel.
// RUN: overlap-opt --plan 'all-gather{world=2 tensor=a}' | filecheck %s
// RUN: overlap-opt --plan 'all-gather{world=2 tensor=a}' > %t.mlir && overlap-opt --plan %t.mlir | filecheck %s
// RUN: not overlap-opt --plan 'all-gather{world=0}' 2>&1 | filecheck %s --check-prefix=ERR
// RUN: not overlap-opt --plan 'gather-all{world=2}' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: overlap-opt %S/../../examples/ag_gemm.py --plan 'all-gather{tensor=a dim=0 world=2}' | filecheck %s --check-prefix=KERNEL
// RUN: overlap-opt %S/../../examples/ag_gemm.py --plan 'all-gather{tensor=a dim=0 world=2}' -t triton | filecheck %s --check-prefix=PY

// CHECK:      chunk.plan @ag kind "all-gather" world 2 {
// CHECK-NEXT:   chunk.tensor "a" -> "a_ptr"
// CHECK-NEXT:   chunk.chunk id 0 "a" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
// CHECK-NEXT:   chunk.chunk id 1 "a" dim 0 offset "M/2" size "M - M/2" src 1 dst 1
// CHECK-NEXT:   chunk.chunk id 2 "a" dim 0 offset 0 size "M/2" src 0 dst 1
// CHECK-NEXT:   chunk.chunk id 3 "a" dim 0 offset "M/2" size "M - M/2" src 1 dst 0
// CHECK-NEXT: }

// ERR: overlap-opt: error: --plan: {{.*}}world must be >= 1, got 0
// UNKNOWN: overlap-opt: error: --plan: {{.*}}gather-all

// KERNEL:     tile.func @gemm_kernel(
// KERNEL:     chunk.plan @ag kind "all-gather" world 2

// PY:     def gemm_kernel(a_ptr, b_ptr, c_ptr,
// PY-NOT: chunk

// overlap-opt --help lists this project's passes and targets, each with a one-line summary.
// RUN: overlap-opt --help | filecheck %s
// The same help when run as a module (the catalogue must not need names defined after the __main__ guard):
// RUN: %python -m syncopate.tools.overlap_opt --help | filecheck %s
// RUN: overlap-opt --help | filecheck %s --check-prefix=ONLY-OURS
// RUN: not overlap-opt %S/missing-file.py 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: overlap-opt --version | filecheck %s --check-prefix=VERSION
// RUN: echo 'builtin.module {}' | not overlap-opt -t llvm 2>&1 | filecheck %s --check-prefix=FOREIGN

// CHECK: --plan SPEC_OR_FILE
// CHECK: --plan-diagram PATH
// CHECK: passes:
// No pass without a summary (a name alone on its line):
// CHECK-NOT: {{^  [a-z-]+ *$}}
// CHECK: cse {{ *}}Merge identical side-effect-free ops
// CHECK: dce {{ *}}Erase ops whose results are unused
// CHECK: lower-chunk-to-tile {{ *}}Lower chunk.wait/signal
// Each of this project's passes lists its options, with their defaults and one line of help:
// CHECK-NEXT: {{^      }}memo=true: persistent kernels remember
// CHECK: overlap {{ *}}Fuse the module's chunk plans
// CHECK-NEXT: {{^      }}order=arrival: tile order:
// CHECK: select-backend {{ *}}Choose how each chunk moves: copy engine, SM loads and stores, or NCCL.
// CHECK: specialize {{ *}}Bind constexpr parameters to values
// CHECK: tile-reorder {{ *}}Map program ids to tiles so that tiles run in the order their chunks arrive.
// CHECK-NOT: {{^  [a-z-]+ *$}}
// CHECK: targets:
// CHECK-NEXT: mlir {{ *}}Print the IR
// CHECK-NEXT: triton {{ *}}Emit Triton Python
// CHECK-EMPTY:
// CHECK-NEXT: frontends:

// xDSL's own backends do not know the tile dialect: not offered.
// ONLY-OURS: Available targets are:
// ONLY-OURS-NEXT: mlir,triton
// ONLY-OURS-NOT: {{arm-asm|riscv-asm|x86-asm|wgsl|csl}}

// MISSING: overlap-opt: error: No such file or directory: {{.*}}missing-file.py
// VERSION: overlap-opt (syncopate) built on xdsl 0.74
// FOREIGN: invalid choice: 'llvm' (choose from mlir, triton)

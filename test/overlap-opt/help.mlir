// overlap-opt --help lists this project's passes with their one-line docs and the triton target.
// RUN: overlap-opt --help | filecheck %s
// RUN: not overlap-opt %S/missing-file.py 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: overlap-opt --version | filecheck %s --check-prefix=VERSION

// CHECK: --plan SPEC_OR_FILE
// CHECK: --plan-diagram PATH
// CHECK: passes:
// CHECK: specialize {{ *}}Bind constexpr parameters to values
// CHECK: targets: {{.*}}triton
// MISSING: overlap-opt: error: No such file or directory: {{.*}}missing-file.py
// VERSION: overlap-opt (syncopate) built on xdsl 0.74

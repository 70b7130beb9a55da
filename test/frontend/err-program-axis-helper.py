# RUN: not overlap-opt %s 2>&1 | filecheck %s
# RUN: not overlap-opt %S/inputs/program_axis/runtime.py 2>&1 | filecheck %s --check-prefix=RUNTIME
# RUN: not overlap-opt %S/inputs/program_axis/out_of_range.py 2>&1 | filecheck %s --check-prefix=RANGE
# RUN: not overlap-opt %S/inputs/program_axis/early_exit.py 2>&1 | filecheck %s --check-prefix=EARLY
# A helper whose program axis is a constexpr parameter is inlined at each
# call, so the call must give the axis as a literal 0, 1 or 2 (or a
# constexpr global): a kernel's own constexpr parameter, a runtime value or
# another number is refused at the call's line; an early `return` in such a
# helper is refused at its line.
import triton
import triton.language as tl


@triton.jit
def program_id(axis: tl.constexpr):
    return tl.program_id(axis)


@triton.jit
def from_param(x_ptr, AXIS: tl.constexpr):
    tl.store(x_ptr + program_id(AXIS), 1.0)


# CHECK: {{.*}}err-program-axis-helper.py:21: unsupported program axis: jit helper `program_id` reads `tl.program_id(axis)` or `tl.num_programs(axis)`, and `axis` is `AXIS` here; pass 0, 1 or 2 as a literal (or a constexpr global) so the import knows which program id the kernel reads
# RUNTIME: {{.*}}runtime.py:13: unsupported program axis: jit helper `program_id` {{.*}} and `axis` is `axis` here
# RANGE: {{.*}}out_of_range.py:13: unsupported program axis: jit helper `program_id` {{.*}} and `axis` is `3` here
# EARLY: {{.*}}early_exit.py:9: jit helper `guarded_pid` takes its program axis from a parameter, so it is inlined where it is called; end it in its only `return`

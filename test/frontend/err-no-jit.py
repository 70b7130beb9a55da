# RUN: not overlap-opt %s 2>&1 | filecheck %s
import triton


def not_a_kernel(x):
    return x

# CHECK: {{.*}}err-no-jit.py:1: no @triton.jit function found

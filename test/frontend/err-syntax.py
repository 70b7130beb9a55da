# RUN: not overlap-opt %s 2>&1 | filecheck %s
import triton


@triton.jit
def bad(x_ptr:
    pass

# CHECK: {{.*}}err-syntax.py:6: Python syntax error: '(' was never closed

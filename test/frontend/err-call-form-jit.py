# A jit call on something that is not a function of this file finds no kernel, named as before.
# RUN: not overlap-opt %s 2>&1 | filecheck %s
import triton

from elsewhere import _kernel

kernel = triton.jit(_kernel)

# CHECK: err-call-form-jit.py:1: no @triton.jit function found

"""Triton kernels the benchmark fuses and uses as its local-Triton baseline.

Each kernel is a plain ``@triton.jit`` function in the subset syncopate's
frontend accepts (no autotune decorator, no early return, no ternaries), so
the very same source is both the unfused baseline and the input of
``compile_fused``.
"""

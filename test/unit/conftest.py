"""Shared pytest setup for the unit tests.

Triton picks the interpreter (InterpretedFunction) over the compiler when a
`@triton.jit` decorator runs with TRITON_INTERPRET set, so the variable must be
in the environment before any kernel module (corpus or emitted) is imported.
pytest imports this conftest before the test modules of this folder and its
layer subfolders; an explicit TRITON_INTERPRET=0 from the caller is respected.
"""

import os

os.environ.setdefault("TRITON_INTERPRET", "1")

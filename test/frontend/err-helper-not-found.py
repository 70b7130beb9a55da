# RUN: not overlap-opt %s 2>&1 | filecheck %s
# The module of an imported helper is looked up next to the kernel file (and
# on sys.path for an absolute import), never imported; here it is missing.
import triton
import triton.language as tl

from .missing_helpers import tile_id


@triton.jit
def bad(x_ptr):
    tl.store(x_ptr, tile_id())

# CHECK: {{.*}}err-helper-not-found.py:12: unsupported call to `tile_id`: its module `.missing_helpers` was not found (looked under {{.*}}test/frontend)

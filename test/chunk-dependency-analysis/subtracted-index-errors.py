# RUN: not overlap-opt %s --kernel wrapped --plan 'all-gather{tensor=x_ptr world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=WRAP
# RUN: not overlap-opt %s --kernel negated --plan 'all-gather{tensor=x_ptr world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=NEG
# A subtracted index wrapped with `%` is refused (Triton's `%` keeps the sign
# of a negative row); a negated block (`-offs`, a block minus a block) is no
# `scalar +/- tl.arange` form.
import triton
import triton.language as tl


@triton.jit
def wrapped(x_ptr, y_ptr, M, PAD, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    rows = (offs - PAD) % M
    tl.store(y_ptr + offs, tl.load(x_ptr + rows))


@triton.jit
def negated(x_ptr, y_ptr, M, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    rows = offs - tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + rows))

# WRAP: subtracted-index-errors.py:14: 'tile.load': cannot bound the access of 'x_ptr' along dim 0: the index subtracts a scalar or `tl.arange` and is then wrapped with `%`; wrap an index that adds only (`(start + tl.arange(0, B)) % M`)
# NEG: subtracted-index-errors.py:21: 'tile.load': cannot bound the access of 'x_ptr' along dim 0: the index is not 'scalar + tl.arange(0, BLOCK)' (found tile.sub)

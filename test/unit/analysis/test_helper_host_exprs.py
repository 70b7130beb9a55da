"""A jit helper's results as host expressions (``host_exprs.host_expr``):
``pid_m, pid_n = tile_coords(tile, ...)`` is the helper's returned
expression over the call's arguments, so the host knows which rows a tile
of a persistent kernel stores (and counts the signals that complete a
reduce-scattered chunk) where the tile's coordinates come from a helper.
A helper that computes its result in a loop or from memory stays unknown."""

from __future__ import annotations

from syncopate.dialects import tile
from syncopate.ir.analysis.deps import eval_host
from syncopate.ir.analysis.host_exprs import host_expr
from syncopate.ir.frontend.triton_import import import_source

SOURCE = '''
import triton
import triton.language as tl


@triton.jit
def tile_coords(tile_id, tiles_m, tiles_n, GROUP: tl.constexpr):
    width = GROUP * tiles_n
    first = (tile_id // width) * GROUP
    height = min(tiles_m - first, GROUP)
    return first + tile_id % height, (tile_id % width) // height


@triton.jit
def looped(n):
    total = 0
    for i in range(n):
        total += i
    return total


@triton.jit
def loaded(p_ptr):
    return tl.load(p_ptr)


@triton.jit
def kernel(p_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    tm, tn = tile_coords(pid, tl.cdiv(M, BM), tl.cdiv(N, BN), GROUP)
    row = tm * BM
    col = tn * BN
    a = looped(pid)
    b = loaded(p_ptr)
    tl.store(p_ptr + row + col + a + b, 0)
'''


def python_coords(tile_id: int, tiles_m: int, tiles_n: int, group: int) -> tuple[int, int]:
    width = group * tiles_n
    first = (tile_id // width) * group
    height = min(tiles_m - first, group)
    return first + tile_id % height, (tile_id % width) // height


def values() -> dict[str, object]:
    module = import_source(SOURCE)
    kernel = next(f for f in module.ops if isinstance(f, tile.FuncOp) and f.sym_name.data == "kernel")
    return {v.name_hint: v for op in kernel.walk() for v in op.results if v.name_hint}


def test_a_helpers_tuple_results_are_its_returned_expressions():
    named = values()
    env = {"M": 80, "N": 96, "BM": 16, "BN": 32, "GROUP": 2}
    row, col = host_expr(named["row"]), host_expr(named["col"])
    assert row is not None and col is not None
    tiles_m, tiles_n = 5, 3
    for pid in range(tiles_m * tiles_n):
        tm, tn = python_coords(pid, tiles_m, tiles_n, 2)
        at = (pid, 0, 0), (tiles_m * tiles_n, 1, 1)
        assert (eval_host(row, env, *at), eval_host(col, env, *at)) == (tm * 16, tn * 32), pid


def test_a_helper_that_loops_or_loads_stays_unknown():
    named = values()
    assert host_expr(named["a"]) is None
    assert host_expr(named["b"]) is None

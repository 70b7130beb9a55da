"""Seeded mutants of the reduce-scatter GEMM's store (examples/gemm_rs.py),
in the ways users' GEMM epilogues differ from the example, and how each
ends under syncopate.

A produced plan is the mirror of a consumed one: where a wrong wait reads
a chunk too early, a wrong signal announces rows before they are written
(or announces rows a tile never wrote), and the owner sums a partial that
is not there yet. A mutant rewrites the tile's rows or the store of C:

* ``rotate``: program ``pid`` computes tile ``(pid + T - 1) % T`` of the
  ``T`` row tiles, so no tile writes the rows its program id names: the
  signals must follow the rows stored;
* ``negmod``: the row tile is ``((pid - T) % T + T) % T`` (the identity,
  spelt with a negative dividend: Triton truncates toward zero);
* ``helper``: the rows come from a ``@triton.jit`` helper;
* ``advance``: the store goes through a pointer advanced to the tile's
  first row (``c_tile = c_ptr + pid_m * BLOCK_M * stride_cm``), then row
  offsets ``tl.arange(0, BLOCK_M)`` from there, as epilogues that build a
  tile pointer do;
* ``core``: the store is spelt ``tl.core.store``;
* ``product``: C's row stride is written ``(stride_cm * 1)``;
* ``order``: C's two stride parameters are declared (and passed) the
  other way round;
* ``named``: the plan names the rows' stride and size (``stride=stride_cm
  size=M``);
* ``widen``: the row index is widened, ``(...).to(tl.int64)``;
* ``persistent``: a persistent kernel in the shape of public ones:
  ``NUM_SMS`` programs on a 1-D grid walk the tiles (``for tile in
  range(pid, tiles, NUM_SMS)``, ``pid_m = tile // num_n``), each storing a
  tile's partial sum inside the loop, so each iteration must signal what
  it stored; with ``rotate`` or ``negmod`` the loop's first tile is moved;

mixed at random, on a random row count, world size, tile order and
delivery order. Every mutant is a valid single-GPU kernel (in bounds,
every row of C written once), so its fused kernel must match the original
on every simulated rank under the sanitizer, or be refused in one line
(``input_mutants.outcome``); anything else is a soundness bug.

    python test/fuzz/store_mutants.py 100 --seed 3      # prints each outcome
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from input_mutants import Mutant, launched, run_sample, sample  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BASE = (ROOT / "examples" / "gemm_rs.py").read_text()
KINDS = ("rotate", "negmod", "helper", "advance", "core", "product", "order", "named", "widen", "persistent")
HELPER = '''

@triton.jit
def tile_rows(pid, BLOCK: tl.constexpr):
    return pid * BLOCK + tl.arange(0, BLOCK)
'''
ROWS = "    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)\n"
STORE = ("    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn, acc.to(c_ptr.dtype.element_ty),\n"
         "             mask=(rows[:, None] < M) & (cols[None, :] < N))\n")
PROGRAMS = 3  # a persistent mutant's programs: fewer than the tiles of every shape below


def _replace(source: str, old: str, new: str) -> str:
    """``source`` with its one ``old`` replaced (the base changed if it is not there)."""
    if source.count(old) != 1:
        raise AssertionError(f"examples/gemm_rs.py no longer holds exactly one {old!r}")
    return source.replace(old, new)


def _persistent(source: str, start: str) -> str:
    """The kernel as a persistent one in the shape of public persistent
    GEMMs: ``NUM_SMS`` programs on a 1-D grid, each walking the tiles
    ``start, start + NUM_SMS, ...`` with ``pid_m, pid_n`` from the tile
    index; the tile body (rows, K loop, store) indented into the loop."""
    head, rest = source.split("    pid_m = tl.program_id(axis=0)\n    pid_n = tl.program_id(axis=1)\n", 1)
    body, tail = rest.split("\n\n\n# --- workload", 1)
    looped = "\n".join(("    " + line) if line else line for line in body.splitlines())
    head = _replace(head, "BLOCK_K: tl.constexpr):", "BLOCK_K: tl.constexpr,\n                   NUM_SMS: tl.constexpr):")
    source = (head + "    num_n = tl.cdiv(N, BLOCK_N)\n    tiles = tl.cdiv(M, BLOCK_M) * num_n\n"
              f"    for tile in range({start}, tiles, NUM_SMS):\n"
              "        pid_m = tile // num_n\n        pid_n = tile % num_n\n"
              + looped + "\n\n\n# --- workload" + tail)
    source = _replace(source, "grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))", f"grid = ({PROGRAMS},)")
    return _replace(source, "BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)",
                    f"BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, NUM_SMS={PROGRAMS})")


def mutant(rng: random.Random, index: int) -> Mutant:
    """The ``index``-th mutant of ``rng``'s sequence."""
    kinds = sorted(rng.sample(KINDS, rng.randint(1, 3)))
    if "rotate" in kinds and "negmod" in kinds:  # both rewrite the tile's program id: keep one
        kinds.remove("negmod")
    source = BASE
    persistent = "persistent" in kinds
    if "rotate" in kinds and not persistent:
        source = _replace(source, "    pid_m = tl.program_id(axis=0)\n",
                          "    tiles_m = tl.num_programs(axis=0)\n"
                          "    pid_m = (tl.program_id(axis=0) + tiles_m - 1) % tiles_m\n")
    if "negmod" in kinds and not persistent:
        source = _replace(source, "    pid_m = tl.program_id(axis=0)\n",
                          "    programs = tl.num_programs(axis=0)\n"
                          "    pid_m = ((tl.program_id(axis=0) - programs) % programs + programs) % programs\n")
    rows = "pid_m * BLOCK_M + tl.arange(0, BLOCK_M)"
    if "helper" in kinds:
        source = _replace(source, "\n\n@triton.jit\ndef gemm_rs_kernel", HELPER + "\n\n@triton.jit\ndef gemm_rs_kernel")
        rows = "tile_rows(pid_m, BLOCK_M)"
    if "widen" in kinds:
        rows = f"({rows}).to(tl.int64)"
    source = _replace(source, ROWS, f"    rows = {rows}\n")
    stride = "(stride_cm * 1)" if "product" in kinds else "stride_cm"
    store = "tl.core.store" if "core" in kinds else "tl.store"
    if "advance" in kinds:
        new = (f"    c_tile = c_ptr + pid_m * BLOCK_M * {stride}\n"
               f"    in_tile = tl.arange(0, BLOCK_M)\n"
               f"    {store}(c_tile + in_tile[:, None] * {stride} + cols[None, :] * stride_cn,\n"
               f"             acc.to(c_ptr.dtype.element_ty), mask=(rows[:, None] < M) & (cols[None, :] < N))\n")
    else:
        new = (f"    {store}(c_ptr + rows[:, None] * {stride} + cols[None, :] * stride_cn,\n"
               f"             acc.to(c_ptr.dtype.element_ty), mask=(rows[:, None] < M) & (cols[None, :] < N))\n")
    source = _replace(source, STORE, new)
    if "order" in kinds:
        source = _replace(source, "stride_bn, stride_cm, stride_cn,", "stride_bn, stride_cn, stride_cm,")
        source = _replace(source, "b.stride(1), c.stride(0), c.stride(1),", "b.stride(1), c.stride(1), c.stride(0),")
    if "named" in kinds:
        source = _replace(source, 'PLANS = ["reduce-scatter{tensor=c_ptr dim=0}"]',
                          'PLANS = ["reduce-scatter{tensor=c_ptr dim=0 size=M stride=stride_cm}"]')
    if persistent:  # rotate and negmod move each program's first tile
        start = {"rotate": "(tl.program_id(axis=0) + 1) % NUM_SMS",
                 "negmod": "((tl.program_id(axis=0) - NUM_SMS) % NUM_SMS + NUM_SMS) % NUM_SMS"}
        source = _persistent(source, next((start[k] for k in kinds if k in start), "tl.program_id(axis=0)"))
    m = rng.choice((48, 50, 64, 70))
    source = _replace(source, "M_DIM, K_LOCAL, N_DIM = 50, 24, 36", f"M_DIM, K_LOCAL, N_DIM = {m}, 24, 36")
    return launched(rng, f"#{index} {'+'.join(kinds)} M={m}", source)


def mutants(seed: int, count: int) -> list[Mutant]:
    return sample(mutant, seed, count)


def main() -> int:
    return run_sample(__doc__, mutants, 100)


if __name__ == "__main__":
    sys.exit(main())

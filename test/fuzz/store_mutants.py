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

and the classes issue 34's audit fixed by hand (each named in
docs/errors.md):

* ``table``: the row tile read from an int32 tensor of tile ids
  (``pid_m = tl.load(tile_ids + row_tile)``: the ids as drawn, reversed,
  rotated or shuffled); the host cannot know which rows a tile writes, so
  it cannot count each chunk's writers: refused, or fused and correct;
* ``step``: a persistent loop whose step ``STEP`` (a constexpr or an
  argument) is not the program count, on grids where each tile still runs
  once: ``over`` (one program per tile, ``STEP`` past the tiles), ``idle``
  (more programs than tiles, ``STEP`` at least the tile count),
  ``guard`` (``STEP`` below the programs, the loop run only where
  ``tl.program_id(0) < STEP``); with ``rotate`` or ``negmod`` the first tile
  is moved among the programs that run the loop;
* ``ptrtable``: a base address read from a table of raw pointers and cast
  with ``tl.pointer_type`` (three spellings, see input_mutants): C's odd
  column tiles stored through it (``if pid_n % 2 == 0`` stores the even
  ones through ``c_ptr``), or B read through it: refused;
* ``short``: fewer programs on axis 0 than row tiles, a loop covering the
  rest (``loop``: a stride of the program count; ``pairs``: two row tiles
  per program);
* ``nan``: NaN, inf or -inf elements in A or B on one rank;
* ``halves``: the rows in constexpr arithmetic (``unit``, ``half`` and
  ``split``, as in input_mutants);

mixed at random, on a random row count, world size, tile order and
delivery order. Every mutant is a valid single-GPU kernel (in bounds,
every row of C written once), so its fused kernel must match the original
on every simulated rank under the sanitizer, or be refused in one line
(``input_mutants.outcome``); anything else is a soundness bug.

    python test/fuzz/store_mutants.py 100 --seed 3      # prints each outcome
"""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from input_mutants import (END, Mutant, add_argument, apply_halves, describe, draw_halves, draw_pokes,  # noqa: E402
                           draw_short, indent, launched, pointer_table, poke_inputs, row_expr, run_sample, sample,
                           short_grid, tile_height)

ROOT = Path(__file__).resolve().parents[2]
BASE = (ROOT / "examples" / "gemm_rs.py").read_text()
KINDS = ("rotate", "negmod", "helper", "advance", "core", "product", "order", "named", "widen", "persistent",
         "table", "step", "ptrtable", "short", "nan", "halves")
HELPER = '''

@triton.jit
def tile_rows(pid, BLOCK: tl.constexpr):
    return pid * BLOCK + tl.arange(0, BLOCK)
'''
PIDS = "    pid_m = tl.program_id(axis=0)\n    pid_n = tl.program_id(axis=1)\n"
ROWS = "    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)\n"
STORE = ("    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn, acc.to(c_ptr.dtype.element_ty),\n"
         "             mask=(rows[:, None] < M) & (cols[None, :] < N))\n")
PROGRAMS = 3  # a persistent mutant's programs: fewer than the tiles of every shape below
GRID = re.compile(r"grid = \(triton\.cdiv\(M, [^)]*\), triton\.cdiv\(N, BLOCK_N\)\)")
START = {"rotate": "(tl.program_id(axis=0) + 1) % {w}",
         "negmod": "((tl.program_id(axis=0) - {w}) % {w} + {w}) % {w}"}  # a persistent loop's first tile, moved


def _replace(source: str, old: str, new: str) -> str:
    """``source`` with its one ``old`` replaced (the base changed if it is not there)."""
    if source.count(old) != 1:
        raise AssertionError(f"examples/gemm_rs.py no longer holds exactly one {old!r}")
    return source.replace(old, new)


def _persistent(source: str, start: str, height: str = "BLOCK_M", step: str = "NUM_SMS: tl.constexpr",
                value: int = PROGRAMS, programs: int = PROGRAMS, guard: bool = False) -> str:
    """The kernel as a persistent one in the shape of public persistent
    GEMMs: ``programs`` programs on a 1-D grid, each walking the tiles
    ``start, start + STEP, ...`` with ``pid_m, pid_n`` from the tile index;
    the tile body (rows, K loop, store) indented into the loop. ``step`` is
    the step's parameter (``NUM_SMS``, passed ``value``); ``guard`` runs the
    loop only in programs below the step."""
    head, rest = source.split(PIDS, 1)
    body, tail = rest.split(END, 1)
    looped = indent(body)
    name = step.split(":")[0]
    head = _replace(head, "BLOCK_K: tl.constexpr):", f"BLOCK_K: tl.constexpr,\n                   {step}):")
    loop = (f"    for tile in range({start}, tiles, {name}):\n"
            "        pid_m = tile // num_n\n        pid_n = tile % num_n\n" + looped)
    if guard:
        loop = f"    if tl.program_id(axis=0) < {name}:\n" + indent(loop)
    source = (head + f"    num_n = tl.cdiv(N, BLOCK_N)\n    tiles = tl.cdiv(M, {height}) * num_n\n" + loop + END + tail)
    source, count = GRID.subn(f"grid = ({programs},)", source)
    assert count == 1, "examples/gemm_rs.py's grid changed"
    return _replace(source, "BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)",
                    f"BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, {name}={value})")


def _draw_step(rng: random.Random, tiles: int) -> tuple[str, int, int, bool]:
    """A ``step`` mutant's form, programs, step and whether the step is a
    constexpr; every form runs each of the ``tiles`` tiles exactly once:
    ``over``: one program per tile, stepping past the last (the tutorials'
    ``min(NUM_SMS, tiles)`` programs); ``idle``: more programs than tiles,
    stepping by at least the tile count but not the program count (the
    programs past the tiles run none); ``guard``: more programs than the
    step, the loop run only where ``tl.program_id(0) < STEP``."""
    form = rng.choice(("over", "idle", "guard"))
    if form == "over":
        programs, step = tiles, tiles + rng.randint(1, 4)
    elif form == "idle":
        programs = tiles + rng.randint(1, 3)
        step = rng.choice((tiles, programs + rng.randint(1, 3)))
    else:
        step = rng.randint(2, 4)
        programs = step + rng.randint(1, 3)
    return form, programs, step, rng.random() < 0.5


def _draw_table(rng: random.Random, row_tiles: int, length: int) -> tuple[str, list[int]]:
    """A ``table`` mutant's row tiles, a permutation of ``row_tiles`` (as
    read, reversed, rotated or shuffled), padded to ``length`` entries with
    ``row_tiles`` (a tile past M: its rows are masked)."""
    form = rng.choice(("same", "reversed", "rotated", "shuffled"))
    perm = list(range(row_tiles))
    if form == "reversed":
        perm.reverse()
    elif form == "rotated":
        perm = perm[1:] + perm[:1]
    elif form == "shuffled":
        rng.shuffle(perm)
    return form, perm + [row_tiles] * (length - row_tiles)


def _table(source: str, perm: list[int]) -> str:
    """``table``: the kernel's row tile ``pid_m`` read from an int32 tensor
    ``tile_ids`` (``pid_m = tl.load(tile_ids + row_tile)``, ``row_tile`` what
    ``pid_m`` was), which the launch fills with ``perm``."""
    found = re.search(r"^( +)(?:pid_m = (.*)|for pid_m in (.*):)$", source, re.M)
    assert found, "the mutant's kernel has no pid_m"
    at = found.group(1)
    if found.group(2) is not None:
        new = f"{at}row_tile = {found.group(2)}\n{at}pid_m = tl.load(tile_ids + row_tile)"
    else:
        new = f"{at}for row_tile in {found.group(3)}:\n{at}    pid_m = tl.load(tile_ids + row_tile)"
    source = source[:found.start()] + new + source[found.end():]
    return add_argument(source, "tile_ids", "tile_ids",
                        f"    tile_ids = torch.tensor({perm}, dtype=torch.int32, device=a.device)\n")


def mutant(rng: random.Random, index: int) -> Mutant:
    """The ``index``-th mutant of ``rng``'s sequence."""
    kinds = sorted(rng.sample(KINDS, rng.randint(1, 3)))
    if "rotate" in kinds and "negmod" in kinds:  # both rewrite the tile's program id: keep one
        kinds.remove("negmod")
    if "step" in kinds and "persistent" in kinds:  # step is a persistent loop of another step
        kinds.remove("persistent")
    if "short" in kinds and ("step" in kinds or "persistent" in kinds):  # a persistent grid is short already
        kinds.remove("short")
    persistent = "persistent" in kinds or "step" in kinds
    m = rng.choice((48, 50, 64, 70))
    halves = draw_halves(rng) if "halves" in kinds else None
    height, rows_per_tile = tile_height(halves)
    row_tiles = -(-m // rows_per_tile)
    short = draw_short(rng, row_tiles) if "short" in kinds else None
    step = _draw_step(rng, row_tiles * 3) if "step" in kinds else None  # N = 36: 3 column tiles of 16
    table = (_draw_table(rng, row_tiles, 2 * short[1] if short and short[0] == "pairs" else row_tiles)
             if "table" in kinds else None)
    pointers = (rng.choice(("c", "b")), rng.choice(("to", "cast", "helper"))) if "ptrtable" in kinds else None
    pokes = draw_pokes(rng, {"a": (48, 24, False), "b": (24, 36, False)}) if "nan" in kinds else []
    source = BASE
    if "helper" in kinds:
        source = _replace(source, "\n\n@triton.jit\ndef gemm_rs_kernel", HELPER + "\n\n@triton.jit\ndef gemm_rs_kernel")
    rows = row_expr(halves, "helper" in kinds)
    if "widen" in kinds:
        rows = f"({rows}).to(tl.int64)"
    source = _replace(source, ROWS, f"    rows = {rows}\n")
    stride = "(stride_cm * 1)" if "product" in kinds else "stride_cm"
    store = "tl.core.store" if "core" in kinds else "tl.store"
    if "advance" in kinds:
        first, in_tile = {"half": ("pid_m * (BLOCK_M // 2)", "BLOCK_M // 2"),
                          "split": ("(pid_m * BLOCK_M + half * (BLOCK_M // 2))", "BLOCK_M // 2")}.get(
            halves[0] if halves else "", ("pid_m * BLOCK_M", halves[1] if halves else "BLOCK_M"))
        new = (f"    c_tile = c_ptr + {first} * {stride}\n"
               f"    in_tile = tl.arange(0, {in_tile})\n"
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
    source = apply_halves(source, halves)
    moved = next((k for k in kinds if k in START), None)
    if step:  # rotate and negmod move each program's first tile among the programs that run the loop
        form, programs, value, constexpr = step
        wrap = "STEP" if form == "guard" else "tl.num_programs(axis=0)"
        source = _persistent(source, START[moved].format(w=wrap) if moved else "tl.program_id(axis=0)", height,
                             "STEP: tl.constexpr" if constexpr else "STEP", value, programs, form == "guard")
    elif persistent:  # rotate and negmod move each program's first tile
        source = _persistent(source, START[moved].format(w="NUM_SMS") if moved else "tl.program_id(axis=0)", height)
    else:
        if moved == "rotate":
            source = _replace(source, "    pid_m = tl.program_id(axis=0)\n",
                              "    tiles_m = tl.num_programs(axis=0)\n"
                              "    pid_m = (tl.program_id(axis=0) + tiles_m - 1) % tiles_m\n")
        elif moved == "negmod":
            source = _replace(source, "    pid_m = tl.program_id(axis=0)\n",
                              "    programs = tl.num_programs(axis=0)\n"
                              "    pid_m = ((tl.program_id(axis=0) - programs) % programs + programs) % programs\n")
        if short:
            source = short_grid(source, short[0], short[1], height)
    if table:
        source = _table(source, table[1])
    if pointers:
        access = "c_tile = c_ptr + " if pointers[0] == "c" and "advance" in kinds else \
            f"{store}(c_ptr + " if pointers[0] == "c" else "tl.load(b_ptr + "
        source = pointer_table(source, pointers[0], pointers[1], access, "parity" if pointers[0] == "c" else "")
    if pokes:
        source = poke_inputs(source, pokes)
    source = _replace(source, "M_DIM, K_LOCAL, N_DIM = 50, 24, 36", f"M_DIM, K_LOCAL, N_DIM = {m}, 24, 36")
    details = describe(halves, short, pointers, pokes)
    if table:
        details += f" table={table[0]}"
    if step:
        details += f" step={step[0]}/programs={step[1]}/STEP={step[2]}{'' if step[3] else '/arg'}"
    return launched(rng, f"#{index} {'+'.join(kinds)} M={m}{details}", source)


def mutants(seed: int, count: int) -> list[Mutant]:
    return sample(mutant, seed, count)


def main() -> int:
    return run_sample(__doc__, mutants, 100)


if __name__ == "__main__":
    sys.exit(main())

"""Seeded mutants of a shipped workload, in the ways users' kernels differ
from the examples, and how each ends under syncopate.

A mutant rewrites the all-gather GEMM's load of A (examples/ag_gemm.py):

* ``shift``: its rows move by ``s`` (pointer and mask alike), so a tile
  reads rows of the next chunk: the waits must follow the addresses;
* ``helper``: its rows come from a ``@triton.jit`` helper (bounded in the
  helper, the start recomputed in the kernel);
* ``core``: it is spelt ``tl.core.load``;
* ``product``: its row stride is written ``(stride_am * 1)`` (a product
  with 1 is the stride itself);
* ``order``: A's two stride parameters are declared (and passed) the
  other way round, so declaration order no longer says which is the row's;
* ``named``: the plan names the rows' stride and size
  (``stride=stride_am size=M``), as the refusals of ``order`` ask;
* ``alias``: the launch passes a view of A's own memory as B (``b =
  a[:K, :N]``): B's reads have no waits, so the launch must be refused;
* ``widen``: the row index is widened, ``(...).to(tl.int64)``, as kernels
  written against int32 overflow do;
* ``negmod``: the row tile is ``((pid - T) % T + T) % T`` with ``T`` the
  programs on axis 0, whose inner remainder has a negative dividend:
  Triton truncates it toward zero, and the host must too;

and the classes issue 34's audit fixed by hand (each named in
docs/errors.md):

* ``ptrtable``: a base address read from a table of raw pointers (an int64
  tensor of ``data_ptr()``s) and cast with ``tl.pointer_type`` (``.to``,
  ``tl.cast`` with ``tl.core.pointer_type``, or in a jit helper): A's block
  loaded again through it and averaged with the direct load (exactly A), or
  B read through it; a pointer from an integer may hold a planned tensor's
  address, so the kernel must be refused;
* ``short``: fewer programs on axis 0 than row tiles, a loop covering the
  rest: ``loop`` strides by the program count, ``pairs`` runs two row tiles
  per program (the last may lie past M, masked);
* ``nan``: ``make_inputs`` sets one or two elements of A (on one rank) or B
  (on every rank) to NaN, inf or -inf: the check must match them where the
  original's output has them;
* ``halves``: the rows in constexpr arithmetic: ``unit`` spells the arange's
  length ``BLOCK_M * 1``, ``BLOCK_M // 2 * 2`` or ``2 * (BLOCK_M // 2)``;
  ``half`` makes tiles of ``BLOCK_M // 2`` rows (BLOCK_M = 32); ``split``
  computes a tile of BLOCK_M = 32 rows as two halves
  ``tl.arange(0, BLOCK_M // 2)`` in a loop;

mixed at random, on a random row count, world size, tile order and
delivery order. Every mutant is a valid single-GPU kernel (in bounds, every
output row written), so its fused kernel must either match the original
on every simulated rank under the sanitizer, or be refused in one line:
``outcome`` says which, and anything else (a wrong result, a sanitizer
violation, another exception, a hang) is a soundness bug.

    python test/fuzz/input_mutants.py 200 --seed 3      # a larger sample; prints each outcome
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
import os
import random
import re
import signal
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("TRITON_INTERPRET", "1")  # simulated ranks run Triton's interpreter (set before triton loads)
ROOT = Path(__file__).resolve().parents[2]
BASE = (ROOT / "examples" / "ag_gemm.py").read_text()
LOAD = re.compile(r"a = tl\.load\(a_ptr \+ rows\[:, None\] \* stride_am \+ ks\[None, :\] \* stride_ak,\n"
                  r"\s*mask=\(rows\[:, None\] < M\) & \(ks\[None, :\] < K\), other=0\.0\)")
KINDS = ("shift", "helper", "core", "product", "order", "named", "alias", "negmod", "widen",
         "ptrtable", "short", "nan", "halves")
HELPER = '''

@triton.jit
def tile_rows(pid, BLOCK: tl.constexpr):
    return pid * BLOCK + tl.arange(0, BLOCK)
'''
CLEAN = "refused"
GOOD = ("correct", CLEAN)
PID_N = "    pid_n = tl.program_id(axis=1)\n"
END = "\n\n\n# --- workload"  # where a base kernel's body ends
ARANGES = ("BLOCK_M * 1", "BLOCK_M // 2 * 2", "2 * (BLOCK_M // 2)")  # halves=unit: BLOCK_M, spelt in arithmetic
POINTER_CASTS = {"to": "tl.load({t}).to(tl.pointer_type(tl.float32))",
                 "cast": "tl.cast(tl.load({t}), tl.core.pointer_type(tl.float32))",
                 "helper": "table_base({t})"}
TABLE_HELPER = '''

@triton.jit
def table_base(table):
    return tl.load(table).to(tl.pointer_type(tl.float32))
'''


@dataclass(frozen=True)
class Mutant:
    """One mutant: its kinds and parameters, and the workload source."""

    name: str
    source: str
    world: int
    pipeline: str
    delivery: str


def mutant(rng: random.Random, index: int) -> Mutant:
    """The ``index``-th mutant of ``rng``'s sequence."""
    kinds = sorted(rng.sample(KINDS, rng.randint(1, 3)))
    shift = rng.choice((1, 3, 8, 16, 17)) if "shift" in kinds else 0
    m = rng.choice((50, 64) if "alias" in kinds else (32, 37, 50, 64))  # alias: A has at least K rows
    halves = draw_halves(rng) if "halves" in kinds else None
    height, rows_per_tile = tile_height(halves)
    short = draw_short(rng, -(-m // rows_per_tile)) if "short" in kinds else None
    table = (rng.choice(("a", "b")), rng.choice(sorted(POINTER_CASTS))) if "ptrtable" in kinds else None
    pokes = draw_pokes(rng, {"a": (10, 40, False), "b": (40, 36, True)}) if "nan" in kinds else []
    rows = "read[:, None]" if shift else "rows[:, None]"
    stride = "(stride_am * 1)" if "product" in kinds else "stride_am"
    load = "tl.core.load" if "core" in kinds else "tl.load"
    source = LOAD.sub(f"a = {load}(a_ptr + {rows} * {stride} + ks[None, :] * stride_ak,\n"
                      f"                    mask=({rows} < M) & (ks[None, :] < K), other=0.0)", BASE)
    if shift:  # the rows it reads, named as users do (offs_am = ...)
        source = source.replace("        ks = k0 + tl.arange(0, BLOCK_K)\n",
                                f"        ks = k0 + tl.arange(0, BLOCK_K)\n        read = rows + {shift}\n")
    if "helper" in kinds:
        source = source.replace("\n\n@triton.jit\ndef gemm_kernel", HELPER + "\n\n@triton.jit\ndef gemm_kernel")
    expr = row_expr(halves, "helper" in kinds)
    if "widen" in kinds:  # it widens whichever form the rows took
        expr = f"{expr}.to(tl.int64)" if "helper" in kinds else f"({expr}).to(tl.int64)"
    source = _one(source, "rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)", f"rows = {expr}")
    if "order" in kinds:
        source = source.replace("M, N, K, stride_am, stride_ak, stride_bk", "M, N, K, stride_ak, stride_am, stride_bk")
        source = source.replace("M, N, K, a.stride(0), a.stride(1), b.stride(0)", "M, N, K, a.stride(1), a.stride(0), b.stride(0)")
    if "named" in kinds:
        source = source.replace('PLANS = ["all-gather{tensor=a_ptr dim=0}"]',
                                'PLANS = ["all-gather{tensor=a_ptr dim=0 size=M stride=stride_am}"]')
    if "negmod" in kinds:
        source = source.replace("    pid_m = tl.program_id(axis=0)\n",
                                "    programs = tl.num_programs(axis=0)\n"
                                "    pid_m = ((tl.program_id(axis=0) - programs) % programs + programs) % programs\n")
    if "alias" in kinds:  # B is A's first K rows and N columns: a valid GEMM, reading A's memory through b_ptr
        source = source.replace("    M, K = a.shape\n    N = b.shape[1]\n",
                                "    M, K = a.shape\n    b = a[:b.shape[0], :b.shape[1]]\n    N = b.shape[1]\n")
    source = apply_halves(source, halves)
    if short:
        source = short_grid(source, short[0], short[1], height)
    if table:
        access = f"{load}(a_ptr + " if table[0] == "a" else "tl.load(b_ptr + "
        source = pointer_table(source, table[0], table[1], access, "average" if table[0] == "a" else "")
    if pokes:
        source = poke_inputs(source, pokes)
    source = source.replace("M_GLOBAL, K_DIM, N_DIM = 50, 40, 36", f"M_GLOBAL, K_DIM, N_DIM = {m}, 40, 36")
    details = describe(halves, short, table, pokes)
    return launched(rng, f"#{index} {'+'.join(kinds)} shift={shift} M={m}{details}", source)


def launched(rng: random.Random, label: str, source: str) -> Mutant:
    """``source`` as a mutant named ``label``, on a world size, tile order and delivery order drawn from ``rng``."""
    world, order, delivery = launch_choices(rng)
    return Mutant(f"{label} W={world} order={order} delivery={delivery}", source, world, f"overlap{{order={order}}}",
                  delivery)


def launch_choices(rng: random.Random) -> tuple[int, str, str]:
    """A mutant's world size, tile order and delivery order, drawn in that order."""
    from syncopate.runtime.sim.delivery import DELIVERY_ORDERS

    return rng.choice((2, 3)), rng.choice(("arrival", "none", "rotate")), rng.choice(DELIVERY_ORDERS)


def indent(text: str) -> str:
    """``text`` four spaces deeper (blank lines kept blank)."""
    return "".join(("    " + line) if line.strip() else line for line in text.splitlines(keepends=True))


def split_body(source: str) -> tuple[str, str, str]:
    """A base GEMM workload as the kernel up to its ``pid_n`` line, the
    tile's body (its rows to the kernel's end) and the rest of the file."""
    head, rest = source.split(PID_N, 1)
    body, tail = rest.split(END, 1)
    return head + PID_N, body, END + tail


def draw_halves(rng: random.Random) -> tuple[str, str]:
    """A ``halves`` mutant's form: ``unit`` (the row tile's ``tl.arange``
    length spelt as arithmetic of BLOCK_M), ``half`` (tiles of BLOCK_M // 2
    rows, BLOCK_M = 32) or ``split`` (a tile of BLOCK_M = 32 rows computed
    as two halves of BLOCK_M // 2 in a loop), and the unit form's length."""
    return rng.choice(("unit", "half", "split")), rng.choice(ARANGES)


def row_expr(halves: tuple[str, str] | None, helper: bool) -> str:
    """The tile's rows, plain or from ``tile_rows``, in ``halves``' form."""
    form, length = halves or ("unit", "BLOCK_M")
    start, length = {"half": ("pid_m", "BLOCK_M // 2"), "split": ("pid_m * 2 + half", "BLOCK_M // 2")}.get(
        form, ("pid_m", length))
    if helper:
        return f"tile_rows({start}, {length})"
    return {"half": "pid_m * (BLOCK_M // 2)",
            "split": "pid_m * BLOCK_M + half * (BLOCK_M // 2)"}.get(form, "pid_m * BLOCK_M") + f" + tl.arange(0, {length})"


def tile_height(halves: tuple[str, str] | None) -> tuple[str, int]:
    """The rows a program id of axis 0 steps by, as the kernel spells it and as a number."""
    form = halves[0] if halves else "unit"
    return ("(BLOCK_M // 2)", 16) if form == "half" else ("BLOCK_M", 32 if form == "split" else 16)


def apply_halves(source: str, halves: tuple[str, str] | None) -> str:
    """The tile's accumulator, BLOCK_M, grid and (``split``) loop of halves for ``halves``' form."""
    if halves is None or halves[0] == "unit":
        return source
    source = _one(source, "tl.zeros((BLOCK_M, BLOCK_N)", "tl.zeros((BLOCK_M // 2, BLOCK_N)")
    source = _one(source, "BLOCK_M, BLOCK_N, BLOCK_K = 16, 16, 16", "BLOCK_M, BLOCK_N, BLOCK_K = 32, 16, 16")
    if halves[0] == "half":
        return _one(source, "grid = (triton.cdiv(M, BLOCK_M),", "grid = (triton.cdiv(M, BLOCK_M // 2),")
    head, body, tail = split_body(source)
    return head + "    for half in range(2):\n" + indent(body) + tail


def short_grid(source: str, form: str, programs: int, height: str) -> str:
    """``short``: ``programs`` (fewer than the row tiles) on axis 0, each
    covering more row tiles in a loop: ``loop`` strides by the program
    count (``for pid_m in range(prog, tl.cdiv(M, BLOCK_M), programs)``),
    ``pairs`` runs tiles ``2 * prog`` and ``2 * prog + 1`` (the last may be
    past M, its rows masked). ``prog`` is what ``pid_m`` was."""
    head, body, tail = split_body(source)
    at = head.rindex("    pid_m = ")
    head = head[:at] + "    prog = " + head[at + len("    pid_m = "):]
    loop = (f"    for pid_m in range(prog, tl.cdiv(M, {height}), tl.num_programs(axis=0)):\n" if form == "loop"
            else "    for pair in range(2):\n        pid_m = prog * 2 + pair\n")
    source = head + loop + indent(body) + tail
    return re.sub(r"grid = \(triton\.cdiv\(M, [^)]*\),", f"grid = ({programs},", source, count=1)


def draw_short(rng: random.Random, row_tiles: int) -> tuple[str, int]:
    """A ``short`` mutant's form and its programs on axis 0, fewer than ``row_tiles``."""
    form = rng.choice(("loop", "pairs"))
    return form, rng.randint(1, row_tiles - 1) if form == "loop" else (row_tiles + 1) // 2


def add_argument(source: str, param: str, arg: str, prelude: str = "") -> str:
    """The kernel with a parameter ``param`` after BLOCK_K, launched with
    ``param=arg`` and the launch's ``prelude`` lines before its grid."""
    source = _one(source, "BLOCK_K: tl.constexpr", f"BLOCK_K: tl.constexpr, {param}")
    name = param.split(":")[0]
    source = _one(source, "BLOCK_K=BLOCK_K", f"BLOCK_K=BLOCK_K, {name}={arg}")
    return _one(source, "    grid = (", prelude + "    grid = (")


def pointer_table(source: str, tensor: str, spelling: str, access: str, keep: str = "") -> str:
    """``ptrtable``: ``tensor``'s base address read from a table of raw
    pointers (``tab_ptr``, an int64 tensor the launch fills with
    ``tensor.data_ptr()``) and cast to a pointer (``spelling``, a key of
    POINTER_CASTS), the access ``access`` (its text up to the pointer)
    made through it. ``keep`` keeps the access through the argument too:
    ``average`` loads the same block again through the table and averages
    the two (``a = (a + tl.load(a_base + ...)) * 0.5``, exactly ``a``);
    ``parity`` stores even column tiles through the argument, odd ones
    through the table (``if pid_n % 2 == 0: ... else: ...``)."""
    source = add_argument(source, "tab_ptr", "tab",
                          f"    tab = torch.tensor([{tensor}.data_ptr()], dtype=torch.int64, device=a.device)\n")
    if spelling == "helper":
        at = source.index("\n\n@triton.jit\ndef ")
        source = source[:at] + TABLE_HELPER + source[at:]
    at = source.index("):\n", source.index("def gemm")) + 3
    base = f"{tensor}_base"
    source = source[:at] + f"    {base} = " + POINTER_CASTS[spelling].format(t="tab_ptr") + "\n" + source[at:]
    based = access.replace(f"{tensor}_ptr", base)
    start = source.index(access)
    line = source.rindex("\n", 0, start) + 1
    margin = source[line:start][:len(source[line:start]) - len(source[line:start].lstrip(" "))]
    if keep == "average":
        end = source.index("other=0.0)", start) + len("other=0.0)")
        again = source[start:end].replace(access, based, 1)
        return source[:end] + f"\n{margin}{tensor} = ({tensor} + {again}) * 0.5" + source[end:]
    if keep == "parity":
        end = source.index(END, start)
        block = source[line:end] + "\n"
        return (source[:line] + f"{margin}if pid_n % 2 == 0:\n" + indent(block) + f"{margin}else:\n"
                + indent(block.replace(access, based, 1)).rstrip("\n") + source[end:])
    return _one(source, access, based)


def poke_inputs(source: str, pokes: list[tuple[str, int | None, int, int, str]]) -> str:
    """``nan``: ``make_inputs`` sets element ``[i, j]`` of tensor ``name`` to
    ``value`` (NaN or an infinity) on rank ``rank`` (every rank if None)."""
    lines = ""
    for name, rank, i, j, value in pokes:
        set_it = f"{name}[{i}, {j}] = float(\"{value}\")\n"
        lines += f"    {set_it}" if rank is None else f"    if rank == {rank}:\n        {set_it}"
    return _one(source, '    return {"a": a, "b": b}\n', lines + '    return {"a": a, "b": b}\n')


def draw_pokes(rng: random.Random, shapes: dict[str, tuple[int, int, bool]]) -> list[tuple[str, int | None, int, int, str]]:
    """One or two NaN/infinite elements of the inputs ``shapes`` names (rows
    and columns every rank has, and whether it is set on every rank)."""
    pokes = []
    for _ in range(rng.randint(1, 2)):
        name = rng.choice(sorted(shapes))
        rows, cols, everywhere = shapes[name]
        pokes.append((name, None if everywhere else rng.randint(0, 1), rng.randrange(rows), rng.randrange(cols),
                      rng.choice(("nan", "inf", "-inf"))))
    return pokes


def describe(halves: tuple[str, str] | None, short: tuple[str, int] | None, table: tuple[str, str] | None,
             pokes: list[tuple[str, int | None, int, int, str]]) -> str:
    """The name's words for the choices of the kinds ``halves``, ``short``, ``ptrtable`` and ``nan``."""
    words = []
    if halves:
        words.append("halves=" + (f"unit/{halves[1].replace(' ', '')}" if halves[0] == "unit" else halves[0]))
    if short:
        words.append(f"short={short[0]}/{short[1]}")
    if table:
        words.append(f"ptrtable={table[0]}/{table[1]}")
    if pokes:
        words.append("nan=" + ",".join(f"{name}[{i},{j}]={value}@{'all' if rank is None else rank}"
                                       for name, rank, i, j, value in pokes))
    return "".join(" " + w for w in words)


def _one(source: str, old: str, new: str) -> str:
    """``source`` with its first ``old`` replaced (the base changed if it is not there)."""
    if old not in source:
        raise AssertionError(f"the mutant's source no longer holds {old!r}")
    return source.replace(old, new, 1)


def sample(make: Callable[[random.Random, int], Mutant], seed: int, count: int) -> list[Mutant]:
    """The first ``count`` mutants ``make`` draws from a generator seeded with ``seed``."""
    rng = random.Random(seed)
    return [make(rng, i) for i in range(count)]


def first_of(make: Callable[[random.Random, int], Mutant], kinds: tuple[str, ...], *words: str) -> Mutant:
    """The first mutant ``make`` draws (seed 0) whose kinds are exactly
    ``kinds`` (the name's second word) and whose name has a word starting
    with each of ``words`` (a kind's choice: ``halves=split``), its other
    choices drawn as the generator draws them."""
    rng = random.Random(0)
    while True:
        case = make(rng, 0)
        parts = case.name.split(" ")
        if parts[1] == "+".join(sorted(kinds)) and all(any(p.startswith(w) for p in parts) for w in words):
            return case


def mutants(seed: int, count: int) -> list[Mutant]:
    return sample(mutant, seed, count)


class _Timeout(Exception):
    pass


def outcome(case: Mutant, seconds: int = 120) -> str:
    """``correct``, ``refused: <message>``, or what went wrong."""
    from xdsl.utils.exceptions import DiagnosticException

    from syncopate.ir.frontend.errors import FrontendError
    from syncopate.ir.plans.errors import PlanError
    from syncopate.lowering.triton_emitter import EmitError
    from syncopate.runtime.abi import AbiError
    from syncopate.runtime.harness.check import RunError, compile_workload, run_simulated
    from syncopate.runtime.sim.delivery import SimulationError
    from syncopate.runtime.harness.workload import WorkloadError, load_workload

    def expire(*_):
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "mutant.py"
        path.write_text(case.source)
        try:
            workload = load_workload(str(path))
            program = compile_workload(workload, case.world, case.pipeline)
            results = run_simulated(workload, case.world, case.delivery, 0, program)
        except (WorkloadError, PlanError, FrontendError, EmitError, DiagnosticException, RunError, AbiError) as err:
            text = str(err).strip()
            return f"{CLEAN}: {text.splitlines()[0] if text else type(err).__name__}"
        except SimulationError as err:
            return f"WRONG (simulation): {str(err).splitlines()[0]}"
        except _Timeout:
            return f"HANG (no end in {seconds} s)"
        except Exception as err:  # a bug of syncopate's
            return f"INTERNAL {type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
    bad = [r for r in results if not r.ok]
    return "correct" if not bad else f"WRONG: rank {bad[0].rank} max error {bad[0].max_error:.3g}"


def run_sample(description: str, make: Callable[[int, int], list[Mutant]], default: int) -> int:
    """The command line of a mutant family: ``count`` mutants of ``--seed``,
    each outcome printed, then the tally; exit status 1 if any ended badly."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("count", type=int, nargs="?", default=default)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    tally: dict[str, int] = {}
    failed = 0
    for case in make(args.seed, args.count):
        result = outcome(case)
        kind = result.split(":")[0]
        tally[kind] = tally.get(kind, 0) + 1
        failed += not result.startswith(GOOD)
        print(f"{case.name}: {result}", flush=True)
    print(f"{args.count} mutants, seed {args.seed}: {tally}")
    return 1 if failed else 0


def main() -> int:
    return run_sample(__doc__, mutants, 200)


if __name__ == "__main__":
    sys.exit(main())

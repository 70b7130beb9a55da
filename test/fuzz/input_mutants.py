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
KINDS = ("shift", "helper", "core", "product", "order", "named", "alias", "negmod", "widen")
HELPER = '''

@triton.jit
def tile_rows(pid, BLOCK: tl.constexpr):
    return pid * BLOCK + tl.arange(0, BLOCK)
'''
CLEAN = "refused"
GOOD = ("correct", CLEAN)


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
        source = source.replace("rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)", "rows = tile_rows(pid_m, BLOCK_M)")
    if "order" in kinds:
        source = source.replace("M, N, K, stride_am, stride_ak, stride_bk", "M, N, K, stride_ak, stride_am, stride_bk")
        source = source.replace("M, N, K, a.stride(0), a.stride(1), b.stride(0)", "M, N, K, a.stride(1), a.stride(0), b.stride(0)")
    if "named" in kinds:
        source = source.replace('PLANS = ["all-gather{tensor=a_ptr dim=0}"]',
                                'PLANS = ["all-gather{tensor=a_ptr dim=0 size=M stride=stride_am}"]')
    if "widen" in kinds:  # after helper: it widens whichever form the rows took
        source = source.replace("rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)",
                                "rows = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int64)")
        source = source.replace("rows = tile_rows(pid_m, BLOCK_M)", "rows = tile_rows(pid_m, BLOCK_M).to(tl.int64)")
    if "negmod" in kinds:
        source = source.replace("    pid_m = tl.program_id(axis=0)\n",
                                "    programs = tl.num_programs(axis=0)\n"
                                "    pid_m = ((tl.program_id(axis=0) - programs) % programs + programs) % programs\n")
    if "alias" in kinds:  # B is A's first K rows and N columns: a valid GEMM, reading A's memory through b_ptr
        source = source.replace("    M, K = a.shape\n    N = b.shape[1]\n",
                                "    M, K = a.shape\n    b = a[:b.shape[0], :b.shape[1]]\n    N = b.shape[1]\n")
    m = rng.choice((50, 64) if "alias" in kinds else (32, 37, 50, 64))  # alias: A has at least K rows
    source = source.replace("M_GLOBAL, K_DIM, N_DIM = 50, 40, 36", f"M_GLOBAL, K_DIM, N_DIM = {m}, 40, 36")
    return launched(rng, f"#{index} {'+'.join(kinds)} shift={shift} M={m}", source)


def launched(rng: random.Random, label: str, source: str) -> Mutant:
    """``source`` as a mutant named ``label``, on a world size, tile order and delivery order drawn from ``rng``."""
    world, order, delivery = launch_choices(rng)
    return Mutant(f"{label} W={world} order={order} delivery={delivery}", source, world, f"overlap{{order={order}}}",
                  delivery)


def launch_choices(rng: random.Random) -> tuple[int, str, str]:
    """A mutant's world size, tile order and delivery order, drawn in that order."""
    from syncopate.runtime.sim.delivery import DELIVERY_ORDERS

    return rng.choice((2, 3)), rng.choice(("arrival", "none", "rotate")), rng.choice(DELIVERY_ORDERS)


def sample(make: Callable[[random.Random, int], Mutant], seed: int, count: int) -> list[Mutant]:
    """The first ``count`` mutants ``make`` draws from a generator seeded with ``seed``."""
    rng = random.Random(seed)
    return [make(rng, i) for i in range(count)]


def first_of(make: Callable[[random.Random, int], Mutant], kinds: tuple[str, ...]) -> Mutant:
    """The first mutant ``make`` draws (seed 0) whose kinds are exactly
    ``kinds`` (the name's second word), its other choices drawn as the
    generator draws them."""
    rng = random.Random(0)
    while True:
        case = make(rng, 0)
        if case.name.split(" ")[1] == "+".join(sorted(kinds)):
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

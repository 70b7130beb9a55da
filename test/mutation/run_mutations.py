"""Mutation check: sabotage the synchronisation code one way at a time and
show that the test suite notices.

    python test/mutation/run_mutations.py            # every mutation
    python test/mutation/run_mutations.py -k spin    # those whose name contains 'spin'
    python test/mutation/run_mutations.py --list

Each mutation replaces one exact piece of source (it must occur exactly
once) in a scratch copy of the repository, then runs the tests named for
it: the ones that should kill it, so a run takes minutes, not the whole
suite per mutation. A mutation is *killed* when one of them fails (or runs
past the time limit), and *survives* when they all pass. The tests are
first run on the unmutated copy: a test that fails there kills nothing.

The copy is imported as ``syncopate`` through a symlink, like the
worktrees: the checkout itself is never edited. Exit status: 0 when every
mutation was killed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 900


@dataclass(frozen=True)
class Mutation:
    name: str
    path: str  # relative to the repository root
    old: str
    new: str
    pytest: tuple[str, ...] = ()  # node ids or files
    lit: tuple[str, ...] = ()  # lit paths


ISOLATED = "test/unit/runtime/test_isolated_delivery.py"
RUN_CHECKS = "test/unit/runtime/test_run_checks.py"
ERRORS = "test/unit/tools/test_overlap_run_errors.py"
PUSH = "test/unit/runtime/test_push_all_reduce.py"

MUTATIONS = [
    # scalar rows (ir/analysis/chunk_access.py) and the launch's in-row check (runtime/abi.py)
    Mutation("a scalar row drops the offsets that move it", "ir/analysis/chunk_access.py",
             "    terms = (index, *(v for v in shifts if v is not None))\n", "    terms = (index,)\n",
             pytest=("test/unit/runtime/test_row_mutants.py::test_the_neighbours_row_is_waited_for",),
             lit=("test/chunk-dependency-analysis/next-row.py",)),
    Mutation("a compared length declared after the stride is taken for an inner stride",
             "ir/analysis/chunk_access.py", " and name not in _compared(kernel)", "",
             lit=("test/chunk-dependency-analysis/next-row.py",)),
    Mutation("the launch skips the in-row check", "runtime/abi.py",
             "        _check_in_row(program, env, rank)\n", "",
             pytest=("test/unit/runtime/test_row_mutants.py::test_the_column_count_added_as_a_row_is_refused_at_launch",)),
    Mutation("a masked-off scalar row still waits past the extent", "ir/analysis/chunk_access.py",
             "    return Span(terms, _unit(kernel), masked_below=below, masked_from=above, in_row=in_row)",
             "    return Span(terms, _unit(kernel), in_row=in_row)",
             pytest=("test/unit/runtime/test_row_mutants.py::test_the_neighbours_row_is_waited_for",)),
    # sync helpers (lowering/device_helpers.py)
    Mutation("spin accepts the previous launch's flag", "lowering/device_helpers.py",
             "    flag = flags + index\n", "    flag = flags + index\n    target = target - 1\n",
             pytest=("test/unit/runtime/test_simulated_ranks.py::test_back_to_back_launches_need_no_reset",
                     f"{ISOLATED}::test_each_arm_of_an_if_else_waits_for_its_rows")),
    Mutation("loop wait skips a chunk starting at the previous iteration's end", "lowering/device_helpers.py",
             "(check_all | (chunk_lo >= seen_hi))", "(check_all | (chunk_lo > seen_hi))",
             pytest=("test/unit/lowering/test_wait_span.py",)),
    Mutation("wait search skips a chunk ending one row into the span", "lowering/device_helpers.py",
             "if tl.load(table + 3 * mid + 1) <= lo:", "if tl.load(table + 3 * mid + 1) <= lo + 1:",
             pytest=("test/unit/lowering/test_wait_span.py",)),
    Mutation("signal counts a chunk only when it covers the tile's first row", "lowering/device_helpers.py",
             "        if (chunk_lo < hi) & (chunk_hi > lo):\n            tl.atomic_add(",
             "        if (chunk_lo <= lo) & (chunk_hi > lo):\n            tl.atomic_add(",
             pytest=(f"{ISOLATED}::test_a_split_k_output_the_launch_zeroed_is_not_poisoned",
                     "test/unit/runtime/test_simulated_ranks.py::test_early_signals_are_caught",
                     "test/unit/runtime/test_simulated_ranks.py::test_dependency_graph_of_a_straddling_tile")),
    # passes
    Mutation("wait deduplication ignores the block (if/else arms)", "passes/insert_signals.py",
             "key = (*key, id(anchor.parent_block()))", "key = (*key,)",
             pytest=(f"{ISOLATED}::test_each_arm_of_an_if_else_waits_for_its_rows",)),
    Mutation("insert-signals places no waits", "passes/insert_signals.py",
             "                if self.waits:\n", "                if False:\n",
             lit=("test/insert-signals",)),
    Mutation("two plans share a flag base", "passes/lower_chunk_to_tile.py",
             "base += 1 + max(", "base += 0 * max(",
             pytest=(f"{RUN_CHECKS}::test_two_plans_wait_on_distinct_flags",)),
    # footprints and dependencies (ir/)
    Mutation("a tile's signal count is one short", "ir/analysis/deps.py",
             "counts[(node[1], node[2])] = len(writers)", "counts[(node[1], node[2])] = max(len(writers) - 1, 1)",
             pytest=(f"{ISOLATED}::test_a_split_k_output_the_launch_zeroed_is_not_poisoned",)),
    Mutation("wait tables hold the chunks a rank sends", "ir/analysis/deps.py",
             "mine = [c for c in chunks if (c.dst if role == \"wait\" else c.src) == rank]",
             "mine = [c for c in chunks if (c.src if role == \"wait\" else c.dst) == rank]",
             pytest=(f"{ISOLATED}::test_each_arm_of_an_if_else_waits_for_its_rows",)),
    Mutation("a footprint keeps only its first scalar term", "ir/analysis/index_spans.py",
             "terms = tuple(plus) or (index.op.start,)",
             "terms = tuple(plus[:1]) or (index.op.start,)",
             lit=("test/chunk-dependency-analysis/two-scalar-terms.py",)),
    Mutation("tl.arange with a non-zero start is bounded anyway", "ir/analysis/index_spans.py",
             "            if start != 0:\n", "            if False:\n",
             lit=("test/chunk-dependency-analysis",)),
    # runtime checks
    Mutation("overlapping wait tables are not refused", "runtime/abi.py",
             "                    _check_disjoint(mine, self.rank)\n", "                    pass\n",
             pytest=(f"{RUN_CHECKS}::test_a_rank_that_would_receive_rows_twice_is_refused",)),
    Mutation("no check of the plan's extent at launch", "runtime/abi.py",
             "        _check_extents(plans, chunks, params, rank, pushed_plans(program))\n", "",
             pytest=(f"{ERRORS}::test_plans_that_do_not_fit_the_run_are_errors_not_mismatches",)),
    Mutation("no check of the plan's world", "runtime/harness/check.py",
             "    check_world(program, world, \"simulated ranks\")\n", "",
             pytest=(f"{ERRORS}::test_plans_that_do_not_fit_the_run_are_errors_not_mismatches",)),
    Mutation("no check of the shards' cut", "runtime/sim/world.py",
             "        check_shards(launch, self.sim.shards)\n", "",
             pytest=(f"{ERRORS}::test_workload_misuse_is_one_line_naming_the_function",)),
    # the simulator
    Mutation("a chunk arrives at the first poll", "runtime/sim/delivery.py",
             "if self._polled[flag] < 2:", "if self._polled[flag] < 1:",
             pytest=(f"{ISOLATED}::test_a_spin_that_exits_on_a_stale_flag_reads_poison",)),
    Mutation("isolated programs keep what earlier programs received", "runtime/sim/delivery.py",
             "            item.retract()\n", "            pass\n",
             pytest=(ISOLATED,)),
    Mutation("a produced chunk takes rows written after its signal", "runtime/sim/delivery.py",
             "        now.copy_(start)\n", "",
             pytest=(f"{ISOLATED}::test_an_isolated_output_counts_only_rows_written_before_their_signal",
                     f"{ISOLATED}::test_a_program_that_adds_into_a_chunk_twice_counts_each_addition_once")),
    Mutation("outputs the kernel adds into are poisoned", "runtime/sim/world.py",
             "if not consumed and output_reads(program, tensor.param.data)[0]:", "if False:",
             pytest=(f"{ISOLATED}::test_a_split_k_output_the_launch_zeroed_is_not_poisoned",)),
    # push all-reduce (push-all-reduce)
    Mutation("a push sums before waiting for its peers", "lowering/device_helpers.py",
             "            syn_spin(flags, (mine + tile).to(tl.int32), epoch, spin_limit, report)\n",
             "            pass\n",
             pytest=(f"{PUSH}::test_every_rank_gets_the_whole_sum_from_one_kernel",)),
    Mutation("a push waits for the wrong epoch slot", "runtime/sim/push.py",
             "p.staging[state.epoch % 2, src]", "p.staging[1 - state.epoch % 2, src]",
             pytest=(f"{PUSH}::test_every_rank_gets_the_whole_sum_from_one_kernel",)),
    Mutation("verify-sync takes a push's store on trust", "passes/verify_sync.py",
             "        if store.ptr is not push.ptrs or store.mask is not push.mask:\n",
             "        if False:\n",
             lit=("test/verify-sync/push-other-mask.mlir",)),
    Mutation("the comparison ignores values", "runtime/harness/check.py",
             "return a.shape == b.shape and bool(torch.allclose(a, b, atol=ATOL, rtol=RTOL, equal_nan=True))",
             "return a.shape == b.shape",
             pytest=(f"{ISOLATED}::test_a_wait_that_misses_rows_an_earlier_tile_waited_for_is_caught_only_in_isolation",
                     f"{ISOLATED}::test_a_wait_that_misses_rows_inside_the_extent_is_caught_by_the_values")),
]


def _copy(dest: Path) -> Path:
    """A scratch copy of the checkout and a directory that imports it as ``syncopate``."""
    repo = dest / "repo"
    shutil.copytree(ROOT, repo, ignore=shutil.ignore_patterns(".git", "__pycache__", "*.pyc", ".pytest_cache",
                                                              ".hypothesis", "build", "*.egg-info"))
    link = dest / "path"
    link.mkdir()
    (link / "syncopate").symlink_to(repo)
    return repo


def _run_tests(m: Mutation, repo: Path) -> tuple[bool, str]:
    """(all passed, what failed)."""
    env = dict(os.environ, PYTHONPATH=str(repo.parent / "path"), TRITON_INTERPRET="1")
    commands = []
    if m.pytest:
        commands.append([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *m.pytest])
    if m.lit:
        commands.append([shutil.which("lit") or "lit", "-q", *m.lit])
    for cmd in commands:
        try:
            done = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return False, f"{Path(cmd[0]).name}: timed out after {TIMEOUT_S}s"
        if done.returncode != 0:
            lines = [ln for ln in (done.stdout + done.stderr).splitlines() if ln.startswith(("FAILED", "FAIL:", "ERROR"))]
            return False, "; ".join(lines[:3]) or f"{Path(cmd[0]).name} exited {done.returncode}"
    return True, ""


def main(argv: list[str] | None = None, mutations: list[Mutation] | None = None, doc: str = __doc__) -> int:
    """Apply ``mutations`` (default: this file's) as ``argv`` selects; the
    runtime's script (run_runtime_mutations.py) calls this with its own."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("-k", default="", help="only mutations whose name contains this")
    parser.add_argument("--list", action="store_true", help="list the mutations and exit")
    args = parser.parse_args(argv)
    chosen = [m for m in (MUTATIONS if mutations is None else mutations) if args.k in m.name]
    if args.list:
        for m in chosen:
            print(f"{m.path}: {m.name}")
        return 0
    survivors = []
    with tempfile.TemporaryDirectory(prefix="syncopate-mutation-") as tmp:
        repo = _copy(Path(tmp))
        for m in chosen:
            target = repo / m.path
            original = target.read_text()
            if original.count(m.old) != 1:
                print(f"STALE     {m.name}: the text to mutate occurs {original.count(m.old)} times in {m.path}")
                survivors.append(m.name)
                continue
            baseline, why = _run_tests(m, repo)
            if not baseline:
                print(f"BROKEN    {m.name}: its tests fail without the mutation ({why})")
                survivors.append(m.name)
                continue
            start = time.perf_counter()
            target.write_text(original.replace(m.old, m.new))
            try:
                passed, why = _run_tests(m, repo)
            finally:
                target.write_text(original)
            took = time.perf_counter() - start
            print(f"{'SURVIVED' if passed else 'killed  '}  {m.name} ({m.path}, {took:.0f}s){'' if passed else ': ' + why}",
                  flush=True)
            if passed:
                survivors.append(m.name)
    print(f"{len(chosen) - len(survivors)}/{len(chosen)} mutations killed"
          + (f"; not killed: {', '.join(survivors)}" if survivors else ""))
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())

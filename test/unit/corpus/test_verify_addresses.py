"""verify-addresses (ir/crosscheck/addresses.py) over every corpus kernel
that fuses, compiled as test_corpus_fusion.py compiles it (its PLANS, or FUSE
through make_case) and run through the default pipeline's stages before
verify-sync (waits and signals are still chunk span ops).

* No corpus kernel is reported uncovered (the pipeline is sound on them, so
  an "uncovered" would be a false alarm of the cross-check).
* The accesses it proves covered do not drop below PROVED_AT_LEAST (a
  ratchet: raise it when the model learns more, never lower it). The table
  of proved / unproved / unbounded / uncovered per kernel is printed.
* The proofs are not vacuous: with any one wait or signal deleted, no access
  it proved before stays proved unless another span op still covers it,
  and at least one access becomes uncovered in most kernels.
"""

from __future__ import annotations

import inspect

import pytest
from test_corpus_fusion import FUSED, _workload
from xdsl.dialects.builtin import ModuleOp

from syncopate.dialects.chunk import SignalSpanOp, WaitSpanLoopOp, WaitSpanOp
from syncopate.ir.context import make_context
from syncopate.ir.crosscheck.addresses import Report, check
from syncopate.lowering.compile import compile_module
from syncopate.passes.overlap_pipeline import OverlapPipelinePass
from syncopate.passes.verify_sync import VerifySyncPass

WORLD = 2
STATUSES = ("proved", "unproved", "unbounded", "uncovered")
SPAN_OPS = (WaitSpanOp, WaitSpanLoopOp, SignalSpanOp)
# the ratchet: accesses proved over the whole corpus (raise it, never lower it)
PROVED_AT_LEAST = 60


def _before_verify(path) -> ModuleOp:
    workload = _workload(path)
    fn = workload.kernel
    while not inspect.isfunction(fn) and hasattr(fn, "fn"):  # autotune/heuristics wrap the jit function
        fn = fn.fn
    module = compile_module(inspect.getsourcefile(fn), fn.__name__, workload.plan_specs(WORLD), "")
    for stage in OverlapPipelinePass().stages():
        if isinstance(stage, VerifySyncPass):
            return module
        stage.apply(make_context(), module)
    raise AssertionError("the overlap pipeline has no verify-sync stage")


@pytest.fixture(scope="module")
def modules() -> dict[str, ModuleOp]:
    return {path.stem: _before_verify(path) for path in FUSED}


@pytest.fixture(scope="module")
def reports(modules) -> dict[str, Report]:
    return {stem: check(module) for stem, module in modules.items()}


def test_no_corpus_kernel_is_uncovered(reports):
    bad = [f"{stem}: {a.where()}: {a.detail}" for stem, r in reports.items()
           for a in r.accesses if a.status == "uncovered"]
    assert bad == []


def test_proved_accesses_do_not_drop(reports, capsys):
    rows = [(stem, *(r.count(s) for s in STATUSES)) for stem, r in sorted(reports.items())]
    totals = tuple(sum(row[i + 1] for row in rows) for i in range(len(STATUSES)))
    with capsys.disabled():
        print(f"\n{'kernel':28} " + " ".join(f"{s:>9}" for s in STATUSES))
        for row in [*rows, ("TOTAL", *totals)]:
            print(f"{row[0]:28} " + " ".join(f"{n:>9}" for n in row[1:]))
        for stem, r in sorted(reports.items()):
            for a in r.accesses:
                if a.status != "proved":
                    print(f"  {stem}: {a.status}: {a.where()}: {a.detail[:200]}")
    assert totals[0] >= PROVED_AT_LEAST


def test_deleting_a_wait_or_signal_unproves_what_it_covered(modules, reports):
    """With one span op deleted, some access the full module proved is no
    longer proved: the proofs lean on the waits and signals, not on nothing.
    (Deleting one may leave another that still covers; then nothing changes
    and the deletion is listed, not failed, if no access needed it.)"""
    silent, uncovered = [], 0
    for stem, module in modules.items():
        before = [a.status for a in reports[stem].accesses]
        for index in range(sum(isinstance(o, SPAN_OPS) for o in module.walk())):
            broken = module.clone()
            sync = [o for o in broken.walk() if isinstance(o, SPAN_OPS)][index]
            sync.detach()
            sync.erase()
            after = [a.status for a in check(broken).accesses]
            assert len(after) == len(before)
            assert all(a == "proved" or b != "proved" for a, b in zip(before, after)), f"{stem}: proved more"
            lost = [b for a, b in zip(before, after) if a == "proved" and b != "proved"]
            uncovered += "uncovered" in lost
            if not lost and "proved" in before:
                silent.append(f"{stem} #{index}")
    print(f"\ndeletions that left an access uncovered: {uncovered}; that changed nothing: {silent}")
    assert silent == [] and uncovered >= 25  # a ratchet, like PROVED_AT_LEAST

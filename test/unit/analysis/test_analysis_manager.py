"""Analyses are computed once per pipeline run and dropped by the passes
that change what they read (ir/analysis/manager.py, passes/pipeline.py)."""

from dataclasses import dataclass
from typing import ClassVar

import pytest
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, i32
from xdsl.passes import ModulePass, PassPipeline

from syncopate.dialects import chunk, tile
from syncopate.ir.analysis import chunk_access
from syncopate.ir.analysis.manager import ALL, pipeline_run, query
from syncopate.ir.context import make_context
from syncopate.ir.contract import KERNEL_ATTR
from syncopate.ir.frontend.triton_import import import_file
from syncopate.ir.plans.cli import load_plans
from syncopate.lowering.compile import compile_module
from syncopate.passes import get_all_passes
from syncopate.passes.chunk_dependency_analysis import ChunkDependencyAnalysisPass
from syncopate.passes.insert_signals import InsertSignalsPass
from syncopate.passes.overlap_pipeline import OverlapPipelinePass
from syncopate.passes.pipeline import apply_passes
from syncopate.passes.tile_reorder import TileReorderPass

class Counted:
    """A toy analysis: the number of ops in the module, counting its runs."""

    def __init__(self):
        self.runs = 0

    def __call__(self, module):
        self.runs += 1
        return sum(1 for _ in module.walk())


@dataclass(frozen=True)
class Query(ModulePass):
    """Queries the analysis; declares it preserved (it changes nothing)."""

    name: ClassVar[str] = "test-query"
    analysis: object = None
    preserved: object = ()
    seen: list = None

    @property
    def preserved_analyses(self):
        return self.preserved

    def apply(self, ctx, op):
        self.seen.append(query(op, self.analysis))


@dataclass(frozen=True)
class AddConstant(ModulePass):
    """Changes the module and declares nothing, like any xDSL pass."""

    name: ClassVar[str] = "test-add-constant"

    def apply(self, ctx, op):
        op.body.block.add_op(arith.ConstantOp(IntegerAttr(0, i32)))


def test_outside_a_pipeline_run_every_query_computes():
    analysis, module = Counted(), ModuleOp([])
    assert query(module, analysis) == query(module, analysis) == 1
    assert analysis.runs == 2


def test_a_pipeline_run_computes_once_while_passes_preserve_it():
    analysis, seen, module = Counted(), [], ModuleOp([])
    keep = Query(analysis=analysis, preserved=(analysis,), seen=seen)
    apply_passes([keep, keep, Query(analysis=analysis, preserved=ALL, seen=seen), keep], Context(), module)
    assert seen == [1, 1, 1, 1]
    assert analysis.runs == 1


def test_a_pass_that_declares_nothing_invalidates():
    analysis, seen, module = Counted(), [], ModuleOp([])
    keep = Query(analysis=analysis, preserved=(analysis,), seen=seen)
    apply_passes([keep, AddConstant(), keep, keep], Context(), module)
    assert seen == [1, 2, 2]  # the later query sees the added op
    assert analysis.runs == 2


def test_preserving_one_analysis_drops_the_others():
    kept, dropped, seen, module = Counted(), Counted(), [], ModuleOp([])
    first = Query(analysis=dropped, preserved=(kept,), seen=seen)
    apply_passes([Query(analysis=kept, preserved=(kept,), seen=seen), first,
                  Query(analysis=kept, preserved=(kept,), seen=seen), first], Context(), module)
    assert (kept.runs, dropped.runs) == (1, 2)


def test_nested_runs_share_the_outer_manager_and_end_with_it():
    analysis, module = Counted(), ModuleOp([])
    with pipeline_run(module) as outer:
        with pipeline_run(module) as inner:
            assert inner is outer
            query(module, analysis)
        query(module, analysis)
        assert analysis.runs == 1
    query(module, analysis)
    assert analysis.runs == 2  # the run is over: computed afresh


@pytest.fixture
def analyze_runs(monkeypatch):
    """How many times chunk_access.analyze ran (it looks the kernel up once per run)."""
    runs = []
    original = chunk_access.find_kernel

    def counting(module, plans):
        runs.append(module)
        return original(module, plans)

    monkeypatch.setattr(chunk_access, "find_kernel", counting)
    return runs


def fused_module(example, kernel, plan, pipeline):
    return compile_module(example, kernel, [plan], pipeline)


def unfused_module(example, kernel, plan):
    """The imported kernel with its plan, before any pass."""
    module = import_file(example)
    module.attributes[KERNEL_ATTR] = StringAttr(kernel)
    for op in load_plans([plan], make_context()):
        module.body.block.add_op(op)
    return module


def test_overlap_pipeline_computes_the_analysis_once(analyze_runs):
    # chunk-dependency-analysis, insert-signals and fuse-peer-reduction all
    # query it; with order=none, tile-reorder changes nothing
    fused_module("examples/gemm_rs_tma.py", "gemm_rs_tma_kernel", "reduce-scatter{tensor=c_ptr dim=0 world=2}",
                 "overlap{order=none backend=ce reduce=epilogue verify=false}")
    assert len(analyze_runs) == 1


def test_tile_reorder_invalidates_so_insert_signals_recomputes(analyze_runs):
    fused_module("examples/ag_gemm.py", "gemm_kernel", "all-gather{tensor=a_ptr dim=0 world=2}", "overlap{verify=false}")
    assert len(analyze_runs) == 2  # chunk-dependency-analysis (shared with tile-reorder), then insert-signals


def test_verify_sync_analyses_the_synchronised_module_afresh(analyze_runs):
    # the verifier does not take the placing passes' preserved declarations
    # on trust: it computes the analysis afresh, one run more than above
    fused_module("examples/ag_gemm.py", "gemm_kernel", "all-gather{tensor=a_ptr dim=0 world=2}", "overlap")
    assert len(analyze_runs) == 3


def test_waits_after_tile_reorder_read_the_renumbered_program_id():
    # `row = tl.program_id(0)` is the access's bound itself: tile-reorder
    # replaces that program id, so facts kept from before it would make the
    # wait read an erased value
    module = unfused_module("test/insert-signals/carried-and-wrapped.py", "rows",
                            "all-gather{tensor=X dim=0 size=M_ROWS world=2}")
    apply_passes([ChunkDependencyAnalysisPass(), TileReorderPass(order="arrival"), InsertSignalsPass()],
                 make_context(), module)
    module.verify()
    (wait,) = [op for op in module.walk() if isinstance(op, chunk.WaitSpanOp)]
    assert isinstance(wait.operands[0].owner, tile.CallJitOp)
    assert wait.operands[0].owner.callee.root_reference.data == "syn_tile_pid0"


@pytest.mark.parametrize("example,kernel,plan,pipeline", [
    ("examples/ag_gemm.py", "gemm_kernel", "all-gather{tensor=a_ptr dim=0 world=2}", "overlap"),
    ("examples/ag_gemm_persistent.py", "gemm_persistent_kernel", "all-gather{tensor=a_ptr dim=0 world=2}",
     "overlap{order=rotate}"),
    ("examples/gemm_rs_tma.py", "gemm_rs_tma_kernel", "reduce-scatter{tensor=c_ptr dim=0 world=2}",
     "overlap{backend=ce reduce=epilogue}"),
])
def test_shared_analyses_give_the_module_fresh_ones_give(example, kernel, plan, pipeline):
    shared = fused_module(example, kernel, plan, pipeline)
    fresh = unfused_module(example, kernel, plan)
    (overlap,) = PassPipeline.parse_spec(get_all_passes(), pipeline).passes
    assert isinstance(overlap, OverlapPipelinePass)
    for stage in overlap.stages():
        stage.apply(make_context(), fresh)  # outside a pipeline run: each query computes afresh
    assert str(shared) == str(fresh)


@pytest.mark.parametrize("passes,runs", [
    ("chunk-dependency-analysis,select-backend,insert-signals", 1),
    ("chunk-dependency-analysis,cse,insert-signals", 2),  # an xDSL pass declares nothing: it invalidates
])
def test_overlap_opt_shares_analyses_between_its_passes(analyze_runs, capsys, passes, runs):
    from syncopate.tools.overlap_opt import main

    assert main(["examples/ag_gemm.py", "--plan", "all-gather{tensor=a_ptr dim=0 world=2}", "-p", passes]) == 0
    assert "chunk.wait_span" in capsys.readouterr().out
    assert len(analyze_runs) == runs

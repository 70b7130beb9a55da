"""verify-sync on every kernel that fuses: the examples and the corpus.

Compile only (no simulated ranks). For each kernel, the default pipeline up
to verify-sync must leave a module that verify-sync proves synchronised,
access by access; and the proof must not be vacuous: with any one of the
waits or signals the pipeline placed deleted, verify-sync refuses it.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from test_corpus_fusion import FUSED, _workload
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import PassFailedException

from syncopate.dialects.chunk import SignalSpanOp, WaitSpanLoopOp, WaitSpanOp
from syncopate.ir.analysis.chunk_access import analyze
from syncopate.ir.context import make_context
from syncopate.lowering.compile import compile_module
from syncopate.passes.lower_chunk_to_tile import LowerChunkToTilePass
from syncopate.passes.overlap_pipeline import OverlapPipelinePass
from syncopate.passes.verify_addresses import VerifyAddressesPass
from syncopate.passes.verify_sync import VerifySyncPass, verify
from syncopate.runtime.harness.workload import load_workload

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
SPAN_OPS = (WaitSpanOp, WaitSpanLoopOp, SignalSpanOp)
WORLD = 3


def _before_verify(workload, pipeline: OverlapPipelinePass) -> ModuleOp:
    """The workload's kernel through ``pipeline``'s stages before verify-sync."""
    fn = workload.kernel
    while not inspect.isfunction(fn) and hasattr(fn, "fn"):  # autotune/heuristics wrap the jit function
        fn = fn.fn
    module = compile_module(inspect.getsourcefile(fn), fn.__name__, workload.plan_specs(WORLD), "")
    for stage in pipeline.stages():
        if isinstance(stage, VerifySyncPass):
            return module
        stage.apply(make_context(), module)
    raise AssertionError("the overlap pipeline has no verify-sync stage")


def _check(workload, pipeline: OverlapPipelinePass = OverlapPipelinePass()) -> None:
    module = _before_verify(workload, pipeline)
    proofs = verify(module)
    accesses = analyze(module).accesses
    assert accesses and {p.access for p in proofs} == {b.access.op for b in accesses}
    assert all(p.by and all(isinstance(o, SPAN_OPS) for o in p.by) for p in proofs)
    count = sum(isinstance(o, SPAN_OPS) for o in module.walk())
    for index in range(count):
        broken = module.clone()
        sync = [o for o in broken.walk() if isinstance(o, SPAN_OPS)][index]
        sync.detach()
        sync.erase()
        with pytest.raises(PassFailedException, match="verify-sync: "):
            verify(broken)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_verifies(path: Path):
    _check(load_workload(str(path)))


def test_the_epilogue_reduction_verifies():
    _check(load_workload(str(ROOT / "examples" / "gemm_rs_tma.py")), OverlapPipelinePass(reduce="epilogue"))


@pytest.mark.parametrize("path", FUSED, ids=lambda p: p.stem)
def test_every_fused_corpus_kernel_verifies(path: Path):
    _check(_workload(path))


def test_the_pipeline_verifies_before_lowering_by_default():
    stages = [type(s) for s in OverlapPipelinePass().stages()]
    assert stages[-3:] == [VerifySyncPass, VerifyAddressesPass, LowerChunkToTilePass]
    assert VerifySyncPass not in [type(s) for s in OverlapPipelinePass(verify=False).stages()]
    # the negative controls place no waits (or signals): the address check would refuse them
    assert VerifyAddressesPass not in [type(s) for s in OverlapPipelinePass(waits=False).stages()]
    assert VerifyAddressesPass not in [type(s) for s in OverlapPipelinePass(verify=False).stages()]
    (off,) = [s for s in OverlapPipelinePass(waits=False).stages() if isinstance(s, VerifySyncPass)]
    assert off == VerifySyncPass(waits=False, signals=True)

"""chunk dialect: build, print, parse back, verify."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from syncopate.dialects.chunk import ChunkOp, PlanOp, TensorOp
from syncopate.ir.plans.load import build, plan_context
from syncopate.ir.plans.spec import plan_from_spec

SPECS = [
    "all-gather{world=3 size=M chunks_per_rank=2}",
    "reduce-scatter{world=4 size=10 order=direct}",
    "all-to-all{world=2 splits=3,1,2,2}",
    "all-reduce{world=2 size=\"2*K\"}",
]


@pytest.mark.parametrize("spec", SPECS)
def test_print_parse_round_trip(spec: str) -> None:
    text = str(ModuleOp([build(plan_from_spec(spec))]))
    module = Parser(plan_context(), text).parse_module()
    module.verify()
    assert str(module) == text


def test_builders_and_accessors() -> None:
    plan = PlanOp("p", "all-gather", 1, [
        TensorOp("a", "a_ptr", ["M"], [1]),
        ChunkOp(0, "a", 0, 0, "M", 0, 0, 0, "ce"),
    ])
    plan.verify()
    assert plan.world_size == 1 and plan.collective == "all-gather"
    assert len(plan.chunks) == 1 and plan.tensors[0].shape_values == ["M"]


def test_unknown_kind_is_rejected() -> None:
    op = PlanOp("x", "gather", 1, [TensorOp("a", "a_ptr", [4], [1]), ChunkOp(0, "a", 0, 0, 4, 0, 0, 0)])
    with pytest.raises((VerifyException, DiagnosticException), match="unknown collective kind 'gather'"):
        op.verify()


def test_unknown_backend_is_rejected() -> None:
    op = PlanOp("x", "all-gather", 1, [TensorOp("a", "a_ptr", [4], [1]), ChunkOp(0, "a", 0, 0, 4, 0, 0, 0, "pcie")])
    with pytest.raises((VerifyException, DiagnosticException), match="unknown backend 'pcie'"):
        op.verify()


def test_plan_verifier_runs_on_verify() -> None:
    op = PlanOp("x", "all-gather", 2, [TensorOp("a", "a_ptr", [4], [1]), ChunkOp(0, "a", 0, 0, 2, 0, 0, 0)])
    with pytest.raises((VerifyException, DiagnosticException), match=r"gap: no chunk covers \[2, 4\)"):
        op.verify()

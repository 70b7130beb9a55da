"""Driver glue: add_plan_arguments, load_plan, diagrams."""

from __future__ import annotations

import argparse

import pytest
from xdsl.dialects.builtin import ModuleOp

from syncopate.dialects.chunk import PlanOp
from syncopate.ir.plans.cli import add_plan_arguments, load_plan
from syncopate.ir.plans.diagram import draw
from syncopate.ir.plans.errors import PlanError
from syncopate.ir.plans.load import plan_context


def test_arguments() -> None:
    parser = argparse.ArgumentParser()
    add_plan_arguments(parser)
    args = parser.parse_args(["--plan", "all-gather{world=2}", "--plan-diagram", "x.svg"])
    assert args.plan == ["all-gather{world=2}"] and args.plan_diagram == "x.svg"
    args = parser.parse_args(["--plan", "all-gather{world=2}", "--plan", "reduce-scatter{world=2}"])
    assert args.plan == ["all-gather{world=2}", "reduce-scatter{world=2}"]


def test_plans_with_one_name_are_refused() -> None:
    from syncopate.ir.plans.cli import load_plans

    with pytest.raises(PlanError, match="both named @ag; give one of them name="):
        load_plans(["all-gather{world=2}", "all-gather{world=2 tensor=b}"], plan_context())
    plans = load_plans(["all-gather{world=2}", "all-gather{world=2 tensor=b name=agb}"], plan_context())
    assert [p.sym_name.data for p in plans] == ["ag", "agb"]


def test_load_spec_and_file(tmp_path) -> None:
    op = load_plan("reduce-scatter{world=4 size=32}", plan_context())
    assert isinstance(op, PlanOp) and op.world_size == 4
    path = tmp_path / "p.mlir"
    path.write_text(str(ModuleOp([op])))
    again = load_plan(str(path), plan_context())
    assert str(again) == str(op)


@pytest.mark.parametrize(
    "text,message",
    [
        ("chunk.plan @p kind \"all-gather\" world 2 {\n}", "the plan has no chunks"),
        ("chunk.plan @p kind", "cannot parse plan file"),
    ],
)
def test_bad_files(tmp_path, text, message) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text(text)
    with pytest.raises(PlanError, match=message):
        load_plan(str(path), plan_context())


def test_missing_file() -> None:
    with pytest.raises(PlanError, match="cannot read plan file"):
        load_plan("/nonexistent/plan.mlir", plan_context())


@pytest.mark.parametrize("suffix", [".svg", ".png"])
def test_diagram(tmp_path, suffix) -> None:
    out = tmp_path / f"plan{suffix}"
    draw(load_plan("all-gather{world=3 size=9 chunks_per_rank=2}", plan_context()), str(out))
    assert out.stat().st_size > 1000


def test_diagram_bad_suffix(tmp_path) -> None:
    with pytest.raises(PlanError, match="must end in one of"):
        draw(load_plan("all-gather{world=2}", plan_context()), str(tmp_path / "x.txt"))

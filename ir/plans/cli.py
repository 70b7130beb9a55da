"""Command-line glue: what ``overlap-opt`` and ``python -m syncopate.ir.plans`` call."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.context import Context

from syncopate.dialects.chunk import PlanOp
from syncopate.ir.plans.errors import PlanError

if TYPE_CHECKING:
    from syncopate.ir.plans.load import PlanSource

__all__ = ["add_plan_arguments", "load_plan", "load_plans", "PlanError"]

PLAN_HELP = (
    "chunk plan: a .mlir file holding one chunk.plan, a template spec such as "
    "'all-gather{world=4 size=M chunks_per_rank=2 order=ring}' "
    "(all-gather, reduce-scatter, all-reduce, all-to-all, ring-exchange), or a "
    "port spec such as 'port{from=\"Shard(0)\" to=\"Replicate()\" world=4 tensor=a}'"
)


def add_plan_arguments(arg_parser: argparse.ArgumentParser) -> None:
    """Add ``--plan SPEC_OR_FILE`` and ``--plan-diagram PATH`` to ``arg_parser``."""
    arg_parser.add_argument(
        "--plan", metavar="SPEC_OR_FILE", action="append", default=None,
        help=PLAN_HELP + "; repeat for several collectives (give each a distinct name=)",
    )
    arg_parser.add_argument(
        "--plan-diagram",
        metavar="PATH",
        default=None,
        help="draw the plan (which chunk moves between which ranks at which step) "
        "to PATH (.svg or .png)",
    )


def load_plan(spec_or_path: PlanSource, ctx: Context) -> PlanOp:
    """The verified chunk.plan of a .mlir path, a spec or a template's typed
    options; raises PlanError."""
    from syncopate.ir.plans.load import load  # imports sympy: only runs with a plan pay for it

    return load(spec_or_path, ctx)


def load_plans(specs: Sequence[PlanSource], ctx: Context) -> list[PlanOp]:
    """The verified plans of several ``--plan`` values (or typed options);
    their names must differ."""
    plans = [load_plan(spec, ctx) for spec in specs]
    seen: dict[str, PlanSource] = {}
    for spec, plan in zip(specs, plans):
        name = plan.sym_name.data
        if name in seen:
            raise PlanError(
                f"plans {seen[name]!r} and {spec!r} are both named @{name}; give one of them name=<other>"
            )
        seen[name] = spec
    return plans

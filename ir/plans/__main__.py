"""``python -m syncopate.ir.plans SPEC_OR_FILE [--plan-diagram out.svg]``.

Prints the expanded, verified plan as a builtin.module; on a bad plan prints
``error: <message>`` to stderr and exits with status 1.
"""

from __future__ import annotations

import argparse
import sys

from xdsl.dialects.builtin import ModuleOp

from syncopate.ir.plans.cli import PLAN_HELP
from syncopate.ir.plans.errors import PlanError
from syncopate.ir.plans.load import load, plan_context


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m syncopate.ir.plans",
        description="Expand, verify and print a chunk plan.",
    )
    parser.add_argument("plan", metavar="SPEC_OR_FILE", help=PLAN_HELP)
    parser.add_argument("--plan-diagram", metavar="PATH", default=None,
                        help="also draw the plan to PATH (.svg or .png)")
    parser.add_argument("--split-input-file", action="store_true",
                        help="treat a .mlir input as several plans separated by "
                        "'// -----' lines; report each one's error and go on")
    args = parser.parse_args(argv)
    if args.split_input_file:
        return _split(args.plan)
    try:
        plan = load(args.plan, plan_context())
        if args.plan_diagram:
            from syncopate.ir.plans.diagram import draw

            draw(plan, args.plan_diagram)
    except PlanError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(ModuleOp([plan]))
    return 0


def _split(path: str) -> int:
    """Verify each '// -----' separated plan of ``path``; print plan or error."""
    import os
    import tempfile

    with open(path) as f:
        pieces = f.read().split("// -----")
    status = 0
    for piece in pieces:
        with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as tmp:
            tmp.write(piece)
        try:
            print(ModuleOp([load(tmp.name, plan_context())]))
        except PlanError as err:
            print(f"error: {err}".replace(tmp.name, path))
            status = 1
        finally:
            os.unlink(tmp.name)
        print("// -----")
    return status


if __name__ == "__main__":
    sys.exit(main())

"""``python -m syncopate.ir.plans.roundtrip FILE``: parse a module that uses the
chunk dialect (with builtin, func and arith), verify it and print it.

A stand-in for ``overlap-opt`` for this dialect's own tests: errors are printed
as ``error: <message>`` on stdout with exit status 1.
"""

from __future__ import annotations

import sys

from xdsl.dialects.arith import Arith
from xdsl.dialects.func import Func
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException

from syncopate.ir.plans.load import _short, plan_context


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m syncopate.ir.plans.roundtrip FILE", file=sys.stderr)
        return 2
    ctx = plan_context()
    ctx.load_dialect(Func)
    ctx.load_dialect(Arith)
    with open(argv[0]) as f:
        text = f.read()
    try:
        module = Parser(ctx, text, argv[0]).parse_module()
        module.verify()
    except ParseError as err:
        print(f"error: {err}")
        return 1
    except (VerifyException, DiagnosticException) as err:
        print(f"error: {_short(err)}")
        return 1
    print(module)
    return 0


if __name__ == "__main__":
    sys.exit(main())

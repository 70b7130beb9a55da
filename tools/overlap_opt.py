"""overlap-opt: xdsl-opt for syncopate.

Reads a Triton `.py` file (every @triton.jit function is imported) or tile IR
(`.mlir`), runs a pass pipeline (`-p a,b{opt=v}`) and prints IR (`-t mlir`,
the default) or Triton Python (`-t triton`). All of xdsl-opt's flags work
(`--print-op-generic`, `--verify-diagnostics`, `--split-input-file`, ...).
User errors (unsupported Python, invalid IR, bad plans, failing passes) print
one message naming the file/op and exit with status 1, never a traceback.
"""

from __future__ import annotations

import argparse
import inspect
import sys
from collections.abc import Sequence
from typing import IO

from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from syncopate.ir.errors import FrontendError
from syncopate.lowering.triton_emitter import EmitError


class OverlapOptMain(xDSLOptMain):
    version_format = "overlap-opt (syncopate) built on xdsl {xdsl_version}"

    def __init__(self, args: Sequence[str] | None = None):
        super().__init__(description="syncopate's modular optimizer: Triton kernels + chunk plans -> fused kernels", args=args)

    def register_all_dialects(self) -> None:
        from syncopate.ir.context import make_context

        for name, dialect in make_context()._registered_dialects.items():  # noqa: SLF001
            self.ctx.register_dialect(name, lambda d=dialect: d)

    def register_all_frontends(self) -> None:
        super().register_all_frontends()
        from syncopate.ir.frontend import import_source

        def parse_python(io: IO[bytes]):
            return import_source(io.read().decode(), self.get_input_name())

        self.available_frontends["py"] = parse_python

    def register_all_passes(self) -> None:
        from syncopate.passes import get_all_passes

        for name, factory in get_all_passes().items():
            self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        super().register_all_targets()
        from syncopate.lowering.target import TritonTarget

        self.available_targets["triton"] = lambda: TritonTarget

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        lines = ["passes:"]
        for name, factory in sorted(self.available_passes.items()):
            pass_class = factory()
            doc = inspect.cleandoc(pass_class.__dict__.get("__doc__") or "")
            lines.append(f"  {name:28} {doc.splitlines()[0] if doc else ''}")
        lines += ["", "targets: " + ", ".join(self.available_targets), "frontends: .py (Triton), .mlir (IR)"]
        arg_parser.epilog = "\n".join(lines)


def main(args: Sequence[str] | None = None) -> int:
    try:
        OverlapOptMain(args).run()
    except (FrontendError, EmitError) as error:
        print(error, file=sys.stderr)
        return 1
    except (DiagnosticException, ParseError) as error:
        print(error, file=sys.stderr)
        return 1
    except FileNotFoundError as error:
        print(f"overlap-opt: error: {error.strerror}: {error.filename}", file=sys.stderr)
        return 1
    except ValueError as error:
        print(f"overlap-opt: error: {error}", file=sys.stderr)
        return 1
    return 0


def entry_point() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry_point()

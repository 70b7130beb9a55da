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
import ast
import dataclasses
import io
import os
import sys
from collections.abc import Sequence
from typing import IO

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from syncopate.dialects.chunk import PlanOp
from syncopate.dialects.tile import FuncOp
from syncopate.ir.xdsl_lexer import nesting_message  # also makes xDSL's string-literal regex linear
from syncopate.ir.contract import KERNEL_ATTR
from syncopate.ir.frontend.errors import FrontendError
from syncopate.ir.plans.errors import PlanError
from syncopate.ir.verify import verify_module
from syncopate.lowering.triton_emitter import EmitError
from syncopate.passes import PipelineError

TARGET_SUMMARIES = {
    "mlir": "Print the IR (the default).",
    "triton": "Emit Triton Python: one @triton.jit function per tile.func.",
}
"""The output targets overlap-opt offers, with their --help summaries."""


EXIT_USAGE = 2
"""Exit status of command-line usage errors (argparse's own, and a bad ``-p``)."""


class OverlapOptMain(xDSLOptMain):
    version_format = "overlap-opt (syncopate) built on xdsl {xdsl_version}"

    _plans: list[PlanOp] | None = None

    def __init__(self, args: Sequence[str] | None = None):
        super().__init__(description="syncopate's modular optimizer: Triton kernels + chunk plans -> fused kernels", args=args)

    def register_all_dialects(self) -> None:
        from syncopate.ir.context import all_dialects

        for dialect in all_dialects():
            self.ctx.register_dialect(dialect.name, lambda d=dialect: d)

    def register_all_frontends(self) -> None:
        super().register_all_frontends()
        from syncopate.ir.frontend.triton_import import import_source

        def parse_python(io: IO[bytes]):
            left_out: list[FrontendError] = []
            module = import_source(self.decoded(io.read()), self.get_input_name(), self.args.kernel, left_out)
            for error in left_out:  # the output lacks these kernels: say so, and why
                print(f"overlap-opt: note: left out (not --kernel {self.args.kernel}): {_message(error)}", file=sys.stderr)
            return module

        self.available_frontends["py"] = parse_python

    def register_all_passes(self) -> None:
        from syncopate.passes import get_all_passes

        for name, factory in get_all_passes().items():
            self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        """Only the targets that make sense for tile IR (see TARGET_SUMMARIES);
        xDSL's assembly and other backends do not know the tile dialect."""
        super().register_all_targets()
        from syncopate.lowering.target import TritonTarget

        self.available_targets["triton"] = lambda: TritonTarget
        for name in list(self.available_targets):
            if name not in TARGET_SUMMARIES:
                del self.available_targets[name]

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        from syncopate.ir.plans.cli import add_plan_arguments

        add_plan_arguments(arg_parser)
        arg_parser.add_argument(
            "--kernel", metavar="NAME", default=None,
            help="the kernel to fuse when several kernels of the file take the plan's tensor "
            "(e.g. a forward and a backward kernel); the others are emitted unchanged",
        )
        arg_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        # The catalogue imports every pass, so it is built when the help is
        # printed, not on every run.
        format_help = arg_parser.format_help

        def format_help_with_catalogue() -> str:
            arg_parser.epilog = self.catalogue()
            return format_help()

        arg_parser.format_help = format_help_with_catalogue

    def catalogue(self) -> str:
        """The passes, targets and frontends, with their one-line summaries."""
        from syncopate.passes import PASSES, summary
        from syncopate.passes.option_help import help_of, options_of, spelling

        lines = ["passes:"]
        for name, factory in sorted(self.available_passes.items()):
            pass_class = factory()
            lines.append(f"  {name:28} {summary(pass_class)}")
            if name in PASSES:  # this project's passes: their options, one line each (xDSL's have none here)
                lines += [f"      {spelling(field.name) or f'{field.name}={_default(field)}'}: {help_of(field)}"
                          for field in options_of(pass_class)]
        lines += ["", "targets:"]
        lines += [f"  {name:28} {TARGET_SUMMARIES[name]}" for name in self.available_targets]
        lines += ["", "frontends: .py (Triton), .mlir (IR)"]
        return "\n".join(lines)

    def apply_passes(self, prog: ModuleOp) -> None:
        """Run the pipeline as xdsl-opt does (its verification, timing and
        printing between passes), with analyses shared between the passes.
        The input is verified first, so that the errors some of xDSL's own
        verifiers raise as plain exceptions are one error line too."""
        from syncopate.passes.pipeline import apply_passes

        if not self.args.disable_verify:
            verify_module(prog)
        apply_passes(self.pipeline.passes, self.ctx, prog, self.pipeline.callback)

    def setup_pipeline(self) -> None:
        """A ``-p`` that does not parse or names an unknown pass is a usage error."""
        from syncopate.passes import parse_pipeline

        parse_pipeline(self.args.passes)  # raises PipelineError with one line
        super().setup_pipeline()

    # -- chunk plans ---------------------------------------------------------

    def prepare_input(self) -> tuple[list[tuple[IO[bytes], int]], str]:
        """xDSL's "Unrecognized file extension" names neither the file nor the fix."""
        try:
            return super().prepare_input()
        except ValueError as error:
            if not str(error).startswith("Unrecognized file extension"):
                raise
            suffix = os.path.splitext(self.get_input_name())[1]
            what = f"unrecognized file extension '{suffix}'" if suffix else "no file extension"
            raise InputError(
                f"{self.get_input_name()}: {what}: name a Triton kernel .py and IR text .mlir, "
                "or choose with -f py / -f mlir"
            ) from None

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        """With --plan and no input file, start from an empty module (no stdin)."""
        if self.args.plan is not None and self.args.input_file is None:
            return io.BytesIO(b"builtin.module {}"), "mlir"
        return super().get_input_stream()

    def decoded(self, data: bytes) -> str:
        """The input as text: UTF-8, a leading byte-order mark dropped (legal in Python)."""
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise InputError(
                f"{self.get_input_name()}: not a UTF-8 text file "
                f"(byte 0x{data[error.start]:02x} at offset {error.start})"
            ) from None

    def parse_chunk(self, chunk: IO[bytes], file_extension: str, start_offset: int = 0) -> ModuleOp | None:
        """Parse the input; with --plan, append the verified chunk.plan(s) to the module."""
        if file_extension != "py":
            text = self.decoded(chunk.read())
            # nesting first: Python's own parser runs out of stack on a few thousand open brackets
            too_deep = nesting_message(text, self.get_input_name())
            if too_deep:
                raise InputError(too_deep)
            if _looks_like_python(text):
                raise InputError(
                    f"{self.get_input_name()}: this is Python, not IR text; give a Triton kernel a .py name"
                )
            chunk = io.BytesIO(text.encode())
        module = super().parse_chunk(chunk, file_extension, start_offset)
        if module is not None and self.args.plan is not None:
            for plan in self.plans():
                module.body.block.add_op(plan.clone())
        if module is not None and self.args.kernel is not None:
            # a .py input already refused an unknown name in the frontend; IR text is checked here
            names = [op.sym_name.data for op in module.ops if isinstance(op, FuncOp)]
            if self.args.kernel not in names:
                raise InputError(f"{self.get_input_name()}: no kernel named '{self.args.kernel}' "
                                 f"(kernels: {', '.join(names) or 'none'})")
            module.attributes[KERNEL_ATTR] = StringAttr(self.args.kernel)
        return module

    def plans(self) -> list[PlanOp]:
        if self._plans is None:
            from syncopate.ir.plans.cli import load_plans

            self._plans = load_plans(self.args.plan, self.ctx)
            if self.args.plan_diagram:
                from syncopate.ir.plans.diagram import draw

                if len(self._plans) != 1:
                    raise PlanError("--plan-diagram draws one plan; give a single --plan")
                draw(self._plans[0], self.args.plan_diagram)
        return self._plans


class InputError(Exception):
    """An input file overlap-opt cannot read as what its name says it is."""


def _looks_like_python(text: str) -> bool:
    """IR text never parses as Python (``builtin.module {`` does not), and
    xDSL's lexer can spin on a Python docstring, so such input is refused
    before it reaches the IR parser."""
    if not text.strip():
        return False
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):  # the last two: nested past the parser's stack
        return False
    return True


def _message(error: BaseException) -> str:
    """One line (or xDSL's caret diagnostic) for a user error."""
    if isinstance(error, FrontendError):
        return f"{error.filename}:{error.line}: {error.message}" if error.line else f"{error.filename}: {error.message}"
    if isinstance(error, PlanError):
        return f"--plan: {error}"
    if isinstance(error, OSError):
        return f"{error.strerror}: {error.filename}" if error.filename else str(error)
    return str(error)


def _default(field: dataclasses.Field) -> str:
    """An option's default as it would be written in a pass spec."""
    if field.default is dataclasses.MISSING:
        return "(required)"
    if isinstance(field.default, bool):
        return str(field.default).lower()
    return str(field.default) if field.default != "" else '""'


def main(args: Sequence[str] | None = None) -> int:
    """Run overlap-opt; user errors print ``overlap-opt: error: ...`` and
    return 1; usage errors return 2 (argparse's exit 2 on their own)."""
    tool: OverlapOptMain | None = None
    try:
        tool = OverlapOptMain(args)
        tool.run()
    except PipelineError as error:
        print(f"overlap-opt: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except ParseError as error:
        print(f"overlap-opt: error: {error}", file=sys.stderr)  # xDSL's diagnostic names file, line and column
        return 1
    except (FrontendError, EmitError, DiagnosticException, PlanError, InputError, OSError, ValueError) as error:
        print(f"overlap-opt: error: {_message(error)}", file=sys.stderr)
        return 1
    except RecursionError:  # input deeper than the checks before parsing catch
        if os.environ.get("SYNCOPATE_TRACEBACK") == "1":
            raise
        name = tool.get_input_name() if tool is not None else "the input"
        print(f"overlap-opt: error: {name}: nested too deeply: Python's recursion limit was reached while reading "
              "or transforming it", file=sys.stderr)
        return 1
    return 0


def entry_point() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry_point()

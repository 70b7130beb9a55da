"""Turn a plan spec or a .mlir file into a verified ``chunk.plan`` op."""

from __future__ import annotations

import os

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException

from syncopate.dialects.chunk import Chunk, PlanOp
from syncopate.ir.xdsl_lexer import nesting_message  # also makes xDSL's string-literal regex linear
from syncopate.ir.plans.errors import PlanError
from syncopate.ir.plans.model import Plan, to_op
from syncopate.ir.plans.spec import plan_from_spec
from syncopate.ir.plans.templates import TemplateOptions, instantiate
from syncopate.ir.plans.verifier import verify_plan


def plan_context() -> Context:
    """A Context with builtin and chunk loaded (enough for plan files)."""
    ctx = Context()
    ctx.load_dialect(Builtin)
    ctx.load_dialect(Chunk)
    return ctx


def build(plan: Plan) -> PlanOp:
    """Verify ``plan`` and build its op."""
    verify_plan(plan)
    op = to_op(plan)
    _verify(op)
    return op


def _verify(op: PlanOp | ModuleOp) -> None:
    try:
        op.verify()
    except (VerifyException, DiagnosticException) as err:
        raise PlanError(_short(err)) from None


def _short(err: Exception) -> str:
    """The message of a verifier error without the op dump xDSL adds."""
    text = str(err)
    marker = "Operation does not verify: "
    if marker in text:
        text = text[text.index(marker) + len(marker):]
        text = text.split("\n\n")[0].split("\n")[0]
    return text


def load_file(path: str, ctx: Context | None = None) -> PlanOp:
    """Parse and verify the single chunk.plan in the .mlir file ``path``."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as err:
        raise PlanError(f"cannot read plan file {path}: {err.strerror}") from None
    ctx = ctx or plan_context()
    for dialect in (Builtin, Chunk):
        if ctx.get_optional_dialect(dialect.name) is None:
            ctx.load_dialect(dialect)
    too_deep = nesting_message(text, path)
    if too_deep:
        raise PlanError(f"cannot parse plan file {path}: {too_deep}")
    try:
        module = Parser(ctx, text, path).parse_module()
    except ParseError as err:
        raise PlanError(f"cannot parse plan file {path}:\n{err}") from None
    except RecursionError:
        raise PlanError(f"cannot parse plan file {path}: nested too deeply (Python's recursion limit)") from None
    _verify(module)
    plans = [op for op in module.walk() if isinstance(op, PlanOp)]
    if len(plans) != 1:
        raise PlanError(f"{path}: expected exactly one chunk.plan, found {len(plans)}")
    plan = plans[0]
    plan.detach()
    return plan


PlanSource = str | TemplateOptions
"""What names a plan: a ``.mlir`` path or a template / port spec (text, as
``--plan`` takes it), or a template's options built in Python
(:func:`syncopate.ir.plans.templates.template`), which never go through text."""


def load(spec_or_path: PlanSource, ctx: Context | None = None) -> PlanOp:
    """A verified plan from a ``.mlir`` path, a template / port spec or a
    template's typed options."""
    if isinstance(spec_or_path, TemplateOptions):
        return build(instantiate(spec_or_path))
    if spec_or_path.endswith(".py") and os.path.isfile(spec_or_path):
        raise PlanError(f"{spec_or_path}: a plan file is IR text holding one chunk.plan (.mlir), not Python; "
                        "give a kernel as the input file and --plan a spec or a .mlir file")
    if spec_or_path.endswith(".mlir") or os.path.isfile(spec_or_path):
        return load_file(spec_or_path, ctx)
    return build(plan_from_spec(spec_or_path))

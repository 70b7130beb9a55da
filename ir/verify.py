"""Verify a module, every failure a :class:`VerifyException`.

A few of xDSL's own op verifiers raise a plain ``Exception`` (``scf.while``
with block arguments unlike its operands) or fail with an ``IndexError``
(an ``scf.while`` with fewer block arguments than operands). Those are
verification failures of the input like any other, and the tools report
them as one ``error:`` line; :func:`verify_module` turns them into a
:class:`VerifyException` that names the op.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException, VerifyException


def verify_module(module: ModuleOp) -> None:
    try:
        module.verify()
    except DiagnosticException:
        raise
    except Exception as err:  # an xDSL op verifier that raises something else
        raise VerifyException(f"{_failing_op(module, err)}: {err or type(err).__name__}") from err


def _failing_op(module: ModuleOp, err: Exception) -> str:
    """The name of the first op whose own verifier raises ``err``'s type."""
    for op in module.walk():
        try:
            op.verify_()
        except type(err):
            return op.name
        except Exception:  # noqa: S112 - another op's failure: keep looking for this one
            continue
    return "a nested op"

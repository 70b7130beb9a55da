"""verify-addresses: an address cross-check of the waits and signals, independent of the footprint analysis."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from syncopate.dialects import tile
from syncopate.ir.assumed import assumed_entries, set_assumed_entries
from syncopate.ir.crosscheck.addresses import Report, check


def _fail(message: str) -> PassFailedException:
    return PassFailedException(f"verify-addresses: {message}")


@dataclass(frozen=True)
class VerifyAddressesPass(ModulePass):
    """Cross-check waits and signals against element offsets derived from the tile IR alone.

    A second verifier beside verify-sync that shares no code with the
    footprint model (ir/analysis) or the passes that place waits and
    signals: ``ir/crosscheck/addresses.py`` derives, for each load, store or
    atomic whose pointer is computed from a planned tensor parameter, the
    element offsets it touches as symbolic intervals, turns them into rows
    of the plan's dim through the plan's stride, and checks them against
    the ``chunk.wait_span`` / ``chunk.wait_span_loop`` ops that dominate a
    read of a consumed tensor and the ``chunk.signal_span`` ops that follow
    a write of a produced one. The module docstring of
    ``ir/crosscheck/addresses.py`` lists the model and its assumptions.

    Assumes: a module before lower-chunk-to-tile (waits and signals are
    chunk span ops), in structured control flow (``scf.for`` / ``scf.if``
    / ``scf.while``, one exit); the strided-tensor layout of the planned tensor, with masks
    bounding each inner coordinate by at most its extent. What a proof
    assumes of a launch (integer parameters >= 0, a divisor >= 1, an
    unmasked offset that stays in its row, a tensor descriptor made in the
    kernel with the tensor's own shape and strides, every 32-bit value an
    address is built from inside int32, so that the device computes the
    true values the proof is about) it records on the kernel as
    ``chunk.assume``, one entry per access with
    the constexpr ``if`` arms it lies in; runtime/assumptions.py checks it
    at every launch. Rewrites nothing else.

    Guarantees: fails, naming the access's ``file.py:LINE``, when it proves
    an access *uncovered* (a row it touches lies outside every wait or
    signal that reaches it, for every value of the symbols, at a launch
    where it touches rows). With ``strict=true`` it fails too on an access
    it could not bound (*unbounded*: loaded blocks, unknown ops, a
    descriptor or helper use of a planned pointer, an inner offset that may
    leave the row) or bounded but could not prove covered (*unproved*, or
    a 32-bit value its address is built from has no bound at a launch).
    Otherwise it succeeds: it never claims coverage it did not prove, but
    without ``strict`` an unbounded or unproved access passes. The default
    ``overlap`` pipeline runs it with ``strict`` after verify-sync (whenever
    both waits and signals are placed): a fused kernel's every planned
    access is then proved by this model too.
    """

    name: ClassVar[str] = "verify-addresses"

    strict: bool = field(default=False, metadata={
        "help": "also fail on accesses whose rows could not be bounded or proved covered"})

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        verify(op, self.strict)


def verify(module: ModuleOp, strict: bool = False) -> Report:
    """The report of :func:`check`; raises on an uncovered access (and with
    ``strict`` on any access not proved). Records on each kernel what its
    proofs assumed of a launch (``chunk.assume``), for the runtime to check."""
    report = check(module)
    bad = [a for a in report.accesses if a.status == "uncovered" or strict and a.status != "proved"]
    if bad:
        first = bad[0]
        raise _fail(f"{first.where()} is {first.status}: {first.detail}"
                    + (f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""))
    _record(report)
    return report


def _record(report: Report) -> None:
    by_kernel: dict[tile.FuncOp, list[dict]] = {}
    for access in report.accesses:
        entry = access.assumed()
        kernel = next((op for op in _ancestors(access.op) if isinstance(op, tile.FuncOp)), None)
        if entry is not None and kernel is not None:
            by_kernel.setdefault(kernel, []).append(entry)
    for kernel, entries in by_kernel.items():
        # entries of another verifier (verify-sync's signs) stay; this
        # pass's own are replaced
        others = [e for e in assumed_entries(kernel) if not _is_access_entry(e)]
        set_assumed_entries(kernel, others + entries)


def _is_access_entry(entry: dict) -> bool:
    """An entry this pass records: it names an access (``file.py:L: 'op'``)."""
    return not entry["where"].startswith("verify-")


def _ancestors(op: Operation):
    parent = op.parent_op()
    while parent is not None:
        yield parent
        parent = parent.parent_op()

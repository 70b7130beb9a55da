"""verify-sync: prove that every planned access is synchronised, from the accesses themselves."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, NamedTuple

import sympy
from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import DictionaryAttr, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from syncopate.dialects import tile
from syncopate.dialects.chunk import PushReduceOp, SignalSpanOp, WaitSpanLoopOp, WaitSpanOp
from syncopate.ir.analysis import host_exprs, index_spans, loop_nesting
from syncopate.ir.analysis.chunk_access import BoundAccess, ChunkDependencies, analyze
from syncopate.ir.analysis.manager import ALL
from syncopate.ir.analysis.symbolic import Symbolic, provably_equal, provably_le, text
from syncopate.ir.assumed import assumed_entries, set_assumed_entries
from syncopate.ir.contract import ABI_ATTR, CONSUMED, AbiKey
from syncopate.ir.locations import describe

SIGN_ENTRY = "verify-sync: the tl.constexpr parameters its proofs read"
ALL_ROWS = 2**31 - 1  # a range [0, ALL_ROWS) or wider holds every chunk (chunk tables are int32)


@dataclass(frozen=True)
class Proof:
    """An access and the wait(s) or signal that synchronise it."""

    access: Operation
    by: tuple[Operation, ...]


class Range(NamedTuple):
    """``[lo, hi)`` along the plan's dim, as expressions of one tile (and loop iteration)."""

    lo: sympy.Expr
    hi: sympy.Expr

    def __str__(self) -> str:
        return f"[{text(self.lo)}, {text(self.hi)})"


class SyncRange(NamedTuple):
    """A wait or signal span op and the range it covers."""

    op: Operation
    range: Range


class _SymbolicArith:
    """``index_spans.RowArith`` over the expressions of :class:`Symbolic`."""

    def __init__(self, values: Symbolic):
        self.values = values

    def value(self, ssa: SSAValue) -> sympy.Expr:
        return self.values.of(ssa)

    def const(self, n: int) -> sympy.Expr:
        return sympy.Integer(n)

    def add(self, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
        return sympy.expand(a + b)

    def sub(self, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
        return sympy.expand(a - b)

    def min(self, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
        return sympy.Min(a, b)

    def max(self, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
        return sympy.Max(a, b)


def _fail(message: str) -> PassFailedException:
    return PassFailedException(f"verify-sync: {message}")


def dominates(first: Operation, then: Operation) -> bool:
    """``first`` runs before ``then`` on every path (structured control flow:
    ``first`` sits in a block around ``then``, before the op that holds it).
    A wait inside one arm of an ``scf.if`` or inside a loop body does not
    dominate an op after that ``scf.if`` or loop."""
    block = first.parent_block()
    holder = block.find_ancestor_op_in_block(then) if block is not None else None
    return holder is not None and holder is not first and first.is_before_in_block(holder)


def follows(then: Operation, first: Operation) -> bool:
    """``then`` runs after ``first`` on every path from ``first`` to the end
    of the function (structured control flow with one exit: ``then`` sits in
    a block around ``first``, after the op that holds it). A signal inside
    one arm of an ``scf.if`` after the store does not follow it on the path
    through the other arm."""
    block = then.parent_block()
    holder = block.find_ancestor_op_in_block(first) if block is not None else None
    return holder is not None and holder is not then and holder.is_before_in_block(then)


@dataclass
class _Verifier:
    deps: ChunkDependencies
    values: Symbolic = field(default_factory=Symbolic)

    def __post_init__(self) -> None:
        self.tiles = host_exprs.tile_loop(self.deps.kernel)
        self.flat = host_exprs.flat_tile_loop(self.deps.kernel) if self.tiles is None else None
        spans = [o for o in self.deps.kernel.walk() if isinstance(o, (WaitSpanOp, WaitSpanLoopOp, SignalSpanOp))]
        self.waits = [self._sync_range(o) for o in spans if not isinstance(o, SignalSpanOp)]
        self.signals = [self._sync_range(o) for o in spans if isinstance(o, SignalSpanOp)]
        # loop waits whose claim does not hold: they cover nothing, and the
        # error of an access they reach says why
        self.unsound = {w.op: why for w in self.waits if isinstance(w.op, WaitSpanLoopOp)
                        and (why := self._loop_wait_problem(w.op)) is not None}

    # ranges -------------------------------------------------------------

    def _sync_range(self, op: WaitSpanOp | WaitSpanLoopOp | SignalSpanOp) -> SyncRange:
        lo = self.values.of(op.lo)
        return SyncRange(op, Range(lo, sympy.expand(lo + self.values.of(op.extent))))

    def _pieces(self, b: BoundAccess) -> list[Range]:
        """The rows ``b`` touches in one iteration of its loops: one range;
        for a wrapped index ``(lo + arange(E)) % M`` the rows from ``lo % M``
        and those continued from 0 (``[0, lo % M + E - M)``, empty unless the
        tile wraps); for clamped or redirected rows the ranges of the
        footprint's model (``index_spans.intervals``)."""
        span = b.span
        lo = index_spans.lo_of(span, _SymbolicArith(self.values))
        lo += sympy.Add(*(self.values.iteration(w.loop) * self.values.of(w.shift) for w in span.walks))
        lo = sympy.expand(lo)
        extent = self.values.of(span.extent)
        if span.wrap is not None:
            start = self.values.mod(lo, self.values.of(span.wrap))
            return [Range(start, sympy.expand(start + extent)),
                    Range(sympy.Integer(0), sympy.expand(start + extent - self.values.of(span.wrap)))]
        pieces = index_spans.intervals(span, lo, _SymbolicArith(self.values)) if span.reshaped else [(lo, extent)]
        return [Range(start, sympy.expand(start + size)) for start, size in pieces]

    def _masked(self, b: BoundAccess, piece: Range) -> Range | None:
        """The rows of ``piece`` that ``b``'s mask keeps (``Span.masked_below``
        / ``masked_from``), None when it bounds neither end: lanes outside
        them read nothing, so a wait need not cover them."""
        below, above = b.span.masked_below, b.span.masked_from
        if below is None and above is None:
            return None
        lo = sympy.Max(piece.lo, self.values.of(below)) if below is not None else piece.lo
        hi = sympy.Min(piece.hi, self.values.of(above)) if above is not None else piece.hi
        return Range(lo, hi)

    def _size(self, b: BoundAccess) -> sympy.Expr | None:
        """The plan tensor's extent along its dim, when it is a number or a kernel parameter."""
        size = b.tensor.shape_values[b.dim]
        if isinstance(size, int):
            return sympy.Integer(size)
        kernel = self.deps.kernel
        if size in kernel.arg_names:
            arg = kernel.body.block.args[kernel.arg_names.index(size)]
            return self.values.param(size, isinstance(arg.type, tile.ConstexprType))
        return None

    def _whole(self, r: Range, size: sympy.Expr | None) -> bool:
        """``r`` holds every row of the tensor."""
        if not provably_le(r.lo, sympy.Integer(0)):
            return False
        return provably_le(sympy.Integer(ALL_ROWS), r.hi) or (size is not None and provably_le(size, r.hi))

    @staticmethod
    def _cover(piece: Range, ranges: list[SyncRange]) -> list[Operation] | None:
        """Waits whose ranges together hold ``piece`` (chained end to start), or None."""
        reached, used = piece.lo, []
        for _ in range(len(ranges)):
            if provably_le(piece.hi, reached) and used:
                return used
            step = next((w for w in ranges if provably_le(w.range.lo, reached) and provably_le(piece.hi, w.range.hi)),
                        None) or next((w for w in ranges if provably_le(w.range.lo, reached)
                                       and not provably_le(w.range.hi, reached) and w.op not in used), None)
            if step is None:
                return None
            used.append(step.op)
            reached = step.range.hi
        return used if used and provably_le(piece.hi, reached) else None

    # loop waits ---------------------------------------------------------

    def _loop_wait_problem(self, op: WaitSpanLoopOp) -> str | None:
        """Why a ``chunk.wait_span_loop`` may not skip the chunks of the
        previous iteration (None: it may). That is sound only when it runs in
        every iteration of its loop and its ``lo`` is ``first + iteration * step``."""
        loop = op.parent_op()
        if not isinstance(loop, scf.ForOp):
            return "it is not directly in the body of a for loop, so the chunks it skips were never waited for"
        lo, first, step = (self.values.of(v) for v in (op.lo, op.first, op.step))
        if not provably_equal(lo, first + self.values.iteration(loop) * step):
            return (f"its lo {text(lo)} is not first + iteration * step ({text(first)} + iteration * {text(step)}), "
                    f"so the chunks it skips as the previous iteration's may not have been waited for")
        return None

    # reads --------------------------------------------------------------

    def check_read(self, b: BoundAccess) -> Proof:
        op = b.access.op
        reaching = [w for w in self.waits if self._same_tensor(w.op, b) and dominates(w.op, op)]
        waits = [w for w in reaching if w.op not in self.unsound]
        size = self._size(b)
        whole = [w.op for w in waits if self._whole(w.range, size)]
        if whole:
            return Proof(op, (whole[0],))
        used: list[Operation] = []
        for piece in self._pieces(b):
            cover = self._cover(piece, waits)
            masked = self._masked(b, piece)
            if cover is None and masked is not None:
                cover = self._cover(masked, waits)
            if cover is None:
                seen = ", ".join(str(w.range) for w in waits) or "none"
                seen += "".join(f"; a chunk.wait_span_loop of {w.range} does not count: {self.unsound[w.op]}"
                                for w in reaching if w.op in self.unsound)
                raise _fail(f"{describe(op)} reads {piece} along dim {b.dim} of '{b.access.param}' "
                            f"(plan @{b.plan.sym_name.data}), but no chunk.wait_span before it covers them on every path "
                            f"(waits that dominate it: {seen})")
            used += [w for w in cover if w not in used]
        return Proof(op, tuple(used))

    # writes -------------------------------------------------------------

    def check_write(self, b: BoundAccess) -> Proof:
        op = b.access.op
        (piece,) = self._pieces(b)  # the analysis refuses wrapped and redirected stores
        after = [s for s in self.signals if self._same_tensor(s.op, b) and follows(s.op, op) and self._same_tile(op, s.op)]
        counting = [s for s in after if _equal(s.range, piece)]
        what = f"{describe(op)} writes {piece} along dim {b.dim} of '{b.access.param}' (plan @{b.plan.sym_name.data})"
        if not counting:
            seen = ", ".join(str(s.range) for s in after) or "none"
            raise _fail(f"{what}, but no chunk.signal_span of exactly that range follows it on every path to the end "
                        f"of the tile (signals after it: {seen})")
        if len(counting) > 1:
            raise _fail(f"{what}, and {len(counting)} chunk.signal_span of that range follow it: the runtime would "
                        f"count the tile {len(counting)} times")
        return Proof(op, (counting[0].op,))

    def check_signals(self, writes: list[BoundAccess]) -> None:
        """Each signal runs once per tile and counts a store before it."""
        for signal in self.signals:
            op = signal.op
            mine = [b for b in writes if self._same_tensor(op, b)]
            before = [b for b in mine if follows(op, b.access.op)]
            # the signal has no source line of its own: name the store it follows
            where = (f"{describe(before[-1].access.op)}: the chunk.signal_span after it" if before
                     else f"{describe(op)}") + f" (of '{op.tensor.data}', plan {op.plan})"
            loops = [loop for loop in loop_nesting.enclosing_loops(op) if loop is not self.tiles]
            if loops == [self.flat.loop] if self.flat is not None else False:
                if self._last_step(op) is not None:
                    loops = []  # in the flat loop's `if ki == k_tiles - 1:`: once per tile
                else:
                    raise _fail(f"{where} is in the flat (tile, k-step) loop ({describe(self.flat.loop)}) outside "
                                "its `if ki == k_tiles - 1:` branch, so it counts the tile once per k-step")
            if loops:
                raise _fail(f"{where} is inside a loop ({describe(loops[-1])}), so it counts the tile once per "
                            f"iteration")
            if not any(_equal(self._pieces(b)[0], signal.range) for b in before):
                stores = ", ".join(f"{describe(b.access.op)} {self._pieces(b)[0]}" for b in mine) or "none"
                raise _fail(f"{where} signals {signal.range}, but no store of that range precedes it on every "
                            f"path: it counts a tile that wrote nothing there (stores: {stores})")

    def _same_tile(self, store: Operation, signal: Operation) -> bool:
        """A signal after a persistent kernel's tile loop runs once per
        program, not once per tile the loop stored; in a flat (tile, k-step)
        loop, the signal of a store must be in the same ``if ki == k_tiles -
        1:`` branch (once per tile, for the tile that stored)."""
        if self.flat is not None and self.flat.loop.is_ancestor(store):
            branch = self._last_step(store)
            return branch is not None and branch is self._last_step(signal)
        return self.tiles is None or not self.tiles.is_ancestor(store) or self.tiles.is_ancestor(signal)

    def _last_step(self, op: Operation) -> Operation | None:
        """The flat loop's ``if ki == k_tiles - 1:`` branch that holds ``op``, if any."""
        assert self.flat is not None
        body = self.flat.loop.body.block
        holder = body.find_ancestor_op_in_block(op)
        return holder if holder is not None and self.flat.is_last_step(holder) else None

    @staticmethod
    def _same_tensor(sync: Operation, b: BoundAccess) -> bool:
        return (sync.plan.string_value() == b.plan.sym_name.data  # type: ignore[attr-defined]
                and sync.tensor.data == b.tensor.tensor.data)  # type: ignore[attr-defined]


def _equal(a: Range, b: Range) -> bool:
    return provably_equal(a.lo, b.lo) and provably_equal(a.hi, b.hi)


def check_pushes(kernel: tile.FuncOp, writes: list[BoundAccess]) -> list[Proof]:
    """Each ``chunk.push_reduce`` waits for and announces exactly one tile,
    once per program: its one use is the value of a store of its plan
    tensor through the same pointers and mask (what it pushes and sums are
    the elements the store writes), it sits at the top level of the kernel
    (every program runs it once; a program that skipped it would leave its
    peers waiting), and it is the only one (its flags are per tile). Every
    store of a pushed plan's tensor stores a push's result (a store of the
    plain partial would leave that rank's elements unsummed)."""
    pushes = [o for o in kernel.walk() if isinstance(o, PushReduceOp)]
    proofs = []
    for push in pushes:
        what = f"{describe(push)} (plan {push.plan}, '{push.tensor.data}')"
        uses = [u.operation for u in push.result.uses]
        store = uses[0] if len(uses) == 1 else None
        if not isinstance(store, tile.StoreOp) or store.value is not push.result:
            raise _fail(f"{what}: its result must be the value of one tl.store, but it has {len(uses)} use(s) "
                        f"({', '.join(sorted(u.name for u in uses)) or 'none'})")
        if store.ptr is not push.ptrs or store.mask is not push.mask:
            raise _fail(f"{what} pushes through other pointers or another mask than {describe(store)} stores "
                        "through: peers would sum other elements than this rank stores")
        written = [b for b in writes if b.access.op is store]
        if not written or written[0].plan.sym_name.data != push.plan.string_value() \
                or written[0].tensor.tensor.data != push.tensor.data:
            raise _fail(f"{what}: {describe(store)} does not store a tensor of that plan")
        if push.parent_block() is not kernel.body.block or store.parent_block() is not kernel.body.block:
            raise _fail(f"{what} is not at the top level of @{kernel.sym_name.data}: each program must push and "
                        "wait exactly once, or its peers' tiles wait for it forever")
        proofs.append(Proof(store, (push,)))
    if len(pushes) > 1:
        raise _fail(f"{describe(pushes[1])}: a second chunk.push_reduce in @{kernel.sym_name.data}; the push "
                    "flags are one per tile, so a second push's wait would pass on the first's flag")
    pushed = {(p.plan.string_value(), p.tensor.data) for p in pushes}
    for b in writes:
        if (b.plan.sym_name.data, b.tensor.tensor.data) in pushed and not any(p.access is b.access.op for p in proofs):
            raise _fail(f"{describe(b.access.op)} writes '{b.access.param}' of plan @{b.plan.sym_name.data}, which "
                        "the kernel all-reduces by push, without pushing: this rank would keep its own partial")
    return proofs


def _refuse_lowered(module: ModuleOp) -> None:
    for op in module.ops:
        abi = op.attributes.get(ABI_ATTR)
        if isinstance(op, tile.FuncOp) and isinstance(abi, DictionaryAttr) and AbiKey.FLAGS in abi.data:
            raise _fail(f"@{op.sym_name.data} is already lowered (its waits and signals are helper calls); "
                        f"run verify-sync before lower-chunk-to-tile")


def verify(module: ModuleOp, reads: bool = True, writes: bool = True) -> list[Proof]:
    """Check the module's synchronisation (see :class:`VerifySyncPass`); the
    proof of each access checked, or a ``PassFailedException``."""
    _refuse_lowered(module)
    # computed afresh, not query()'d: the cached result is what the passes
    # under check declared still true, and a verifier must not take their word
    deps = analyze(module)
    verifier = _Verifier(deps)
    proofs = []
    consumed = [b for b in deps.accesses if b.plan.collective in CONSUMED]
    produced = [b for b in deps.accesses if b.plan.collective not in CONSUMED]
    if reads:
        proofs += [verifier.check_read(b) for b in consumed]
    if writes:
        proofs += [verifier.check_write(b) for b in produced]
        verifier.check_signals(produced)
        proofs += check_pushes(deps.kernel, produced)
    _record_signs(deps.kernel, verifier.values.assumed_nonnegative())
    return proofs


def _record_signs(kernel: tile.FuncOp, names: list[str]) -> None:
    """Record the signs the proofs took (``tl.constexpr`` parameters >= 0)
    as a ``chunk.assume`` entry, which the runtime checks at each launch:
    the assumption is stated, not silent, and a launch that breaks it is
    refused before anything runs."""
    entries = [e for e in assumed_entries(kernel) if e["where"] != SIGN_ENTRY]
    if names:
        entries.append({"where": SIGN_ENTRY, "guards": [], "least": {n: 0 for n in names}})
    set_assumed_entries(kernel, entries)


@dataclass(frozen=True)
class VerifySyncPass(ModulePass):
    """Check that every read of a gathered tensor waits and every write of a reduced one signals.

    A verifier, independent of the passes that place waits and signals: it
    recomputes each access's footprint (``chunk_access.analyze``, the model
    of an access) and checks the ``chunk.wait_span`` / ``chunk.wait_span_loop``
    / ``chunk.signal_span`` ops it finds against it, without reading the
    ``chunk.access`` attributes or asking where a pass meant to put them. It
    computes the analysis afresh instead of querying the pipeline's cache
    (whose facts the passes under check declared still true), and rewrites
    nothing but the kernel's ``chunk.assume`` entry of the signs it took.

    Assumes: a module before lower-chunk-to-tile (waits and signals are
    chunk span ops; a lowered kernel is refused) with one kernel and its
    chunk plans, in structured control flow (``scf.for`` / ``scf.while`` /
    ``scf.if``, one exit). The footprint analysis bounds every access of a
    planned tensor, and refuses any use of its pointer that it does not
    model (a jit helper call, a pointer it cannot follow) and any write of a
    consumed or read of a produced tensor, so no access escapes the check.
    ``chunk.wait`` / ``chunk.signal`` by chunk id are not counted.
    ``tl.constexpr`` parameters are taken to be ``>= 0``: the pass records
    each one its proofs read in ``chunk.assume`` (least value 0), and the
    runtime refuses a launch that passes a negative one.

    Guarantees: the pass succeeds only if, for one tile and one iteration of
    every loop around the access, with values compared symbolically
    (``ir/analysis/symbolic.py``: a proof, never a sample):

    * every load or descriptor load of a consumed tensor (all-gather,
      all-to-all, ring-exchange) is dominated by waits of that plan tensor
      whose ranges together hold the access's rows (for a wrapped index,
      both of its pieces; the rows its mask keeps, for a mask that bounds
      the index by parameters or constants), or by one wait of the whole tensor (from row 0,
      at least the plan's extent or 2**31-1 rows). Dominance is structural:
      a wait in one arm of an ``scf.if`` covers nothing after the ``if`` or
      in the other arm, and a wait after the load, or in an earlier
      iteration, covers nothing. A ``chunk.wait_span_loop`` must sit
      directly in its ``for`` body with ``lo = first + iteration * step``
      (what lets it skip the previous iteration's chunks);
    * every store or atomic of a produced tensor (reduce-scatter) is followed
      on every path to the end of the tile by exactly one
      ``chunk.signal_span`` of exactly its rows (more rows would count the
      tile for chunks it did not write), and every such signal runs once per
      tile (in no loop but a persistent kernel's tile loop) after a store of
      its rows;
    * every ``chunk.push_reduce`` (push-all-reduce) is the value of one
      store of its plan tensor through the same pointers and mask, at the
      top level of the kernel (so every program pushes, raises and waits
      once, for exactly the elements it stores), there is at most one, and
      every store of a pushed tensor stores a push's result.

    Otherwise it fails with one line naming the access's source file and line
    (``file.py:LINE: 'tile.load'``), its rows and the waits or signals that
    reach it. ``waits=false`` / ``signals=false`` skip one side (the
    ``overlap`` pipeline passes its own options of the same names, so a
    negative control built with ``overlap{waits=false}`` still compiles).
    """

    name: ClassVar[str] = "verify-sync"
    preserved_analyses: ClassVar[object] = ALL  # a verifier: it rewrites nothing

    waits: bool = field(default=True, metadata={
        "help": "check that every read of a consumed tensor is covered by waits; false: skip the reads"})
    signals: bool = field(default=True, metadata={
        "help": "check that every write of a produced tensor signals its rows once per tile; false: skip the writes"})

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        verify(op, reads=self.waits, writes=self.signals)

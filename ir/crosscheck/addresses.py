"""An address verifier independent of the footprint analysis: the element
offsets each access of a planned tensor touches, from the tile IR alone, and
whether the waits / signals around it cover their rows.

Model (every assumption is listed; nothing else is assumed):

* symbols: ``pid<a>`` (``tl.program_id``, in ``[0, npid<a> - 1]``; a
  tile-reorder helper's program id in ``[0, ntile<a> - 1]``), ``npid<a>``
  (``tl.num_programs``, >= 1), one per kernel scalar parameter (>= 0: a
  size, stride, count or flag; every parameter a proof reads is recorded
  with that least value and the runtime refuses a launch below it; the plan
  dim's stride parameter and block sizes >= 1), one iteration count ``j``
  per loop, the induction variable being ``lb + step * j`` with ``j`` in
  ``[0, cdiv(|ub - lb|, |step|) - 1]`` when the step's sign is provable
  (either sign), one per ``tl.arange`` element and axis (range ``[start,
  end - 1]``, clamped by mask terms ``x < b``, ``x <= b``, ``x > b``, ``x >= b``
  that are ``+-lane + rest`` in exactly one lane), one per lane of a loaded
  1-D block (its value lies in ``[min<k>, max<k>]``, the symbols a
  ``tl.min`` / ``tl.max`` of that very value returns), and one opaque symbol per
  scalar the model does not interpret: a scalar result of a
  ``tile.call_jit``, a ``tile.load`` through a scalar pointer, an integer
  result of ``scf.if`` / ``scf.while`` (an untyped ``scf.if`` result too when
  each arm yields a value of rank 0 or the loop-carried value the loop
  carries on from that result, starting from rank 0: ``pid_m`` set under
  ``if ki == 0:`` of a flat persistent loop) and an integer argument of an
  ``scf.while`` region (any value, the same at a wait and at an access that
  both use that SSA value: one SSA value holds one value per evaluation of
  its op, and a wait that dominates an access, or a signal that follows it,
  in the region of that op sees the same evaluation). Values are true
  integers; the device's equal them where every 32-bit value an address is
  built from fits int32 (ir/crosscheck/widths.py). A proved access records
  those values' bounds at a launch (``int32``; a part with none is bounded
  by the tensor's span less the other parts) and the runtime refuses a
  launch where one leaves int32; a value with no bound at all leaves the
  access unproved. The 32-bit values a mask compares are checked too,
  over every lane, where they have a bound in launch sizes; one with none
  (a loop-carried row compared with a size) is assumed not to wrap.
* values: ``arith.constant``, ``tile.add/sub/mul/neg``, ``tile.addptr``,
  ``tile.expand_dims`` (the lane symbol moves to its new axis, so
  ``x[:, None]`` and ``x[None, :]`` are independent), ``tile.broadcast``,
  ``tile.splat``, ``tile.retype``, integer ``tile.cast``, ``tile.zeros`` and
  ``tl.zeros_like`` (0), ``tl.minimum`` / ``tl.maximum`` / ``min`` / ``max``,
  ``tl.multiple_of`` / ``tl.max_contiguous`` (their first argument);
  ``tile.floordiv`` / ``tile.mod`` / ``tile.cdiv`` of lane-free values are
  uninterpreted functions (equal only to themselves) with the sign Triton's
  truncation gives them (intops.py), bounded where a coordinate needs it
  (``a % m`` in ``[0, m - 1]`` and ``a // m`` in ``[0, hi(a) // m]`` for
  ``a >= 0``, the divisor recorded >= 1); ``(s + lane) % m`` is a wrapped
  row (below). ``tl.where(c, x, y)`` and an ``scf.if`` result are
  ``Sel(x, y[, d])``: an access whose offset holds one is checked once per
  choice, the choice made everywhere the same SSA value appears (offset,
  mask, waits, signals), under the condition ``d <= 0`` or ``d > 0`` where
  ``c`` is one comparison (a piece taken only at lanes its condition keeps
  touches no row where that lane's range is empty). A jit helper's block
  result is its body evaluated with the call's operands (fresh per call);
  its scalar result is opaque, ``>= 0`` where that evaluation proves it. A
  loop-carried scalar with no fixed increment is one opaque value per
  iteration, ``>= init`` when that is inductive. A block the kernel reduces
  with ``tl.min`` / ``tl.max`` that the model cannot otherwise express is a
  lane between those two values. A mask term naming no block index holds
  wherever the access touches memory: it is a fact the coverage proof may
  use, and a term ``coord >= x`` with ``x >= 0`` proves an inner coordinate
  (one read from memory) non-negative. Loop-carried pointers
  and offsets advanced by a loop-invariant increment are ``init +
  iteration * inc`` (an opaque symbol defined inside the loop is not
  invariant: it may differ in every iteration). ``m & other`` with ``m`` a
  mask and ``other`` not understood keeps at most the lanes ``m`` keeps (it
  is non-zero only where ``m`` is), an inexact mask. Anything else (a
  loaded block, ``tl.where``, a helper returning a block, ...) makes an
  access *unbounded*.
* rows: the plan tensor's stride ``S`` along its dim (``chunk.tensor ...
  strides``, a kernel parameter or the integer 1) splits an element offset
  into ``R * S + Q``. ``R`` is the row coordinate. ``Q`` is grouped by the
  other runtime scalar parameters it is multiplied by (each taken to be the
  stride of another dim), plus a unit-stride rest; every group's coordinate
  must be provably >= 0 and below the bound of a mask term ``x < b`` with
  ``coordinate <= x``: under the strided-tensor layout (an element is
  ``sum(coord_j * stride_j)`` with ``0 <= coord_j < extent_j``, and the
  kernel's masks bound each inner coordinate by at most its extent), it then
  stays in row ``R``. A coordinate no mask bounds (``X + N_COLS + cols``, a
  head dim read whole) is bounded by the sizes of a launch instead, and the
  proof records :class:`InRow`: at each launch the runtime checks that each
  such coordinate fits a dim of its own whose stride is its key, or that the
  whole offset stays below the row stride of a row-major tensor
  (runtime/assumptions.py); it refuses a launch where neither holds.
* wrapped rows: ``(s + lane) % m`` with ``s >= 0``, the lane's values
  ``>= 0`` and ``m`` a parameter (recorded >= 1) touches, with ``r = s %
  m``, rows ``[r + lo, min(r + hi, m - 1)]`` and ``[0, r + hi - m]``: both
  pieces must be covered.

An access is *proved* when its rows lie inside waits that dominate it (reads
of consumed tensors) or signals that follow it on every path (writes of
produced tensors), for every value of the symbols; *uncovered* when a row it
touches (its smallest or largest, with every mask term turned into a clamp)
lies outside every such wait or signal for every value of the symbols, and
the access touches rows at a sample launch (program 0, sizes 64, blocks 16);
*unproved* when bounded but neither; *unbounded* when its rows could not be
bounded. A ``chunk.wait_span_loop`` covers its range only where its ``lo``
is provably ``first + iteration * step`` directly in its ``for`` body (the
condition under which skipping the previous iteration's chunks is sound); a
wait from row <= 0 to at least the plan's extent (or 2**31-1) covers every
row of the tensor, and a read it dominates is covered whatever its index
(a gather through loaded indices).

Tensor descriptors: a block at ``offsets`` of a descriptor the kernel makes
from a planned pointer (``tl.make_tensor_descriptor``) touches rows
``[max(o, 0), min(o + block, shape))`` along the plan's dim (the copy engine
reads nothing out of bounds); the proof records the descriptor's shape and
strides, which must be the tensor's at each launch. A ``TensorDescriptor``
argument that is the planned tensor touches ``[o, o + block)``, its block a
launch symbol (runtime/descriptors.py refuses a descriptor that does not
cover its whole tensor in its own layout). A jit helper that takes a
planned pointer and accesses it inside is not followed: unbounded.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp, StringAttr
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from syncopate.dialects import tile
from syncopate.dialects.chunk import PlanOp, SignalSpanOp, WaitSpanLoopOp, WaitSpanOp
from syncopate.ir.contract import CONSUMED, KERNEL_ATTR, SPAN_PREFIX
from syncopate.ir.crosscheck.intops import FUNCTIONS, Sel, TCdiv, TDiv, TMod, Wrap, nonnegative
from syncopate.ir.crosscheck.prove import equal, le, lift, lt
from syncopate.ir.crosscheck.widths import Widths, address_terms, compared_values
from syncopate.ir.locations import describe

INT32 = 2**31  # a 32-bit value lies in [-INT32, INT32)
ALL_ROWS = 2**31 - 1
TILE_PID_HELPER = "syn_tile_pid"  # passes/tile_reorder.py's helpers: syn_tile_pid0, syn_tile_pid1


@dataclass(frozen=True)
class Unknown:
    """A value the model cannot express, and why."""

    why: str


@dataclass(frozen=True)
class Ptr:
    """A pointer: kernel parameter ``base`` plus ``offset`` elements."""

    base: str
    offset: sympy.Expr


@dataclass(frozen=True)
class Mask:
    """A conjunction of comparisons ``(lhs, predicate, rhs)``; ``exact``
    False when some conjunct was not understood (then ignored: the mask
    keeps at most the lanes the known conjuncts keep)."""

    atoms: tuple[tuple[sympy.Expr, str, sympy.Expr], ...]
    exact: bool = True


Value = sympy.Expr | Ptr | Mask | Unknown


@dataclass
class Access:
    """One load/store/atomic of a planned tensor and what was found."""

    op: Operation
    plan: str
    tensor: str
    writes: bool
    status: str = "unbounded"  # proved | unproved | uncovered | unbounded
    detail: str = ""
    rows: tuple[sympy.Expr, sympy.Expr] | None = None  # [lo, hi) with the lanes eliminated
    # what a proof assumed of the launch, checked by the runtime at each
    # launch (runtime/abi.py): integer parameters -> their least value, and
    # the coordinates of an offset within a row that no mask bounds
    least: dict[str, int] = field(default_factory=dict)
    in_row: InRow | None = None
    # constexpr flags of the `if`s around the access -> the arm it is in:
    # a launch that does not take it need not meet its assumptions
    guards: tuple[tuple[str, bool], ...] = ()
    # a tensor-descriptor access: the descriptor's shape and strides, which
    # must describe the planned tensor dim by dim at each launch
    descriptor: dict | None = None
    # the 32-bit values its address is built from (ir/crosscheck/widths.py),
    # each as [where, lower bound, upper bound] at a launch: the runtime
    # refuses a launch where one leaves int32 (the device would wrap)
    int32: list[list[str]] = field(default_factory=list)

    def where(self) -> str:
        return describe(self.op)

    def assumed(self) -> dict | None:
        """What the launch must meet for this access's proof, as plain data
        (expressions printed by sympy, read back by intops.parse); None when
        the proof assumed nothing or the access is not proved."""
        if self.status != "proved" or not self.least and self.in_row is None and self.descriptor is None \
                and not self.int32:
            return None
        entry: dict = {"where": self.where(), "guards": [[n, taken] for n, taken in self.guards],
                       "least": dict(self.least)}
        if self.in_row is not None:
            r = self.in_row
            entry["in_row"] = {"param": r.param, "dim": r.dim, "stride": r.stride,
                               "groups": [[g.key, str(g.lo), str(g.hi), g.masked] for g in r.groups]}
        if self.descriptor is not None:
            entry["descriptor"] = dict(self.descriptor)
        if self.int32:
            entry["int32"] = [list(t) for t in self.int32]
        return entry


@dataclass(frozen=True)
class Group:
    """One coordinate of an offset within a row: ``coord * key`` with
    ``key`` a stride parameter (or 1), ``coord`` in ``[lo, hi]`` at a launch
    (over parameters, ``npid<a>`` and ``ntile<a>``); ``masked`` when a mask
    term bounds it (the strided-tensor layout then keeps it in its dim)."""

    key: str | int
    lo: sympy.Expr
    hi: sympy.Expr
    masked: bool


@dataclass(frozen=True)
class InRow:
    """An access's offset within a row has coordinates no mask bounds: it
    stays in the row at a launch where each unmasked coordinate fits a dim
    of its own whose stride is its key, or the whole offset fits below the
    row stride of a tensor whose inner dims fit there too (runtime/abi.py
    checks one of the two at each launch)."""

    param: str
    dim: int
    stride: str | int
    groups: tuple[Group, ...]


@dataclass
class Report:
    accesses: list[Access] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(a.status == status for a in self.accesses)


# --- evaluation of SSA values ------------------------------------------------


def _int(name: str, **assumptions) -> sympy.Symbol:
    return sympy.Symbol(name, integer=True, **assumptions)


class Evaluator:
    """The symbolic value of each SSA value of one kernel."""

    def __init__(self, func: tile.FuncOp, positive: set[str]):
        self.func = func
        self.cache: dict[SSAValue, Value] = {}
        # lane symbol -> (lo, hi) inclusive; loop iv symbol -> (loop, lo, hi)
        self.lanes: dict[sympy.Symbol, tuple[sympy.Expr, sympy.Expr]] = {}
        self.ivs: dict[sympy.Symbol, tuple[scf.ForOp, sympy.Expr, sympy.Expr]] = {}
        self.aranges = 0
        # lanes of loaded blocks (index k) -> their min and max symbols, and
        # the op that computes their values
        self.valued: dict[int, tuple[sympy.Symbol, sympy.Symbol]] = {}
        self.sources: dict[int, Operation] = {}
        # opaque symbol -> the op that defines its value (a loop around that
        # op sees a new value in every iteration)
        self.opaque: dict[sympy.Symbol, Operation] = {}
        # program ids (of the launch grid or, through tile-reorder's
        # helpers, of the tile grid) -> their largest value
        self.pids: dict[sympy.Symbol, sympy.Expr] = {}
        self.constexpr = set()
        self.inlined = 0  # depth of jit helpers being evaluated
        positive = positive | _block_sizes(func)
        self.positive = positive
        for name, arg in zip(func.arg_names, func.body.block.args):
            if isinstance(arg.type, tile.PointerType):
                self.cache[arg] = Ptr(name, sympy.Integer(0))
            else:
                if isinstance(arg.type, tile.ConstexprType):
                    self.constexpr.add(name)
                # sizes, strides, counts and flags: >= 0, an assumption the
                # runtime checks for every parameter a proof mentions
                self.cache[arg] = _int(name, positive=True) if name in positive else _int(name, nonnegative=True)

    def origins(self, expr: sympy.Expr) -> str:
        """Where the values in ``expr`` the model does not interpret come
        from (`` (from file:line: 'op', ...)``), or nothing."""
        found = [describe(self.opaque[s]) for s in sorted(expr.free_symbols, key=str) if s in self.opaque]
        found += [describe(self.sources[_lane_index(s)]) for s in sorted(_lanes_of(expr), key=str)
                  if _lane_index(s) in self.sources]
        return f" (from {', '.join(dict.fromkeys(found))})" if found else ""

    def symbol(self, name: str) -> sympy.Symbol:
        """The symbol of parameter ``name`` (with its assumptions), or a
        plain integer symbol for a name that is not one."""
        for n, arg in zip(self.func.arg_names, self.func.body.block.args):
            if n == name and isinstance(self.cache.get(arg), sympy.Symbol):
                return self.cache[arg]
        return _int(name)

    def of(self, ssa: SSAValue) -> Value:
        if ssa not in self.cache:
            self.cache[ssa] = self._compute(ssa)
        return self.cache[ssa]

    def expr(self, ssa: SSAValue) -> sympy.Expr | Unknown:
        v = self.of(ssa)
        if isinstance(v, (Ptr, Mask)):
            return Unknown(f"{_where(ssa)} is a pointer or mask where an integer was expected")
        return v

    def _compute(self, ssa: SSAValue) -> Value:
        if isinstance(ssa, BlockArgument):
            return self._block_arg(ssa)
        op = ssa.owner
        assert isinstance(op, Operation)
        try:
            value = self._op(op, ssa)
        except (TypeError, ValueError, ZeroDivisionError) as err:  # sympy refusing a shape we did not foresee
            value = Unknown(f"{describe(op)}: {err}")
        if (isinstance(value, Unknown) or isinstance(value, sympy.Expr) and len(_lanes_of(value)) > 1) \
                and (_rank(ssa) or 0) >= 1 and _reduced(ssa):
            # the gathered rows `batch * N + ids[pos]` a wait bounds by their
            # own tl.min / tl.max: any lane lies between the two
            return self._valued(op)
        return value

    # block arguments: loop variables and loop-carried values

    def _block_arg(self, arg: BlockArgument) -> Value:
        loop = arg.block.parent_op()
        if isinstance(loop, scf.WhileOp) and _is_scalar(arg):
            return self._opaque(loop, "while")
        if not isinstance(loop, scf.ForOp):
            return Unknown(f"a block argument of {describe(loop) if loop else 'an unknown block'}")
        if arg.index == 0:
            return self._iv(loop, arg)
        return self._carried(loop, arg)

    def _iv(self, loop: scf.ForOp, arg: BlockArgument) -> Value:
        """``lb + step * j`` with the iteration count ``j`` in ``[0,
        cdiv(|ub - lb|, |step|) - 1]`` where the step's sign is provable
        (either sign: ``range(K, 0, -BLOCK_K)``); a symbol without a range
        otherwise."""
        lb, ub, step = (self.expr(v) for v in (loop.lb, loop.ub, loop.step))
        j = _int(f"iv{len(self.ivs)}", nonnegative=True)
        known = not any(isinstance(v, Unknown) for v in (lb, ub, step))
        if known and le(sympy.Integer(1), step):
            self.ivs[j] = (loop, sympy.Integer(0), TCdiv(ub - lb, step) - 1)
        elif known and le(step, sympy.Integer(-1)):
            self.ivs[j] = (loop, sympy.Integer(0), TCdiv(lb - ub, -step) - 1)
        else:
            # still a symbol (a wait in the same body may use it), but with no range
            sym = _int(f"iv{len(self.ivs)}")
            self.ivs[sym] = (loop, None, None)
            return sym
        return sympy.expand(lb + step * j)

    def _carried(self, loop: scf.ForOp, arg: BlockArgument) -> Value:
        """``init + iteration * inc`` when the body yields ``arg + inc`` with
        ``inc`` the same in every iteration."""
        init = self.of(loop.iter_args[arg.index - 1])
        if isinstance(init, Unknown):
            return Unknown(f"{describe(loop)}: the start of a loop-carried value: {init.why}")
        if isinstance(init, Mask):
            return Unknown(f"{describe(loop)}: a loop-carried mask")
        c = _int(f"carry{id(arg)}")
        self.cache[arg] = Ptr(init.base, c) if isinstance(init, Ptr) else c
        yielded = self.of(loop.body.block.last_op.operands[arg.index - 1])
        iv = self.of(loop.body.block.args[0])
        del self.cache[arg]
        # values computed from the placeholder are recomputed from the result
        for key in [k for k, v in self.cache.items() if _mentions(v, c)]:
            del self.cache[key]
        inc = _increment(init, yielded, c)
        if inc is None or iv in inc.free_symbols or any(loop.is_ancestor(self.opaque[s])
                                                         for s in inc.free_symbols if s in self.opaque):
            if isinstance(init, sympy.Expr) and not _lanes_of(init) and _is_scalar(arg):
                return self._carried_scalar(loop, arg, init)
            return Unknown(f"{describe(loop)}: a loop-carried value that is not advanced by a fixed increment")
        lb, step = self.expr(loop.lb), self.expr(loop.step)
        if isinstance(lb, Unknown) or isinstance(step, Unknown):
            return Unknown(f"{describe(loop)}: a loop with unbounded bounds carries a value")
        # iteration * inc, with iteration = (iv - lb) / step
        moved = sympy.expand((iv - lb) * inc / step)
        return Ptr(init.base, init.offset + moved) if isinstance(init, Ptr) else init + moved

    def _carried_scalar(self, loop: scf.ForOp, arg: BlockArgument, init: sympy.Expr) -> Value:
        """A loop-carried scalar with no fixed increment: one value per
        iteration (opaque, defined inside the loop), known to be ``>= init``
        when that is inductive: assuming it of the carried value, the value
        the body yields is again ``>= init`` (``ki = tl.where(ki == k - 1, 0,
        ki + 1)`` from ``ki = -1``)."""
        yield_op = loop.body.block.last_op
        rest = self._opaque(yield_op, "carried", nonnegative=True)
        def inductive() -> bool:
            yielded = self.expr(yield_op.operands[arg.index - 1])
            return isinstance(yielded, sympy.Expr) and le(init, yielded)

        if self._try_value(arg, init + rest, rest, inductive):
            return init + rest
        return self._opaque(yield_op, "carried")

    def _try_value(self, arg: BlockArgument, value: Value, mark: sympy.Symbol, holds) -> bool:
        """Whether ``holds()`` is true with ``arg`` bound to ``value`` (which
        mentions ``mark``); the values computed from it are forgotten when
        it is not."""
        self.cache[arg] = value
        try:
            ok = holds()
        finally:
            del self.cache[arg]
        if not ok:
            for key in [k for k, v in self.cache.items() if _mentions(v, mark)]:
                del self.cache[key]
        return ok

    # operations

    def _op(self, op: Operation, ssa: SSAValue) -> Value:
        if isinstance(op, arith.ConstantOp):
            value = op.value
            if isinstance(value, IntegerAttr) and isinstance(value.type, IntegerType):
                return sympy.Integer(value.value.data)
            return Unknown(f"{describe(op)}: a non-integer constant")
        if isinstance(op, tile.ProgramIdOp):
            axis = op.axis.value.data
            sym = _int(f"pid{axis}", nonnegative=True)
            self.pids[sym] = _int(f"npid{axis}", positive=True) - 1
            return sym
        if isinstance(op, tile.DescriptorBlockSizeOp):
            return self.block_size(op.desc, op.dim.value.data)
        if isinstance(op, tile.NumProgramsOp):
            return _int(f"npid{op.axis.value.data}", positive=True)
        if isinstance(op, (tile.RetypeOp, tile.BroadcastOp)):
            return self.of(op.operands[0])
        if isinstance(op, tile.SplatOp):
            return self.of(op.value)
        if isinstance(op, tile.CastOp):
            return self._cast(op)
        if isinstance(op, tile.ZerosOp):
            return sympy.Integer(0)
        if isinstance(op, tile.ArangeOp):
            return self._arange(op)
        if isinstance(op, tile.ExpandDimsOp):
            return self._expand_dims(op)
        if isinstance(op, tile.AddPtrOp):
            return self._addptr(op)
        if isinstance(op, tile.CmpOp):
            return self._cmp(op)
        if isinstance(op, tile.AndOp):
            return self._and(op)
        if isinstance(op, tile.NegOp):
            v = self.expr(op.operands[0])
            return v if isinstance(v, Unknown) else -v
        if isinstance(op, (tile.AddOp, tile.SubOp, tile.MulOp)):
            return self._arith(op)
        if isinstance(op, (tile.FloorDivOp, tile.ModOp, tile.CdivOp)):
            return self._uninterpreted(op)
        if isinstance(op, tile.CallOp):
            return self._call(op)
        if isinstance(op, tile.CallJitOp):
            if isinstance(ssa.type, tile.BlockType) or _rank(ssa) not in (0, None):
                return self._inline(op, ssa)
            callee = op.callee.string_value()
            if callee.startswith(TILE_PID_HELPER) and callee[len(TILE_PID_HELPER):].isdigit():
                # tile-reorder's helpers return a program id of their axis of
                # the tile grid (the launch ABI): in [0, ntile<axis> - 1]
                sym = self._opaque(op, callee, nonnegative=True)
                self.pids[sym] = _int(f"ntile{callee[len(TILE_PID_HELPER):]}", positive=True) - 1
                return sym
            if _rank(ssa) != 0:
                return Unknown(f"{describe(op)}: a jit helper's result of unknown rank")
            inner = self._inline(op, ssa)
            return self._opaque(op, callee, nonnegative=isinstance(inner, sympy.Expr) and nonnegative(inner))
        if isinstance(op, tile.LoadOp) and isinstance(op.ptr.type, tile.PointerType):
            return self._opaque(op, "load")
        if isinstance(op, tile.LoadOp) and _rank(op.ptr) == 1:
            return self._loaded(op)
        if isinstance(op, tile.ReduceOp) and op.kind.data in ("min", "max"):
            return self._reduce(op)
        if isinstance(op, (tile.LoadOp, tile.DescriptorLoadOp)):
            return Unknown(f"{describe(op)}: a loaded block")
        if isinstance(op, tile.WhereOp):
            return self._where(op)
        if isinstance(op, scf.IfOp):
            return self._if(op, ssa)
        if isinstance(op, scf.WhileOp) and _is_scalar(ssa):
            return self._opaque(op, "while")
        return Unknown(f"{describe(op)}: an op the address model does not know")

    def _where(self, op: tile.WhereOp) -> Value:
        """``tl.where(c, x, y)`` of integers: ``Sel(x, y, d)`` when ``c`` is one
        comparison ``d <= 0`` (normalised), ``Sel(x, y)`` otherwise."""
        x, y = self.expr(op.true_value), self.expr(op.false_value)
        for v in (x, y):
            if isinstance(v, Unknown):
                return v
        cond = self.of(op.cond)
        if isinstance(cond, Mask) and cond.exact and len(cond.atoms) == 1:
            return Sel(x, y, _normalised(cond.atoms[0]))
        return Sel(x, y)

    def _if(self, op: scf.IfOp, ssa: SSAValue) -> Value:
        """An ``scf.if`` result: the value one of its arms yields
        (``Sel``); a scalar neither arm's value is known for is opaque."""
        index = op.results.index(ssa)
        arms = []
        for region in (op.true_region, op.false_region):
            if not region.blocks:
                return Unknown(f"{describe(op)}: an 'scf.if' result without an else arm")
            arms.append(self.of(region.block.last_op.operands[index]))
        if all(isinstance(a, sympy.Expr) for a in arms):
            return Sel(*arms)
        if _is_scalar(ssa) or _scalar_if_result(op, index):
            return self._opaque(op, "if", nonnegative=self._if_nonnegative(op, index))
        why = next((a.why for a in arms if isinstance(a, Unknown)), "a pointer or mask")
        return Unknown(f"{describe(op)}: an 'scf.if' block result: {why}")

    def _if_nonnegative(self, op: scf.IfOp, index: int) -> bool:
        """Every value result ``index`` of ``op`` takes is >= 0: each arm
        yields a value provably >= 0, or the loop-carried value the loop
        carries on from this very result, whose start is >= 0 (by induction
        over the iterations: ``pid_n`` set under ``if ki == 0:`` and kept in
        the other iterations, from ``pid_n = 0``)."""
        for region in (op.true_region, op.false_region):
            value = region.block.last_op.operands[index]
            loop = value.owner.parent_op() if isinstance(value, BlockArgument) else None
            if (isinstance(loop, scf.ForOp) and value.owner is loop.body.block and value.index > 0
                    and loop.body.block.last_op.operands[value.index - 1] is op.results[index]):
                value = loop.iter_args[value.index - 1]
            v = self.of(value)
            if not isinstance(v, sympy.Expr) or not nonnegative(v):
                return False
        return True

    def block_size(self, desc: SSAValue, dim: int) -> Value:
        """A descriptor's block size along ``dim``: its ``block_shape`` when
        it is made in the kernel, a launch symbol (>= 1) for one made on
        the host."""
        make = desc.owner
        if isinstance(make, tile.MakeTensorDescriptorOp):
            return self.of(make.block_shape[dim])
        name = dict(zip(self.func.body.block.args, self.func.arg_names)).get(desc)
        if name is None:
            return Unknown("the block size of a descriptor that is neither a parameter nor made in the kernel")
        return _int(f"block_{name}_{dim}", positive=True)

    def _inline(self, op: tile.CallJitOp, ssa: SSAValue) -> Value:
        """A jit helper's block result: its return value evaluated in the
        helper's body with the parameters bound to the call's operands (a
        fresh evaluation per call, so values inside are the call's own)."""
        callee = _callee(op)
        ret = callee.body.block.last_op if callee is not None else None
        if not isinstance(ret, tile.ReturnOp) or self.inlined > 16:
            return Unknown(f"{describe(op)}: a jit helper's block result (helper body not found)")
        bound = {arg: self.of(v) for arg, v in zip(callee.body.block.args, op.operands)}
        saved, self.cache = self.cache, bound
        self.inlined += 1
        try:
            return self.of(ret.operands[op.results.index(ssa)])
        finally:
            self.cache = saved
            self.inlined -= 1

    def _cast(self, op: Operation) -> Value:
        ty = op.results[0].type
        element = ty.element_type if isinstance(ty, tile.BlockType) else ty
        if isinstance(op, tile.CastOp):
            if op.bitcast is not None and op.bitcast.value.data:
                return Unknown(f"{describe(op)}: a bitcast")
            element = op.dtype
        if isinstance(element, IntegerType):
            return self.of(op.operands[0])
        return Unknown(f"{describe(op)}: a cast to a non-integer type")

    def _arange(self, op: tile.ArangeOp) -> Value:
        start, end = self.expr(op.start), self.expr(op.end)
        if isinstance(start, Unknown) or isinstance(end, Unknown):
            return Unknown(f"{describe(op)}: a tl.arange with unbounded ends")
        k = self.aranges
        self.aranges += 1
        sym = _lane(k, 0)
        self._lane_range(k, (start, end - 1))
        return sym

    def _loaded(self, op: tile.LoadOp) -> Value:
        """A loaded 1-D block: a lane whose value is unknown but lies between
        the block's own ``tl.min`` and ``tl.max`` (symbols a ``tile.reduce``
        of this very value returns), so a wait computed from them, as
        chunk-dependency-analysis places for gathered indices, can be checked."""
        return self._valued(op)

    def _valued(self, op: Operation) -> sympy.Symbol:
        """A new 1-D lane whose values (computed by ``op``) lie in
        ``[min<k>, max<k>]``."""
        k = self.aranges
        self.aranges += 1
        self.sources[k] = op
        self.valued[k] = (_int(f"min{k}"), _int(f"max{k}"))
        self._lane_range(k, self.valued[k])
        return _lane(k, 0)

    def _reduce(self, op: tile.ReduceOp) -> Value:
        v = self.of(op.src)
        lanes = _lanes_of(v) if isinstance(v, sympy.Expr) else set()
        if (op.axis is None or op.axis.value.data in (0, -1)) and len(lanes) == 1 and v in lanes \
                and _lane_index(v) in self.valued:
            # min <= every lane (masked lanes too: they hold `other`, which
            # the reduction sees as well) <= max
            return self.valued[_lane_index(v)][0 if op.kind.data == "min" else 1]
        return Unknown(f"{describe(op)}: a '{op.kind.data}' reduction of a block the model does not know")

    def _lane_range(self, k: int, rng: tuple[sympy.Expr, sympy.Expr]) -> None:
        self.lanes[_lane(k, -1)] = rng  # the arange's range, looked up by index k

    def lane_range(self, sym: sympy.Symbol) -> tuple[sympy.Expr, sympy.Expr]:
        return self.lanes[_lane(_lane_index(sym), -1)]

    def _expand_dims(self, op: tile.ExpandDimsOp) -> Value:
        src = self.of(op.src)
        if isinstance(src, Unknown):
            return src
        rank = _rank(op.src)
        if rank is None:
            return Unknown(f"{describe(op)}: expand_dims of a value of unknown rank")
        axis = op.axis.value.data
        axis = axis + rank + 1 if axis < 0 else axis
        return _map(src, lambda e: e.xreplace({s: _moved(s, rank, axis) for s in _lanes_of(e)}))

    def _addptr(self, op: tile.AddPtrOp) -> Value:
        ptr, off = self.of(op.operands[0]), self.expr(op.operands[1])
        if isinstance(ptr, Unknown):
            return ptr
        if isinstance(off, Unknown):
            return off
        if not isinstance(ptr, Ptr):
            return Unknown(f"{describe(op)}: addptr on a value that is not a pointer")
        return Ptr(ptr.base, sympy.expand(ptr.offset + off))

    def _cmp(self, op: tile.CmpOp) -> Value:
        lhs, rhs = self.expr(op.lhs), self.expr(op.rhs)
        pred = op.predicate.data
        if isinstance(lhs, Unknown) or isinstance(rhs, Unknown) or pred not in ("lt", "le", "gt", "ge"):
            return Mask((), exact=False)
        return Mask(((lhs, pred, rhs),))

    def _and(self, op: Operation) -> Value:
        a, b = self.of(op.operands[0]), self.of(op.operands[1])
        if isinstance(a, Mask) and isinstance(b, Mask):
            return Mask(a.atoms + b.atoms, a.exact and b.exact)
        known = [v for v in (a, b) if isinstance(v, Mask)]
        if not known:
            return Unknown(f"{describe(op)}: '&' of values that are not masks")
        # `m & other` is non-zero only where `m` is, whatever `other` is
        return Mask(known[0].atoms, exact=False)

    def _arith(self, op: Operation) -> Value:
        a, b = self.of(op.operands[0]), self.of(op.operands[1])
        for v in (a, b):
            if isinstance(v, Unknown):
                return v
            if isinstance(v, Mask):
                return Unknown(f"{describe(op)}: arithmetic on a mask")
        if isinstance(op, tile.AddOp) and isinstance(a, Ptr) != isinstance(b, Ptr):
            ptr, off = (a, b) if isinstance(a, Ptr) else (b, a)
            return Ptr(ptr.base, sympy.expand(ptr.offset + off))
        if isinstance(a, Ptr) or isinstance(b, Ptr):
            return Unknown(f"{describe(op)}: pointer arithmetic other than pointer + integer")
        if isinstance(op, tile.AddOp):
            return sympy.expand(a + b)
        if isinstance(op, tile.SubOp):
            return sympy.expand(a - b)
        return sympy.expand(a * b)

    def _uninterpreted(self, op: Operation) -> Value:
        a, b = self.expr(op.operands[0]), self.expr(op.operands[1])
        if isinstance(a, Unknown):
            return a
        if isinstance(b, Unknown):
            return b
        if _lanes_of(b) or _lanes_of(a) and not isinstance(op, tile.ModOp):
            return Unknown(f"{describe(op)}: '{op.name}' of a block index")
        return Wrap(a, b) if _lanes_of(a) else FUNCTIONS[op.name](a, b)

    def _call(self, op: tile.CallOp) -> Value:
        callee = op.callee.data if isinstance(op.callee, StringAttr) else str(op.callee)
        if callee in ("tl.zeros_like",):
            return sympy.Integer(0)
        if callee in ("tl.multiple_of", "tl.max_contiguous") and op.operands:
            return self.of(op.operands[0])
        if callee in ("tl.minimum", "tl.maximum", "min", "max") and len(op.operands) == 2:
            a, b = self.expr(op.operands[0]), self.expr(op.operands[1])
            if isinstance(a, Unknown):
                return a
            if isinstance(b, Unknown):
                return b
            return (sympy.Min if callee in ("tl.minimum", "min") else sympy.Max)(a, b)
        return Unknown(f"{describe(op)}: a call of '{callee}'")

    def _opaque(self, op: Operation, what: str, nonnegative: bool = False) -> sympy.Symbol:
        """A fresh symbol for a scalar the model does not interpret: one
        value per evaluation of ``op``, so equal only to itself."""
        sym = _int(f"v{len(self.opaque) + 1}_{what}", **({"nonnegative": True} if nonnegative else {}))
        self.opaque[sym] = op
        return sym


def _block_sizes(func: tile.FuncOp) -> set[str]:
    """Constexpr parameters used as the end of a ``tl.arange`` or as a loop
    step: block sizes, >= 1 (Triton needs a positive power of two there; a
    zero step never ends). Other constexprs (flags) get no sign."""
    args = dict(zip(func.body.block.args, func.arg_names))
    used = [op.end for op in func.walk() if isinstance(op, tile.ArangeOp)]
    used += [op.step for op in func.walk() if isinstance(op, scf.ForOp)]
    found = set()
    for v in used:
        while isinstance(v.owner, tile.RetypeOp):
            v = v.owner.operands[0]
        if v in args and isinstance(v.type, tile.ConstexprType):
            found.add(args[v])
    return found


def _where(ssa: SSAValue) -> str:
    return describe(ssa.owner) if isinstance(ssa.owner, Operation) else "a block argument"


def _reduced(ssa: SSAValue) -> bool:
    """``ssa`` (through integer casts) is reduced with ``tl.min`` or
    ``tl.max`` over its whole block (every axis of a 1-D block, or no axis
    named)."""
    for use in ssa.uses:
        user = use.operation
        if isinstance(user, tile.CastOp) and _reduced(user.results[0]):
            return True
        if isinstance(user, tile.ReduceOp) and user.kind.data in ("min", "max") \
                and (user.axis is None or user.axis.value.data in (0, -1) and _rank(ssa) == 1):
            return True
    return False


def _normalised(atom: tuple[sympy.Expr, str, sympy.Expr]) -> sympy.Expr:
    """``d`` with the mask term ``lhs pred rhs`` equivalent to ``d <= 0``."""
    lhs, pred, rhs = atom
    return sympy.expand({"lt": lhs - rhs + 1, "le": lhs - rhs, "gt": rhs - lhs + 1, "ge": rhs - lhs}[pred])


def _scalar_if_result(op: scf.IfOp, index: int) -> bool:
    """Result ``index`` of ``op`` is one integer though untyped: each arm
    yields a value of rank 0 or the loop-carried value whose start has rank
    0 and which the loop carries on from this very result (``pid_m`` set
    under ``if ki == 0:`` of a flat persistent loop, kept in the other
    iterations): by induction over the iterations it is never a block."""
    for region in (op.true_region, op.false_region):
        value = region.block.last_op.operands[index]
        if _rank(value) == 0:
            continue
        loop = value.owner.parent_op() if isinstance(value, BlockArgument) else None
        if not isinstance(loop, scf.ForOp) or value.index == 0 or value.owner is not loop.body.block:
            return False
        if (_rank(loop.iter_args[value.index - 1]) != 0
                or loop.body.block.last_op.operands[value.index - 1] is not op.results[index]):
            return False
    return True


def _is_scalar(ssa: SSAValue) -> bool:
    """``ssa`` is typed as one integer (not a block), so it holds one value
    per evaluation."""
    return isinstance(ssa.type, (IntegerType, tile.ScalarType))


def _exprs(v: Value) -> list[sympy.Expr]:
    if isinstance(v, Ptr):
        return [v.offset]
    if isinstance(v, Mask):
        return [e for a, _, b in v.atoms for e in (a, b)]
    return [] if isinstance(v, Unknown) else [v]


def _mentions(v: Value, sym: sympy.Symbol) -> bool:
    return any(sym in e.free_symbols for e in _exprs(v))


def _increment(init: Value, yielded: Value, c: sympy.Symbol) -> sympy.Expr | None:
    if isinstance(init, Ptr):
        if not isinstance(yielded, Ptr) or yielded.base != init.base:
            return None
        inc = sympy.expand(yielded.offset - c)
    elif isinstance(yielded, sympy.Expr):
        inc = sympy.expand(yielded - c)
    else:
        return None
    return None if c in inc.free_symbols else inc


def _map(v: Value, f) -> Value:
    if isinstance(v, Ptr):
        return Ptr(v.base, f(v.offset))
    if isinstance(v, Mask):
        return Mask(tuple((f(a), p, f(b)) for a, p, b in v.atoms), v.exact)
    return f(v)


# lane symbols: "l<k>@<q>" is the element of arange k along axis q counted
# from the right, so broadcasting (right-aligned) needs no renaming and
# expand_dims renames only the lanes whose axis moves

def _lane(k: int, q: int) -> sympy.Symbol:
    return _int(f"l{k}@{q}")


def _lane_index(sym: sympy.Symbol) -> int:
    return int(sym.name[1:].split("@")[0])


def _is_lane(sym: sympy.Basic) -> bool:
    return isinstance(sym, sympy.Symbol) and sym.name.startswith("l") and "@" in sym.name


def _lanes_of(e: sympy.Expr) -> set[sympy.Symbol]:
    return {s for s in e.free_symbols if _is_lane(s)}


def _moved(sym: sympy.Symbol, rank: int, axis: int) -> sympy.Symbol:
    k, q = _lane_index(sym), int(sym.name.split("@")[1])
    pos = rank - 1 - q
    pos = pos if pos < axis else pos + 1
    return _lane(k, rank - pos)


def _rank(ssa: SSAValue, env: dict | None = None, depth: int = 0) -> int | None:
    """The rank of ``ssa`` from its type or, for an untyped value, from the
    ranks its op broadcasts (a jit helper's result from its body, with its
    parameters ranked as the call's operands); None when unknown."""
    if depth > 64:
        return None
    if isinstance(ssa.owner, tile.LoadOp) and not isinstance(ssa.type, tile.BlockType):
        return _rank(ssa.owner.ptr, env, depth + 1)  # a load has its pointer's shape
    if isinstance(ssa.type, tile.BlockType):
        return ssa.type.rank
    if isinstance(ssa.type, (IntegerType, tile.ScalarType, tile.ConstexprType, tile.PointerType)):
        return 0
    if isinstance(ssa, BlockArgument):
        return (env or {}).get(ssa)
    op = ssa.owner
    if isinstance(op, _ELEMENTWISE) or isinstance(op, tile.CallOp) and op.callee.data in _BROADCASTING_CALLS:
        # broadcast: the largest rank of its operands
        ranks = [_rank(v, env, depth + 1) for v in op.operands]
        return None if None in ranks else max(ranks)
    if isinstance(op, tile.CallOp) and op.operands and op.callee.data in ("tl.multiple_of", "tl.max_contiguous"):
        return _rank(op.operands[0], env, depth + 1)
    if isinstance(op, (tile.RetypeOp, tile.CastOp)):
        return _rank(op.operands[0], env, depth + 1)
    if isinstance(op, tile.ExpandDimsOp):
        src = _rank(op.src, env, depth + 1)
        return None if src is None else src + 1
    if isinstance(op, scf.IfOp) and env is None and _scalar_if_result(op, op.results.index(ssa)):
        return 0
    if isinstance(op, tile.CallJitOp):
        callee = _callee(op)
        ret = callee.body.block.last_op if callee is not None else None
        if not isinstance(ret, tile.ReturnOp):
            return None
        inner = dict(zip(callee.body.block.args, (_rank(v, env, depth + 1) for v in op.operands)))
        return _rank(ret.operands[op.results.index(ssa)], inner, depth + 1)
    return None


_BROADCASTING_CALLS = ("min", "max", "tl.minimum", "tl.maximum")


def _callee(op: tile.CallJitOp) -> tile.FuncOp | None:
    module = op.get_toplevel_object()
    name = op.callee.string_value()
    return next((f for f in module.walk() if isinstance(f, tile.FuncOp) and f.sym_name.data == name), None) \
        if isinstance(module, ModuleOp) else None


_ELEMENTWISE = (tile.WhereOp, tile.AddOp, tile.SubOp, tile.MulOp, tile.NegOp, tile.CmpOp, tile.AndOp,
                tile.FloorDivOp, tile.ModOp, tile.CdivOp, tile.AddPtrOp)


# --- bounds ------------------------------------------------------------------


def bound(expr: sympy.Expr, sym: sympy.Symbol, lo: sympy.Expr, hi: sympy.Expr, upper: bool) -> sympy.Expr | None:
    """An upper (or lower) bound of ``expr`` over ``sym`` in ``[lo, hi]``,
    free of ``sym``; None when the sign of its coefficient is not provable."""
    if sym not in expr.free_symbols:
        return expr
    if expr == sym:
        return hi if upper else lo
    if isinstance(expr, sympy.Add):
        parts = [bound(t, sym, lo, hi, upper) for t in expr.args]
        return None if any(p is None for p in parts) else sympy.Add(*parts)
    if isinstance(expr, sympy.Mul):
        inner = [f for f in expr.args if sym in f.free_symbols]
        if len(inner) != 1:
            return None
        coeff = sympy.Mul(*(f for f in expr.args if sym not in f.free_symbols))
        if coeff.is_nonnegative:
            part = bound(inner[0], sym, lo, hi, upper)
        elif coeff.is_nonpositive:
            part = bound(inner[0], sym, lo, hi, not upper)
        else:
            return None
        return None if part is None else coeff * part
    if isinstance(expr, (sympy.Min, sympy.Max)):
        parts = [bound(a, sym, lo, hi, upper) for a in expr.args]
        return None if any(p is None for p in parts) else type(expr)(*parts)
    return None


def clamp(ev: Evaluator, mask: Mask | None) -> tuple[dict[sympy.Symbol, tuple[sympy.Expr, sympy.Expr]], bool]:
    """The range of every lane symbol the mask mentions or that exists,
    narrowed by the mask's single-lane terms; and whether every term became
    a clamp (the lanes kept are then exactly the box)."""
    ranges: dict[sympy.Symbol, tuple[sympy.Expr, sympy.Expr]] = {}
    exact = mask is None or mask.exact
    for lhs, pred, rhs in mask.atoms if mask else ():
        d = _normalised((lhs, pred, rhs))
        lanes = _lanes_of(d)
        if len(lanes) != 1:
            exact = False
            continue
        (lane,) = lanes
        coeff = d.coeff(lane)
        rest = sympy.expand(d - coeff * lane)
        lo, hi = ranges.get(lane, ev.lane_range(lane))
        if coeff == 1 and lane not in rest.free_symbols:
            ranges[lane] = (lo, sympy.Min(hi, -rest))
        elif coeff == -1 and lane not in rest.free_symbols:
            ranges[lane] = (sympy.Max(lo, rest), hi)
        else:
            exact = False
    return ranges, exact


def eliminate(expr: sympy.Expr, ranges: dict, upper: bool) -> sympy.Expr | None:
    """Bound ``expr`` over every symbol of ``ranges`` (symbol -> (lo, hi))."""
    for sym, (lo, hi) in ranges.items():
        if sym in expr.free_symbols:
            if lo is None:
                return None
            expr = bound(expr, sym, lo, hi, upper)
            if expr is None:
                return None
    return expr


# --- rows of an access ---------------------------------------------------------


@dataclass(frozen=True)
class PlanTensor:
    plan: str
    tensor: str
    param: str
    dim: int
    stride: str | int
    size: str | int
    rank: int
    consumed: bool


def planned_tensors(module: ModuleOp) -> dict[str, PlanTensor]:
    """Kernel pointer parameter -> the plan tensor bound to it."""
    found = {}
    for plan in (op for op in module.ops if isinstance(op, PlanOp)):
        dims = {c.properties["tensor"].data: c.properties["dim"].value.data
                for c in plan.body.ops if c.name == "chunk.chunk"}
        for t in plan.tensors:
            name = t.tensor.data
            dim = dims.get(name, 0)
            found[t.param.data] = PlanTensor(plan.sym_name.data, name, t.param.data, dim, t.stride_values[dim],
                                             t.shape_values[dim], len(t.shape_values), plan.collective in CONSUMED)
    return found


def rows_of(ev: Evaluator, t: PlanTensor, offset: sympy.Expr, mask: Mask | None) -> tuple[sympy.Expr, InRow | None] | Unknown:
    """The row coordinate ``R`` of element offset ``offset`` along ``t``'s
    dim, after checking that the rest stays inside the row (module
    docstring); with what a launch must meet for that when a coordinate of
    the rest has no mask."""
    runtime = [s for s in offset.free_symbols if not _is_lane(s) and s.name in ev.func.arg_names
               and s.name not in ev.constexpr]
    if isinstance(t.stride, str):
        if t.stride not in ev.func.arg_names:
            return Unknown(f"the plan names '{t.stride}' as the stride of dim {t.dim}, not a kernel parameter")
        stride = _int(t.stride, positive=True)
        row = sympy.expand(offset.coeff(stride))
        rest = sympy.expand(offset - row * stride)
        if stride in row.free_symbols or stride in rest.free_symbols:
            return Unknown(f"the element offset {offset} is not linear in the stride {t.stride}")
    elif t.stride == 1:
        if t.rank == 1:
            return offset, None
        terms = sympy.Add.make_args(offset)
        row = sympy.Add(*(a for a in terms if not (a.free_symbols & set(runtime))))
        rest = sympy.expand(offset - row)
    else:
        return Unknown(f"the plan's stride {t.stride} along dim {t.dim} is not a parameter or 1")
    groups = inner_groups(ev, rest, [s for s in runtime if s.name != t.stride], mask)
    if isinstance(groups, Unknown):
        return groups
    if all(g.masked for g in groups):
        return row, None
    return row, InRow(t.param, t.dim, t.stride, tuple(groups))


def inner_groups(ev: Evaluator, rest: sympy.Expr, strides: list[sympy.Symbol],
                 mask: Mask | None) -> list[Group] | Unknown:
    """The coordinates of ``rest`` (the offset within a row): its terms per
    other stride parameter, and the unit rest. Each must be provably >= 0
    and bounded at a launch; one no larger than an ``x`` of a mask term ``x <
    b`` is masked (module docstring), another stays in the row only under
    the launch check of :class:`InRow`."""
    groups: dict[sympy.Expr, sympy.Expr] = {}
    terms = sympy.Add.make_args(sympy.expand(rest))
    # a stride multiplies a term of its own (`offs_k * stride_ak`); a term
    # with several parameters (`K * stride_ak`) belongs to the one of them
    def factors(term: sympy.Expr) -> list[sympy.Symbol]:
        # parameters multiplying the term (not those inside a `%` or `//` of it)
        return [s for s in strides if s in sympy.Mul.make_args(term)]

    alone = {m[0] for m in (factors(t) for t in terms) if len(m) == 1}
    for term in terms:
        if term == 0:
            continue
        mine = factors(term)
        if len(mine) > 1 and len([s for s in mine if s in alone]) == 1:
            mine = [s for s in mine if s in alone]
        if len(mine) > 1:
            return Unknown(f"the offset term {term} is multiplied by several parameters ({', '.join(map(str, mine))})")
        key = mine[0] if mine else sympy.Integer(1)
        coord = sympy.expand(term / key)
        if key in coord.free_symbols:
            return Unknown(f"the offset term {term} is not linear in {key}")
        groups[key] = groups.get(key, sympy.Integer(0)) + coord
    ranges, _ = clamp(ev, mask)
    every = {**{s: ev.lane_range(s) for c in groups.values() for s in _lanes_of(c)}, **ranges}
    bounds = [lhs for lhs, pred, _ in (mask.atoms if mask else ()) if pred == "lt"]
    found = []
    for key, coord in groups.items():
        low, high = extremes(ev, coord, every)
        if (low is None or not le(sympy.Integer(0), low)) and any(le(sympy.Integer(0), coord + _normalised(a))
                                                                   for a in (mask.atoms if mask else ())):
            low = sympy.Integer(0)  # a mask term `coord >= x` with x >= 0 keeps the access's lanes >= 0
        if low is None or not le(sympy.Integer(0), low):
            return Unknown(f"the coordinate {coord} (stride {key}) of the element offset{ev.origins(coord)} is not "
                           f"provably >= 0, so it may reach another row: mask the access with "
                           f"`coordinate >= 0` and `coordinate < <its dim's size>`")
        masked = any(le(coord, x) for x in bounds)
        if not masked and (high is None or not _launch_symbols(ev, high)):
            return Unknown(f"the coordinate {coord} (stride {key}) of the element offset is not bounded by a mask "
                           f"term 'x < bound' with {coord} <= x, nor by the sizes of a launch, so it may reach "
                           f"another row")
        # the least value a launch sees (program ids at 0); proved >= 0 above
        least = eliminate(low, {s: (sympy.Integer(0), hi) for s, hi in ev.pids.items()}, upper=False)
        least = least if least is not None and _launch_symbols(ev, least) else sympy.Integer(0)
        found.append(Group(str(key) if isinstance(key, sympy.Symbol) else int(key), least,
                           high if high is not None else least, masked))
    return found


def extremes(ev: Evaluator, expr: sympy.Expr, lanes: dict) -> tuple[sympy.Expr | None, sympy.Expr | None]:
    """A lower bound of ``expr`` over its lanes (``lanes``: symbol -> range)
    and loop variables, and an upper bound over those and the program ids
    (None where a coefficient's sign is not provable)."""
    loops = {s: (lo, hi) for s, (_, lo, hi) in ev.ivs.items()}
    pids = {s: (sympy.Integer(0), hi) for s, hi in ev.pids.items()}
    # `a % m` and `a // m` of a scalar a >= 0 (m >= 1 is recorded) lie in
    # [0, m - 1] and [0, hi(a) // m]
    quotients = {}
    for i, c in enumerate(sorted(expr.atoms(TMod, TDiv), key=sympy.default_sort_key)):
        a, m = c.args
        if type(c) not in (TMod, TDiv) or not nonnegative(a) or not _is_divisor(ev, m):
            continue
        top = m - 1 if type(c) is TMod else extremes(ev, a, lanes)[1]
        if top is not None and (type(c) is TMod or _launch_symbols(ev, top)):
            quotients[c] = (_int(f"q{i}", nonnegative=True), top if type(c) is TMod else TDiv(top, m))
    if quotients:
        lanes = {**lanes, **{sym: (sympy.Integer(0), top) for sym, top in quotients.values()}}
        expr = expr.xreplace({c: sym for c, (sym, _) in quotients.items()})
    out = []
    for upper in (False, True):
        e = expr
        # a least value may keep its program ids (symbols >= 0)
        for ranges in (lanes, loops, *([pids] if upper else [])):
            # lifted: `BLOCK_K * j + Min(BLOCK_K - 1, K - BLOCK_K * j - 1)`
            # keeps its `K - 1` once j is bounded
            e = None if e is None else eliminate(lift(e), ranges, upper)
        out.append(e)
    return out[0], out[1]


def _is_divisor(ev: Evaluator, m: sympy.Expr) -> bool:
    """``m`` is a kernel parameter (recorded >= 1 where a proof divides by
    it), ``cdiv(p, q)`` of a kernel parameter ``p`` (recorded >= 1: with
    ``q >= 1`` it is then >= 1, as a persistent GEMM's tile count per row
    ``tl.cdiv(N, BLOCK_N)``) or a provably positive value."""
    return (_recorded_divisor(ev, m) is not None or isinstance(m, sympy.Symbol) and m.name in ev.func.arg_names
            or le(sympy.Integer(1), m))


def _recorded_divisor(ev: Evaluator, m: sympy.Expr) -> str | None:
    """The parameter a proof dividing by ``m`` records >= 1: ``m`` itself,
    or ``p`` of ``cdiv(p, q)`` with ``q`` provably >= 1; None otherwise."""
    if isinstance(m, sympy.Symbol) and m.name in ev.func.arg_names:
        return m.name
    if isinstance(m, TCdiv):
        p, q = m.args
        if isinstance(p, sympy.Symbol) and p.name in ev.func.arg_names and le(sympy.Integer(1), q):
            return p.name
    return None


def _launch_symbols(ev: Evaluator, expr: sympy.Expr) -> bool:
    """``expr`` can be evaluated at a launch: it names only kernel
    parameters and the sizes of the launch and tile grids."""
    return all(s.name in ev.func.arg_names or s.name.startswith(("npid", "ntile")) for s in expr.free_symbols)


# --- structure: which waits and signals reach an access ---------------------


def _holder(block: Block | None, op: Operation) -> Operation | None:
    """The op of ``block`` that is or contains ``op``."""
    return block.find_ancestor_op_in_block(op) if block is not None else None


def dominates(first: Operation, then: Operation) -> bool:
    """``first`` runs before ``then`` on every path: it sits in a block
    around ``then``, before the op of that block that holds ``then``."""
    holder = _holder(first.parent_block(), then)
    return holder is not None and holder is not first and first.is_before_in_block(holder)


def follows(then: Operation, first: Operation) -> bool:
    """``then`` runs after ``first`` on every path to the end of the kernel
    (structured control flow, one exit): the mirror of :func:`dominates`."""
    holder = _holder(then.parent_block(), first)
    return holder is not None and holder is not then and holder.is_before_in_block(then)


def _loops(op: Operation) -> list[scf.ForOp]:
    found, parent = [], op.parent_op()
    while parent is not None:
        if isinstance(parent, scf.ForOp):
            found.append(parent)
        parent = parent.parent_op()
    return found


# --- the check -----------------------------------------------------------------


@dataclass(frozen=True)
class Sync:
    op: Operation
    lo: sympy.Expr
    hi: sympy.Expr


_ACCESS_OPS = (tile.LoadOp, tile.StoreOp, tile.AtomicRMWOp, tile.AtomicCASOp)
# ops whose result is no pointer into their operands' memory
_NO_POINTER_FROM = (tile.LoadOp, tile.DescriptorLoadOp, tile.DescriptorBlockSizeOp, tile.CmpOp)
_DESCRIPTOR_OPS = (tile.DescriptorLoadOp, tile.DescriptorStoreOp, tile.DescriptorAtomicOp)
# descriptor ops that write the block (an atomic reads it too)
_DESCRIPTOR_WRITES = (tile.DescriptorStoreOp, tile.DescriptorAtomicOp)


class Checker:
    def __init__(self, module: ModuleOp, func: tile.FuncOp, tensors: dict[str, PlanTensor]):
        self.func = func
        self.tensors = {p: t for p, t in tensors.items() if p in func.arg_names}
        positive = {t.stride for t in self.tensors.values() if isinstance(t.stride, str)}
        self.ev = Evaluator(func, positive)
        self.widths = Widths()
        self._compared: dict[SSAValue, tuple | None] = {}  # a compared value's bounds over every lane
        self.report = Report()

    def run(self) -> Report:
        for op in self.func.walk():
            if isinstance(op, _ACCESS_OPS):
                self._access(op)
            elif isinstance(op, _DESCRIPTOR_OPS):
                self._descriptor_access(op)
            elif isinstance(op, tile.CallJitOp):
                self._opaque_use(op)
        return self.report

    def _reaches(self, ssa: SSAValue) -> set[str]:
        """The planned pointer parameters ``ssa`` is computed from."""
        seen, todo, found = set(), [ssa], set()
        args = dict(zip(self.func.body.block.args, self.func.arg_names))
        while todo:
            v = todo.pop()
            if v in seen:
                continue
            seen.add(v)
            if v in args:
                found.add(args[v])
            elif isinstance(v, BlockArgument):
                loop = v.block.parent_op()
                if isinstance(loop, scf.ForOp) and v.index > 0:
                    todo += [loop.iter_args[v.index - 1], loop.body.block.last_op.operands[v.index - 1]]
            elif isinstance(v.owner, (scf.ForOp, scf.IfOp)):
                # a result is its own iter_arg's start and what the body (or
                # each arm) yields for it, not every operand of the op
                index = v.owner.results.index(v)
                if isinstance(v.owner, scf.ForOp):
                    todo += [v.owner.iter_args[index], v.owner.body.block.last_op.operands[index]]
                else:
                    todo += [r.block.last_op.operands[index] for r in v.owner.regions if r.blocks]
            elif isinstance(v.owner, Operation) and not isinstance(v.owner, _NO_POINTER_FROM):
                todo += list(v.owner.operands)
        return found & set(self.tensors)

    def _opaque_use(self, op: Operation) -> None:
        """A descriptor access or a helper call that takes a planned pointer:
        the model does not follow it, so its rows are unbounded."""
        operands = op.operands[:1] if isinstance(op, _DESCRIPTOR_OPS) else op.operands
        for param in sorted({p for v in operands for p in self._reaches(v)}):
            t = self.tensors[param]
            kind = "a tensor-descriptor access" if isinstance(op, _DESCRIPTOR_OPS) else "a jit helper call"
            self.report.accesses.append(Access(op, t.plan, t.tensor, not t.consumed, "unbounded",
                                               f"{kind} of '{param}' (not modelled)"))

    def _descriptor_access(self, op: tile.DescriptorLoadOp | tile.DescriptorStoreOp | tile.DescriptorAtomicOp) -> None:
        """A block at ``offsets`` of a descriptor made in this kernel from a
        planned pointer: along the plan's dim it touches ``[max(o, 0),
        min(o + block, shape))`` (the copy engine reads nothing out of
        bounds) of the descriptor's rows, which are the tensor's where the
        descriptor's strides and shape are the tensor's (recorded; checked
        at each launch)."""
        make = op.desc.owner
        params = self._reaches(op.desc)
        if op.desc in self.func.body.block.args and len(params) == 1:
            self._host_descriptor_access(op, self.tensors[next(iter(params))])
            return
        if not isinstance(make, tile.MakeTensorDescriptorOp) or len(params) != 1:
            self._opaque_use(op)
            return
        t = self.tensors[next(iter(params))]
        access = Access(op, t.plan, t.tensor, isinstance(op, _DESCRIPTOR_WRITES))
        self.report.accesses.append(access)
        base = self.ev.of(make.base)
        exprs = [[self.ev.expr(v) for v in vs] for vs in (op.offsets, make.shape, make.strides, make.block_shape)]
        unknown = next((e for vs in exprs for e in vs if isinstance(e, Unknown)), None)
        if not isinstance(base, Ptr) or base.base != t.param or base.offset != 0:
            access.detail = f"a descriptor of '{t.param}' plus an offset (not modelled)"
            return
        offsets, shape, strides, block = exprs
        if unknown is not None or len(offsets) != t.rank or len(shape) != t.rank:
            access.detail = unknown.why if unknown is not None else \
                f"a descriptor of rank {len(shape)} over a planned tensor of rank {t.rank}"
            return
        syncs, what, verb = self._reaching(access, t)
        o = offsets[t.dim]
        access.rows = (sympy.Max(o, 0), sympy.Min(o + block[t.dim], shape[t.dim]))
        if what is None:
            access.status, access.detail = "proved", "no synchronisation needed (a read of a produced tensor)"
        else:
            self._judge(access, t, syncs, True, what, verb)
        if access.status == "proved":
            access.least = self._least(sympy.Add(*offsets, *shape, *strides), None, syncs, o)
            access.descriptor = {"param": t.param, "shape": [str(e) for e in shape],
                                 "strides": [str(e) for e in strides]}
            access.guards = self._guards(op)

    def _host_descriptor_access(self, op: tile.DescriptorLoadOp | tile.DescriptorStoreOp | tile.DescriptorAtomicOp,
                                t: PlanTensor) -> None:
        """A block of a ``TensorDescriptor`` argument that is the planned
        tensor: its rows are the tensor's (runtime/descriptors.py refuses a
        launch whose descriptor does not cover the whole tensor in its own
        layout), ``[o, o + block)`` along the plan's dim."""
        access = Access(op, t.plan, t.tensor, isinstance(op, _DESCRIPTOR_WRITES))
        self.report.accesses.append(access)
        offsets = [self.ev.expr(v) for v in op.offsets]
        unknown = next((e for e in offsets if isinstance(e, Unknown)), None)
        if unknown is not None or len(offsets) != t.rank:
            access.detail = unknown.why if unknown is not None else \
                f"{len(offsets)} offsets of a descriptor over a planned tensor of rank {t.rank}"
            return
        syncs, what, verb = self._reaching(access, t)
        o = offsets[t.dim]
        access.rows = (o, o + self.ev.block_size(op.desc, t.dim))
        if what is None:
            access.status, access.detail = "proved", "no synchronisation needed (a read of a produced tensor)"
        else:
            self._judge(access, t, syncs, True, what, verb)
        if access.status == "proved":
            access.least = self._least(sympy.Add(*offsets), None, syncs, o)
            access.guards = self._guards(op)

    def _access(self, op: Operation) -> None:
        params = self._reaches(op.ptr)
        if not params:
            return
        writes = not isinstance(op, tile.LoadOp)
        ptr = self.ev.of(op.ptr)
        t = self.tensors[sorted(params)[0]]
        access = Access(op, t.plan, t.tensor, writes)
        self.report.accesses.append(access)
        syncs, what, verb = self._reaching(access, t)
        whole = self._whole(t, syncs)
        if len(params) == 1 and whole is not None and not writes:
            # any row of the tensor is covered: the index need not be bounded
            access.status, access.detail = "proved", f"by a wait of the whole tensor ({describe(whole.op)})"
            access.least = self._least(sympy.Integer(0), None, [whole], sympy.Integer(0))
            access.guards = self._guards(op)
            return
        if isinstance(ptr, Unknown) or not isinstance(ptr, Ptr):
            access.detail = ptr.why if isinstance(ptr, Unknown) else "the pointer is not a parameter plus an offset"
            return
        if len(params) > 1 or ptr.base != t.param:
            access.detail = f"the pointer mixes parameters {sorted(params)}"
            return
        mask = self.ev.of(op.mask) if getattr(op, "mask", None) is not None else None
        if mask is not None and not isinstance(mask, Mask):
            mask = Mask((), exact=False)
        pieces = _pieces(ptr.offset, mask, syncs)
        if isinstance(pieces, Unknown):
            access.detail = pieces.why
            return
        parts = []
        for piece in pieces:
            part = Access(op, t.plan, t.tensor, writes)
            self._piece(part, t, piece, what, verb)
            if part.status == "uncovered" and not piece.definite:
                part.status = "unproved"  # that choice of a `tl.where` may never be taken
            parts.append(part)
        _merge(access, parts)
        if access.status == "proved":
            access.guards = self._guards(op)
            self._int32(access, op, mask)

    def _int32(self, access: Access, op: Operation, mask: Mask | None) -> None:
        """Bound, at a launch, every 32-bit value the address is built from
        (ir/crosscheck/widths.py) over the lanes the mask keeps, the loop
        iterations and the program ids: the proof is about true values, and
        the device's agree with them where these fit int32.

        One 32-bit offset with no bound in launch sizes (a grid-stride
        ``while`` row) is bounded through the proof itself: the access's true
        offset lies in the tensor's span (its rows are covered, its inner
        coordinates in their dims), so that part lies in the span less the
        other parts, which the runtime evaluates with the tensor's shape and
        strides. Two such parts, one in a pointer carried by a loop, or a
        64-bit part or a value meeting one with no bound leave the access
        unproved."""
        ranges, _ = clamp(self.ev, mask)
        terms = address_terms(op.ptr, self.widths)
        checked: list[tuple[SSAValue, tuple[sympy.Expr, sympy.Expr]]] = []
        parts: list[tuple[sympy.Expr, sympy.Expr]] = []  # bounds of every part but the open one
        open_parts = []
        exprs = [self.ev.of(v) for v, _, _ in terms.parts]
        for i, (v, wide, loaded) in enumerate(terms.parts):
            b = (sympy.Integer(-INT32), sympy.Integer(INT32 - 1)) if loaded else self._value_bounds(v, ranges)
            if b is not None and b[0] is None and self._one_coordinate(exprs[i], exprs[:i] + exprs[i + 1:]):
                b = (sympy.Integer(0), b[1])
            if b is None or b[0] is None or b[1] is None:
                open_parts.append((v, wide))
                continue
            parts.append(b)
            if not wide and not loaded:
                checked.append((v, b))
        for v in terms.meets:
            b = self._value_bounds(v, ranges)
            if b is None or b[0] is None or b[1] is None:
                self._unbounded_int(access, v)
                return
            checked.append((v, b))
        # the mask's compared values, over every lane (the mask's verdict is
        # what the clamped ranges above rely on); one with no bound in launch
        # sizes (a loop-carried row) is not checked: the model's assumption
        mask_ssa = getattr(op, "mask", None)
        for v in compared_values(mask_ssa, self.widths) if mask_ssa is not None else []:
            if v not in self._compared:  # a load and its store often share `rows < M`
                self._compared[v] = self._value_bounds(v, {})
            b = self._compared[v]
            if b is not None and b[0] is not None and b[1] is not None:
                checked.append((v, b))
        access.int32 = [[_where(v), str(lo), str(hi)] for v, (lo, hi) in checked
                        if not (lo.is_Integer and hi.is_Integer and -INT32 <= lo and hi < INT32)]
        if not open_parts:
            return
        (v, wide), *more = open_parts
        if more or wide or terms.carried:
            self._unbounded_int(access, v)
            return
        t = self.tensors[sorted(self._reaches(op.ptr))[0]]
        low, high = sympy.Add(*(lo for lo, _ in parts)), sympy.Add(*(hi for _, hi in parts))
        span = _int(f"{SPAN_PREFIX}{t.param}", nonnegative=True)
        access.int32.append([_where(v), str(-high), str(span - 1 - low)])

    def _unbounded_int(self, access: Access, v: SSAValue) -> None:
        value = self.ev.of(v)
        access.status, access.int32 = "unproved", []
        access.detail = (f"{_where(v)} has no bound in the launch's sizes, so the proof cannot show the device "
                         f"computes it without int32 overflow; widen it with .to(tl.int64)"
                         f"{self.ev.origins(value) if isinstance(value, sympy.Expr) else ''}")

    def _value_bounds(self, v: SSAValue, ranges: dict) -> tuple[sympy.Expr | None, sympy.Expr | None] | None:
        """The least and largest value of ``v`` at a launch, in launch
        sizes, over its lanes (narrowed by ``ranges``), loop iterations and
        program ids; None for a bound (or both) the model does not have."""
        value = self.ev.expr(v)
        if isinstance(value, Unknown):
            return None
        lanes0 = {s: ranges.get(s, self.ev.lane_range(s)) for s in _lanes_of(value)}
        # a `tl.where` choice is one value wherever its SSA value appears (in
        # the offset and in a mask's clamp of a lane): one symbol between
        # its two values
        sels = sorted({a for e in (value, *(x for r in lanes0.values() for x in r)) for a in e.atoms(Sel)},
                      key=sympy.default_sort_key)
        chosen = {c: _int(f"chosen{i}") for i, c in enumerate(sels)}
        choices = {sym: (sympy.Min(c.args[0], c.args[1]), sympy.Max(c.args[0], c.args[1])) for c, sym in chosen.items()}
        value = value.xreplace(chosen)
        lanes0 = {s: (lo.xreplace(chosen), hi.xreplace(chosen)) for s, (lo, hi) in lanes0.items()}
        out = []
        for upper in (False, True):
            e, lanes = value, dict(lanes0)
            for i, w in enumerate(sorted(e.atoms(Wrap), key=sympy.default_sort_key)):
                # a wrapped row `x % m` with x >= 0 lies in [0, m - 1]
                least = eliminate(lift(w.args[0]), lanes, upper=False)
                if least is None or not nonnegative(least) or not _is_divisor(self.ev, w.args[1]):
                    return None
                q = _int(f"wrapped{i}", nonnegative=True)
                e, lanes = e.xreplace({w: q}), {**lanes, q: (sympy.Integer(0), w.args[1] - 1)}
            # lanes first: a mask's clamp of a lane may name the tile's row
            # (`M - BLOCK_M * (tile // n)`), which loop and program bounds remove
            e = eliminate(lift(e), lanes, upper)
            b = None if e is None else self._bounded(e, upper, choices=choices)
            out.append(b if b is not None and _launch_symbols(self.ev, b) else None)
        return out[0], out[1]

    def _one_coordinate(self, part: Value, others: list[Value]) -> bool:
        """``part`` is one coordinate times one stride parameter that no
        other part of the address names: the proof showed that coordinate
        ``>= 0`` (a covered row, or an inner coordinate, module docstring)."""
        if not isinstance(part, sympy.Expr):
            return False
        strides = {s for s in part.free_symbols if s.name in self.ev.func.arg_names and s.name not in self.ev.constexpr
                   and all(s in sympy.Mul.make_args(t) for t in sympy.Add.make_args(sympy.expand(part)))}
        return len(strides) == 1 and not any(isinstance(o, sympy.Expr) and strides & o.free_symbols for o in others)

    def _bounded(self, e: sympy.Expr, upper: bool, depth: int = 0,
                 choices: dict | None = None) -> sympy.Expr | None:
        """An upper (lower) bound of lane-free ``e`` over loop iterations and
        program ids. ``Min`` (``Max``) needs only one bounded argument; a
        ``//`` or ``%`` that varies is a value in its range (``a // m`` in
        ``[0, hi(a) // m]``, ``a % m`` in ``[0, m - 1]``, for ``a >= 0`` and a
        divisor ``m`` of launch sizes)."""
        e = lift(e)
        if depth > 8:
            return None
        if isinstance(e, sympy.Min if upper else sympy.Max):
            found = [b for b in (self._bounded(a, upper, depth + 1, choices) for a in e.args)
                     if b is not None and _launch_symbols(self.ev, b)]
            return type(e)(*found) if found else None
        varying: dict[sympy.Expr, sympy.Symbol] = {}
        ranges: dict[sympy.Symbol, tuple[sympy.Expr | None, sympy.Expr | None]] = {}
        for i, c in enumerate(sorted(e.atoms(TMod, TDiv), key=sympy.default_sort_key)):
            if _launch_symbols(self.ev, c):
                continue
            a, m = c.args
            low = sympy.Integer(0) if nonnegative(a) and (type(c) is TMod or nonnegative(m)) else None
            high = None
            if low is not None and _launch_symbols(self.ev, m) and _is_divisor(self.ev, m):
                top = m - 1 if type(c) is TMod else self._bounded(a, True, depth + 1)
                high = None if top is None else top if type(c) is TMod else TDiv(top, m)
            varying[c] = _int(f"varying{depth}_{i}")
            ranges[varying[c]] = (low, high)
        e = e.xreplace(varying)
        loops = {s: (lo, hi) for s, (_, lo, hi) in self.ev.ivs.items()}
        pids = {s: (sympy.Integer(0), hi) for s, hi in self.ev.pids.items()}
        for group in (choices or {}, ranges, loops, pids):
            for sym, (lo, hi) in group.items():
                if e is not None and sym in e.free_symbols:
                    e = bound(lift(e), sym, lo, hi, upper)
        return e

    def _piece(self, access: Access, t: PlanTensor, piece: Piece, what: str | None, verb: str) -> None:
        rows = rows_of(self.ev, t, piece.offset, piece.mask)
        if isinstance(rows, Unknown):
            access.detail = rows.why
            return
        row, access.in_row = rows
        if what is None:
            access.status, access.detail = "proved", "no synchronisation needed (a read of a produced tensor)"
        elif isinstance(row, Wrap):
            self._wrapped(access, t, row, piece.mask, piece.syncs, what, verb)
        else:
            self._rows(access, t, row, piece, what, verb)
        if access.status == "proved":
            access.least = self._least(piece.offset, piece.mask, piece.syncs, row)

    def _guards(self, op: Operation) -> tuple[tuple[str, bool], ...]:
        found, child, parent = [], op, op.parent_op()
        while parent is not None and parent is not self.func:
            if isinstance(parent, scf.IfOp):
                cond = self.ev.of(parent.cond)
                if isinstance(cond, sympy.Symbol) and cond.name in self.ev.constexpr:
                    found.append((cond.name, child.parent_region() is parent.true_region))
            child, parent = parent, parent.parent_op()
        return tuple(found)

    def _reaching(self, access: Access, t: PlanTensor) -> tuple[list[Sync], str | None, str]:
        """The syncs that order ``access``: the waits dominating a read (or
        an atomic) of a consumed tensor, the signals following a write of a
        produced one; no description when none is needed."""
        atomic = isinstance(access.op, (tile.AtomicRMWOp, tile.DescriptorAtomicOp))
        if t.consumed and not access.writes or atomic and t.consumed:
            syncs = [s for s in self._syncs(t, (WaitSpanOp, WaitSpanLoopOp)) if dominates(s.op, access.op)]
            return syncs, "waits that dominate it", "reads"
        if not t.consumed and access.writes:
            syncs = [s for s in self._syncs(t, (SignalSpanOp,)) if follows(s.op, access.op)]
            return syncs, "signals that follow it", "writes"
        return [], None, ""

    def _whole(self, t: PlanTensor, syncs: list[Sync]) -> Sync | None:
        size = sympy.Integer(t.size) if isinstance(t.size, int) else self.ev.symbol(t.size)
        return next((s for s in syncs if le(s.lo, sympy.Integer(0))
                     and (le(sympy.Integer(ALL_ROWS), s.hi) or le(size, s.hi))), None)

    def _least(self, offset: sympy.Expr, mask: Mask | None, syncs: list[Sync], row: sympy.Expr) -> dict[str, int]:
        """The integer parameters the proof read: each must be >= 0 at a
        launch (>= 1 for the modulus of a wrapped row)."""
        exprs = [offset, row, *(e for s in syncs for e in (s.lo, s.hi)), *(_exprs(mask) if mask else [])]
        exprs += [e for ranges in (self.ev.ivs.values(),) for _, lo, hi in ranges for e in (lo, hi) if e is not None]
        names = {s.name for e in exprs for s in e.free_symbols} & set(self.ev.func.arg_names)
        least = {n: 0 for n in sorted(names) if n not in self.ev.positive}
        # a divisor (of a wrapped row, or of a coordinate bounded by it) >= 1
        for e in exprs:
            for c in e.atoms(TMod, TDiv):
                name = _recorded_divisor(self.ev, c.args[1])
                if name is not None and name not in self.ev.positive:
                    least[name] = 1
        return least

    def _wrapped(self, access: Access, t: PlanTensor, row: Wrap, mask: Mask | None, syncs: list[Sync],
                 what: str, verb: str) -> None:
        """Rows ``(s + lane) % m`` with ``s >= 0``, ``lane`` in ``[a, b]``,
        ``a >= 0``, ``m >= 1`` (Triton's ``%`` of a non-negative value): with
        ``r = s % m`` they are ``[r + a, min(r + b, m - 1)]`` and, where ``r
        + b`` passes ``m``, ``[0, r + b - m]`` (the wrapped tail)."""
        x, m = row.args
        ranges, _ = clamp(self.ev, mask)
        lanes = {s: ranges.get(s, self.ev.lane_range(s)) for s in _lanes_of(x)}
        terms = sympy.Add.make_args(sympy.expand(x))
        s = sympy.Add(*(a for a in terms if not _lanes_of(a)))
        lane = sympy.expand(x - s)
        a, b = eliminate(lane, lanes, upper=False), eliminate(lane, lanes, upper=True)
        if a is None or b is None or not le(sympy.Integer(0), a) or not le(sympy.Integer(0), s) \
                or not _is_divisor(self.ev, m):
            access.detail = f"the wrapped row {row} is not a non-negative start plus a non-negative block index"
            return
        r = TMod(s, m)
        pieces = [(r + a, sympy.Min(r + b, m - 1) + 1), (sympy.Integer(0), r + b - m + 1)]
        access.rows = (sympy.Integer(0), m)
        seen = ", ".join(f"[{y.lo}, {y.hi})" for y in syncs) or "none"
        outside = self._outside(syncs, access)
        bounded = [(eliminate(lo, outside, upper=False), eliminate(hi - 1, outside, upper=True)) for lo, hi in pieces]
        if all(lo is not None and hi is not None and _covered(lo, hi + 1, syncs) for lo, hi in bounded):
            access.status, access.detail = "proved", f"{verb} [{pieces[0][0]}, {pieces[0][1]}) and [0, {pieces[1][1]}), {what}: {seen}"
        else:
            access.status = "unproved"
            access.detail = (f"{verb} rows [{pieces[0][0]}, {pieces[0][1]}) and [0, {pieces[1][1]}) of '{t.tensor}' "
                             f"(plan @{t.plan}); {what}: {seen}")

    def _rows(self, access: Access, t: PlanTensor, row: sympy.Expr, piece: Piece, what: str, verb: str) -> None:
        ranges, exact = clamp(self.ev, piece.mask)
        lanes = {s: ranges.get(s, self.ev.lane_range(s)) for s in _lanes_of(row)}
        # a loaded lane need not take its extreme values at unmasked lanes
        exact = exact and not any(_lane_index(s) in self.ev.valued for s in lanes)
        lo, hi = eliminate(row, lanes, upper=False), eliminate(row, lanes, upper=True)
        if lo is None or hi is None:
            access.detail = f"the row {row} is not affine with signed coefficients in its block indices"
            return
        end = hi + 1
        for gate in piece.gates - set(lanes):
            # the piece is taken only at lanes its condition keeps: none when
            # that lane's clamped range is empty
            glo, ghi = ranges.get(gate, self.ev.lane_range(gate))
            end = sympy.Min(end, lo + sympy.Max(0, sympy.Min(1, ghi - glo + 1)))
        access.rows = (lo, end)
        self._judge(access, t, piece.syncs, exact, what, verb, _facts(piece.mask))

    def _syncs(self, t: PlanTensor, kinds) -> list[Sync]:
        found = []
        for op in self.func.walk():
            if not isinstance(op, kinds) or op.plan.string_value() != t.plan or op.tensor.data != t.tensor:
                continue
            lo, extent = self.ev.expr(op.lo), self.ev.expr(op.extent)
            if isinstance(lo, Unknown) or isinstance(extent, Unknown):
                continue
            if isinstance(op, WaitSpanLoopOp) and not self._loop_wait_sound(op, lo):
                continue
            found.append(Sync(op, lo, sympy.expand(lo + extent)))
        return found

    def _loop_wait_sound(self, op: WaitSpanLoopOp, lo: sympy.Expr) -> bool:
        """``lo == first + iteration * step`` directly in a for body."""
        loop = op.parent_op()
        if not isinstance(loop, scf.ForOp):
            return False
        first, step = self.ev.expr(op.first), self.ev.expr(op.step)
        iv, lb, loop_step = (self.ev.expr(v) for v in (loop.body.block.args[0], loop.lb, loop.step))
        if any(isinstance(v, Unknown) for v in (first, step, iv, lb, loop_step)):
            return False
        return equal(lo * loop_step, first * loop_step + (iv - lb) * step)

    def _outside(self, syncs: list[Sync], access: Access) -> dict:
        """Ranges of the loop variables of loops around the access but not
        around every sync: those the rows must be bounded over."""
        shared = set.intersection(*(set(_loops(s.op)) for s in syncs)) if syncs else set()
        return {s: (lo, hi) for s, (loop, lo, hi) in self.ev.ivs.items()
                if loop not in shared and loop in _loops(access.op)}

    def _judge(self, access: Access, t: PlanTensor, syncs: list[Sync], exact: bool, what: str, verb: str,
               facts: tuple[sympy.Expr, ...] = ()) -> None:
        lo, hi = access.rows
        seen = ", ".join(f"[{s.lo}, {s.hi})" for s in syncs) or "none"
        outside = self._outside(syncs, access)
        plo, phi = eliminate(lo, outside, upper=False), eliminate(hi - 1, outside, upper=True)
        if plo is not None and phi is not None and _covered(plo, phi + 1, syncs, facts if not outside else ()):
            access.status, access.detail = "proved", f"{verb} [{lo}, {hi}), {what}: {seen}"
            return
        message = f"{verb} rows [{lo}, {hi}) of '{t.tensor}' (plan @{t.plan}); {what}: {seen}"
        witness = self._witness(lo, hi, syncs, exact)
        if witness is not None:
            access.status, access.detail = "uncovered", f"{message}; row {witness} is outside all of them"
        else:
            access.status, access.detail = "unproved", message

    def _witness(self, lo: sympy.Expr, hi: sympy.Expr, syncs: list[Sync], exact: bool) -> sympy.Expr | None:
        """A row the access touches that no sync covers, for every value of
        the symbols; only when every mask term clamped the lanes (so the
        extreme rows are really touched) and the access touches rows at a
        sample launch."""
        if not exact or not _touches_at_sample(self.ev, lo, hi):
            return None
        for row in (lo, hi - 1):
            if isinstance(row, (sympy.Min, sympy.Max)):
                continue
            if all(lt(row, s.lo) or le(s.hi, row) for s in syncs):
                return row
        return None


@dataclass(frozen=True)
class Piece:
    """An access with each ``Sel`` of its offset replaced by one of its two
    values, the same everywhere (offset, mask, waits and signals: one SSA
    value, one value per evaluation); ``gates`` are the lanes of the
    conditions chosen, and ``definite`` is False when a choice has no
    condition (it may never be taken)."""

    offset: sympy.Expr
    mask: Mask | None
    syncs: list[Sync]
    gates: frozenset = frozenset()
    definite: bool = True


MAX_CHOICES = 4  # `tl.where`s split per access (2**MAX_CHOICES pieces)


def _pieces(offset: sympy.Expr, mask: Mask | None, syncs: list[Sync]) -> list[Piece] | Unknown:
    """The access once per choice of each ``Sel`` its offset holds."""
    pieces, done = [Piece(offset, mask, syncs)], []
    while pieces:
        piece = pieces.pop()
        sels = sorted(piece.offset.atoms(Sel), key=sympy.default_sort_key)
        if not sels:
            done.append(piece)
            continue
        if len(done) + len(pieces) >= 2 ** MAX_CHOICES:
            return Unknown(f"the offset chooses through more than {MAX_CHOICES} 'tl.where's or 'if' results")
        sel = sels[0]
        x, y, *cond = sel.args
        for value, atom in ((x, (cond[0], "le", 0) if cond else None), (y, (cond[0], "gt", 0) if cond else None)):
            swap = {sel: value}
            atoms = tuple((a.xreplace(swap), p, b.xreplace(swap)) for a, p, b in (piece.mask.atoms if piece.mask else ()))
            exact = piece.mask is None or piece.mask.exact
            new_mask = Mask(atoms + ((atom[0], atom[1], sympy.Integer(atom[2])),) if atom else atoms, exact) \
                if atom or piece.mask is not None else None
            pieces.append(Piece(piece.offset.xreplace(swap), new_mask,
                                [Sync(s.op, s.lo.xreplace(swap), s.hi.xreplace(swap)) for s in piece.syncs],
                                piece.gates | (_lanes_of(atom[0]) if atom else set()), piece.definite and bool(atom)))
    return done


_SEVERITY = ("proved", "unproved", "unbounded", "uncovered")


def _merge(access: Access, parts: list[Access]) -> None:
    """``access`` from its pieces: proved when every piece is; otherwise the
    worst piece's status and detail."""
    worst = max(parts, key=lambda p: _SEVERITY.index(p.status))
    access.status, access.detail = worst.status, worst.detail
    if len(parts) > 1 and worst.status == "proved":
        access.detail = "; ".join(f"piece {i}: {p.detail}" for i, p in enumerate(parts))
    access.rows = worst.rows
    for p in parts:
        for name, least in p.least.items():
            access.least[name] = max(least, access.least.get(name, least))
    # one group per stride key, spanning what every piece needs of it
    hull: dict = {}
    for g in (g for p in parts if p.in_row is not None for g in p.in_row.groups):
        h = hull.get(g.key)
        hull[g.key] = g if h is None else Group(g.key, sympy.Min(h.lo, g.lo), sympy.Max(h.hi, g.hi),
                                                 h.masked and g.masked)
    first = next((p.in_row for p in parts if p.in_row is not None), None)
    access.in_row = None if first is None else InRow(first.param, first.dim, first.stride, tuple(hull.values()))


def _covered(lo: sympy.Expr, hi: sympy.Expr, syncs: list[Sync], facts: tuple[sympy.Expr, ...] = ()) -> bool:
    """``[lo, hi)`` lies in the union of the syncs' ranges, chained end to
    start, where each ``d`` of ``facts`` is ``<= 0``."""
    if le(hi, lo, facts=facts):
        return True  # empty

    def reach(reached: sympy.Expr, used: frozenset) -> bool:
        # every sync that starts at or before `reached` and may end after it
        for s in syncs:
            if s.op in used or not le(s.lo, reached, facts=facts) or le(s.hi, reached, facts=facts):
                continue
            if le(hi, s.hi, facts=facts) or reach(s.hi, used | {s.op}):
                return True
        return False

    return reach(lo, frozenset())


def _facts(mask: Mask | None) -> tuple[sympy.Expr, ...]:
    """The mask's terms that name no block index, as ``d`` with ``d <= 0``:
    they hold wherever the access touches memory at all."""
    return tuple(d for d in (_normalised(a) for a in (mask.atoms if mask else ())) if not _lanes_of(d))


def _touches_at_sample(ev: Evaluator, lo: sympy.Expr, hi: sympy.Expr) -> bool:
    """``lo < hi`` at program 0 of a launch with every constexpr 16, every
    other parameter 64 and every loop variable or helper result 0: the
    access is not empty in at least that launch."""
    values = {}
    for s in (lo - hi).free_symbols:
        values[s] = (16 if s.name in ev.constexpr else 64) if s.name in ev.func.arg_names else 0
    try:
        return bool(sympy.simplify((hi - lo).subs(values)) > 0)
    except (TypeError, ValueError):  # a `tl.where` choice left open (Sel) has no order at a sample
        return False


def check(module: ModuleOp) -> Report:
    """Every access of a planned tensor in the kernel ``module`` fuses
    (``chunk.kernel``; every kernel taking a planned parameter when absent)."""
    tensors = planned_tensors(module)
    report = Report()
    # the plans belong to the kernel the module names (a file may hold
    # others that take a parameter of the same name but are not fused)
    named = module.attributes.get(KERNEL_ATTR)
    for func in (op for op in module.ops if isinstance(op, tile.FuncOp)):
        if named is not None and func.sym_name.data != named.data:
            continue
        if any(p in func.arg_names for p in tensors) and not func.sym_name.data.startswith("syn_"):
            report.accesses += Checker(module, func, tensors).run().accesses
    return report

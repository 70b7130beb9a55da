"""Integer scalars of tile IR as sympy expressions, to prove two ranges equal or nested.

A wait's range and an access's footprint are SSA values a pass computed
separately (a wait's ``lo`` may be a copy of the access's index arithmetic,
hoisted out of a loop), so comparing them as SSA values proves little. This
module expands a value into an expression over *atoms*:

* ``+``, ``-``, ``*`` and integer constants are expanded; value-preserving
  ops (``tile.retype``, ``tile.broadcast``) are looked through;
* ``tl.minimum`` / ``tl.maximum`` (and ``min`` / ``max``) of two values
  are ``Min`` / ``Max``;
* an exact division (``(iv - lb) // step``, the iteration number) is
  divided out; ``min`` / ``max`` / ``tl.minimum`` / ``tl.maximum`` of two
  scalars are sympy's ``Min`` / ``Max``; any other pure op (``%``, ``//``, casts, ...) is an
  uninterpreted function of its operands' expressions, so a copy of the same
  computation is the same expression;
* the induction variable of ``scf.for`` is ``lb + i * step``, with ``i`` the
  loop's iteration number (a symbol per loop), so two values of one
  iteration compare, and a value of another iteration does not;
* kernel parameters are symbols named after them, program ids ``pid0..2``,
  a host descriptor's ``desc.block_shape[d]`` the symbol a launch binds;
  everything else (a load, a call, a loop-carried value, a branch result) is
  a symbol of its own.

Symbols are integers; program ids, program counts, iteration numbers and
``tl.constexpr`` parameters are also non-negative (block sizes, grid
coordinates), which lets :func:`provably_le` show ``lo <= lo + BLOCK``.
Proofs are sound, not complete: False means "not proved".
"""

from __future__ import annotations

import sympy
from sympy.printing.str import StrPrinter
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue
from xdsl.traits import Pure

from syncopate.dialects import tile
from syncopate.ir.analysis import host_exprs, ssa_values

_EXTREMA = {"tl.minimum": sympy.Min, "tl.maximum": sympy.Max, "min": sympy.Min, "max": sympy.Max}
_ARITHMETIC = {tile.AddOp: sympy.Add, tile.SubOp: lambda a, b: a - b, tile.MulOp: sympy.Mul}
_MIN_MAX = {"tl.minimum": sympy.Min, "tl.maximum": sympy.Max, "min": sympy.Min, "max": sympy.Max}


class Symbolic:
    """Expressions of the SSA values of one kernel (memoised per value)."""

    def __init__(self) -> None:
        self._memo: dict[SSAValue, sympy.Expr] = {}
        self._atoms: dict[object, sympy.Symbol] = {}
        self._names: set[str] = set()

    def of(self, value: SSAValue) -> sympy.Expr:
        """The expression of ``value``."""
        value = ssa_values.strip(value)
        if value not in self._memo:
            self._memo[value] = self._build(value)
        return self._memo[value]

    def iteration(self, loop: Operation) -> sympy.Symbol:
        """The iteration number (from 0) of ``loop`` (printed ``i_<its variable>``)."""
        body = loop.regions[0].block if loop.regions and loop.regions[0].blocks else None
        hint = body.args[0].name_hint if body is not None and body.args else None
        return self._atom(("iteration", loop), f"i_{hint or 'loop'}", nonnegative=True)

    def program_id(self, axis: int) -> sympy.Symbol:
        """``tl.program_id(axis)`` (printed ``pid<axis>``)."""
        return self._atom(("pid", axis), f"pid{axis}", nonnegative=True)

    def param(self, name: str, constexpr: bool = False) -> sympy.Symbol:
        """The kernel parameter ``name``."""
        return self._atom(("param", name), name, nonnegative=constexpr)

    def assumed_nonnegative(self) -> list[str]:
        """The kernel parameters taken to be ``>= 0`` so far (the
        ``tl.constexpr`` ones read): what a proof over these values assumes
        of a launch."""
        return sorted(key[1] for key, sym in self._atoms.items()
                      if isinstance(key, tuple) and key[0] == "param" and sym.is_nonnegative)

    def mod(self, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
        """``a % b`` as the expression of a ``tile.mod`` of values ``a`` and ``b``."""
        return self._function(tile.ModOp.name, "[]", a, b)

    def _atom(self, key: object, name: str, nonnegative: bool = False) -> sympy.Symbol:
        if key not in self._atoms:
            # sympy symbols are equal by name: distinct atoms get distinct names
            unique, n = name, 1
            while unique in self._names:
                unique, n = f"{name}_{n}", n + 1
            self._names.add(unique)
            self._atoms[key] = sympy.Symbol(unique, integer=True, nonnegative=True if nonnegative else None)
        return self._atoms[key]

    @staticmethod
    def _function(name: str, properties: str, *args: sympy.Expr) -> sympy.Expr:
        return sympy.Function(name + properties)(*args)

    def _build(self, value: SSAValue) -> sympy.Expr:
        if isinstance(value, BlockArgument):
            return self._argument(value)
        assert isinstance(value, OpResult)
        op = value.op
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
            return sympy.Integer(op.value.value.data)
        if isinstance(op, (tile.ProgramIdOp, tile.NumProgramsOp)):
            kind = "pid" if isinstance(op, tile.ProgramIdOp) else "num_programs"
            return self._atom((kind, op.axis.value.data), f"{kind}{op.axis.value.data}", nonnegative=True)
        if isinstance(op, tile.DescriptorBlockSizeOp) and (desc := ssa_values.param_name(op.desc)) is not None:
            # a host descriptor's block size: a launch constant, like a constexpr parameter
            return self.param(host_exprs.descriptor_block_symbol(desc, op.dim.value.data), constexpr=True)
        if type(op) in _ARITHMETIC:
            return sympy.expand(_ARITHMETIC[type(op)](self.of(op.operands[0]), self.of(op.operands[1])))
        if isinstance(op, tile.CallOp) and op.callee.data in _MIN_MAX and len(op.arguments) == 2 and not op.kwarg_names:
            # the clamps of index_spans.intervals: the same Min/Max the verifier builds for the access
            return _MIN_MAX[op.callee.data](self.of(op.arguments[0]), self.of(op.arguments[1]))
        if isinstance(op, tile.FloorDivOp):
            quotient = self._exact_quotient(self.of(op.lhs), self.of(op.rhs))
            if quotient is not None:
                return quotient
        if isinstance(op, tile.CallOp) and op.callee.data in _EXTREMA and len(op.arguments) == 2 and not op.kwarg_names:
            return _EXTREMA[op.callee.data](*(self.of(v) for v in op.arguments))
        if op.has_trait(Pure) and not op.regions and len(op.results) == 1:
            properties = str(sorted((k, str(v)) for k, v in op.properties.items()))
            return self._function(op.name, properties, *(self.of(v) for v in op.operands))
        return self._atom(value, value.name_hint or _callee(op) or op.name.rpartition(".")[2])

    def _argument(self, arg: BlockArgument) -> sympy.Expr:
        owner = arg.owner.parent_op()
        if isinstance(owner, tile.FuncOp):
            return self.param(owner.arg_names[arg.index], isinstance(arg.type, tile.ConstexprType))
        if isinstance(owner, scf.ForOp) and arg.index == 0:
            return sympy.expand(self.of(owner.lb) + self.iteration(owner) * self.of(owner.step))
        return self._atom(arg, arg.name_hint or "arg")

    @staticmethod
    def _exact_quotient(numerator: sympy.Expr, denominator: sympy.Expr) -> sympy.Expr | None:
        """``numerator / denominator`` when it is a polynomial with integer
        coefficients (then ``//`` is exact), else None."""
        if denominator == 0:
            return None
        quotient, rest = sympy.fraction(sympy.cancel(numerator / denominator))
        quotient = sympy.expand(quotient)
        if rest != 1 or not all(c.is_integer for c in quotient.as_coefficients_dict().values()):
            return None
        return quotient


def _callee(op: Operation) -> str | None:
    """The function a call op calls, as a symbol name (``syn_tile_pid0``, ``tl.multiple_of`` -> ``multiple_of``)."""
    if isinstance(op, tile.CallJitOp):
        return op.callee.root_reference.data
    if isinstance(op, tile.CallOp):
        return op.callee.data.rpartition(".")[2].strip("_") or None
    return None


class _Printer(StrPrinter):
    """Uninterpreted ops printed as Triton Python (``a // b``, ``a % b``, ``cdiv(a, b)``)."""

    def _print_Function(self, expr: sympy.Function) -> str:
        op = type(expr).__name__.partition("[")[0]
        args = [self._print(a) for a in expr.args]
        operator = _OPERATORS.get(op)
        if operator is not None and len(args) == 2:
            return f"({args[0]} {operator} {args[1]})"
        return f"{op.rpartition('.')[2]}({', '.join(args)})"


_OPERATORS = {op.name: op.PYTHON_OPERATOR for op in tile.BINARY_OPS}


def text(expr: sympy.Expr) -> str:
    """``expr`` as a reader of the kernel would write it."""
    return _Printer().doprint(expr)


def provably_le(a: sympy.Expr, b: sympy.Expr) -> bool:
    """``a <= b`` for every value of the atoms (under their assumptions)."""
    difference = sympy.expand(b - a)
    return difference == 0 or difference.is_nonnegative is True


def provably_equal(a: sympy.Expr, b: sympy.Expr) -> bool:
    return sympy.expand(a - b) == 0

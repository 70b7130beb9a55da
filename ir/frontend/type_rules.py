"""Import-time type inference for tile values (Triton's rules, as far as known).

Only what can be known before launch is inferred: ranks, literal block sizes,
element types from literals, dtypes and program ids. Anything else becomes
`!tile.any`; the emitted Triton code never depends on these types.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
    bf16,
    f8E4M3FN,
    f8E4M3FNUZ,
    f8E5M2,
    f8E5M2FNUZ,
    f16,
    f32,
    f64,
    i1,
    i8,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute

from syncopate.dialects.tile import DYNAMIC, AnyValueType, BlockType, ConstexprType, PointerType, ScalarType

ANY = AnyValueType()

# tl.<name> <-> builtin type
DTYPES: dict[str, Attribute] = {
    "float16": f16,
    "bfloat16": bf16,
    "float32": f32,
    "float64": f64,
    "int1": i1,
    "int8": i8,
    "int16": i16,
    "int32": i32,
    "int64": i64,
    "uint8": IntegerType(8, Signedness.UNSIGNED),
    "uint16": IntegerType(16, Signedness.UNSIGNED),
    "uint32": IntegerType(32, Signedness.UNSIGNED),
    "uint64": IntegerType(64, Signedness.UNSIGNED),
    # Triton's fp8 types with an exact builtin counterpart (float8e4b15, bias 15, has none)
    "float8e4nv": f8E4M3FN,
    "float8e5": f8E5M2,
    "float8e4b8": f8E4M3FNUZ,
    "float8e5b16": f8E5M2FNUZ,
}
DTYPE_ALIASES = {"float": "float32", "half": "float16", "bool": "int1", "double": "float64"}


def dtype_name(type_: Attribute) -> str | None:
    for name, candidate in DTYPES.items():
        if candidate == type_:
            return name
    return None


def _float_rank(t: Attribute) -> int:
    order = {Float16Type: 1, BFloat16Type: 1, Float32Type: 2, Float64Type: 3}
    return order.get(type(t), 0)


def promote_elements(a: Attribute, b: Attribute) -> Attribute:
    """Triton's binary promotion, restricted to what is known at import."""
    if isinstance(a, PointerType) or isinstance(b, PointerType):
        return PointerType()
    if isinstance(a, AnyValueType) or isinstance(b, AnyValueType):
        return ANY
    if isinstance(a, ScalarType) or isinstance(b, ScalarType):
        return ScalarType()
    if isinstance(a, ConstexprType):
        return b
    if isinstance(b, ConstexprType):
        return a
    if a == b:
        return a
    fa, fb = _float_rank(a), _float_rank(b)
    if fa or fb:
        return a if fa >= fb else b
    if isinstance(a, IntegerType) and isinstance(b, IntegerType):
        return a if a.width.data >= b.width.data else b
    return ANY


def _broadcast_dims(x: tuple[int, ...], y: tuple[int, ...]) -> tuple[int, ...]:
    rank = max(len(x), len(y))
    x = (1,) * (rank - len(x)) + x
    y = (1,) * (rank - len(y)) + y
    out = []
    for dx, dy in zip(x, y):
        if dx == dy:
            out.append(dx)
        elif dx == 1:
            out.append(dy)
        elif dy == 1:
            out.append(dx)
        else:
            out.append(DYNAMIC if DYNAMIC in (dx, dy) else dx)
    return tuple(out)


def shape_of(t: Attribute) -> tuple[int, ...]:
    return t.get_shape() if isinstance(t, BlockType) else ()


def element_of(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, BlockType) else t


def make_type(shape: tuple[int, ...], element: Attribute) -> Attribute:
    if isinstance(element, AnyValueType) and shape:
        return ANY
    return BlockType(shape, element) if shape else element


def broadcast(a: Attribute, b: Attribute, element: Attribute | None = None) -> Attribute:
    """Result type of an elementwise op on a and b (element overrides the promotion)."""
    if isinstance(a, AnyValueType) or isinstance(b, AnyValueType):
        return ANY
    elem = element if element is not None else promote_elements(element_of(a), element_of(b))
    return make_type(_broadcast_dims(shape_of(a), shape_of(b)), elem)


def with_element(t: Attribute, element: Attribute) -> Attribute:
    if isinstance(t, AnyValueType):
        return ANY
    return make_type(shape_of(t), element)


def join(a: Attribute, b: Attribute) -> Attribute:
    """The type of a value that may be a or b (branches and loops)."""
    return a if a == b else ANY

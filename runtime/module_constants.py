"""Module-level constants a fused kernel was compiled with, checked at launch.

A kernel may read constants of its module (``SCALE: tl.constexpr = 2``,
``BIAS = tl.constexpr(3)``, plain ints). The frontend folds their values,
as written in the file, into the fused kernel. A user who changes one at
run time (``mymod.SCALE = 4``) before the first launch would get 4 from
the original kernel, which Triton compiles at that launch, and 2 from the
fused one: a silent difference. So a launch compares the original module's
current values with the ones the fused kernel holds and refuses a changed
one, as Triton refuses a kernel whose globals changed after it compiled.

Assumes: the emitted file's module binds the constants the kernel reads
(ir/frontend/prelude.py carries them) with the values the frontend folded.
Guarantees: :func:`check` raises naming the kernel's file and line, the
constant, and both values, whenever a tracked constant differs.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import FunctionType
from typing import Any

import triton.language as tl

PLAIN = (bool, int, float, str)


def _plain(value: Any) -> Any:
    """The Python value of a constant, unwrapping ``tl.constexpr``."""
    return value.value if isinstance(value, tl.constexpr) else value


def baked(original: FunctionType, fused: FunctionType) -> tuple[tuple[str, Any], ...]:
    """The constants of ``original``'s module that its body reads and the
    fused kernel's module binds too: (name, the value the fused kernel holds)."""
    here, there = original.__globals__, fused.__globals__
    constants = []
    for name in original.__code__.co_names:
        if name not in here or name not in there:
            continue
        value = _plain(there[name])
        if type(value) in PLAIN and (name, value) not in constants:
            constants.append((name, value))
    return tuple(constants)


def check(original: FunctionType, constants: tuple[tuple[str, Any], ...]) -> None:
    """Refuse a launch whose module constants changed since the fusion."""
    current: Mapping[str, Any] = original.__globals__
    for name, value in constants:
        now = _plain(current.get(name))
        if now != value or type(now) is not type(value):
            code = original.__code__
            raise RuntimeError(
                f"{code.co_filename}:{code.co_firstlineno}: module constant {name} of @{original.__name__} is "
                f"{now!r} now, but the fused kernel was compiled with {value!r}: compile it again after changing "
                "the constant (Triton, too, refuses a kernel whose globals changed after it compiled)")

"""Launch arguments that share memory with a planned tensor.

The fused kernel waits for, and announces, the accesses made through a
plan's own parameter. A second pointer argument into the same memory (``B``
passed as ``A``, an output written in place over the gathered input) reads
or writes those bytes with no wait and no signal: it can see rows before
they arrive, or overwrite rows a peer is still reading. So a launch in
which another tensor argument may overlap a planned tensor is refused,
naming both.

"May overlap" is decided from the tensors' addresses, sizes and strides
(so views of one storage and separate tensors over the same memory, such
as symmetric-memory views, are treated alike): their byte ranges must
meet; and two views with the same row pitch whose column windows are
disjoint (``qkv[:, :d]`` and ``qkv[:, d:2*d]``) do not, since every row of
one lies beside the other's. Anything else that meets is treated as
overlapping (the refusal errs on the safe side). A table of raw pointers
(an int64 tensor of addresses) is not followed here: a kernel that makes
pointers from integers is refused at compile time (chunk-dependency-analysis).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import torch

from syncopate.runtime.errors import AbiError


def _byte_range(t: torch.Tensor) -> tuple[int, int]:
    """The addresses ``t`` can touch: [lo, hi)."""
    lo = hi = 0
    for size, stride in zip(t.shape, t.stride()):
        if stride >= 0:
            hi += (size - 1) * stride
        else:
            lo += (size - 1) * stride
    return t.data_ptr() + lo * t.element_size(), t.data_ptr() + (hi + 1) * t.element_size()


def _column_arc(t: torch.Tensor, pitch: int, origin: int) -> tuple[int, int] | None:
    """(first column, columns) that ``t`` covers within rows of ``pitch``
    elements counted from address ``origin``, if it is a set of rows of
    unit-stride columns (None otherwise). The columns are an arc of the
    circle of ``pitch`` columns: the origin need not start a row."""
    if t.dim() == 0 or t.stride(-1) != 1 or t.shape[-1] > pitch:
        return None
    if any(stride % pitch for size, stride in zip(t.shape[:-1], t.stride()[:-1]) if size > 1):
        return None
    offset, rest = divmod(t.data_ptr() - origin, t.element_size())
    return None if rest else (offset % pitch, t.shape[-1])


def may_overlap(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether ``a`` and ``b`` may share a byte (see the module docstring)."""
    if a.numel() == 0 or b.numel() == 0 or a.device != b.device:
        return False
    (a_lo, a_hi), (b_lo, b_hi) = _byte_range(a), _byte_range(b)
    if a_hi <= b_lo or b_hi <= a_lo:
        return False
    if a.element_size() != b.element_size():
        return True
    strides = [s for t in (a, b) for size, s in zip(t.shape[:-1], t.stride()[:-1]) if size > 1]
    if not strides:
        return True
    pitch, origin = min(strides), min(a.data_ptr(), b.data_ptr())
    arc_a, arc_b = _column_arc(a, pitch, origin), _column_arc(b, pitch, origin)
    if arc_a is None or arc_b is None:
        return True
    (first_a, width_a), (first_b, width_b) = arc_a, arc_b
    # two arcs of the circle of `pitch` columns miss each other iff each starts past the other's end
    return not ((first_b - first_a) % pitch >= width_a and (first_a - first_b) % pitch >= width_b)


def planned(plans: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """(plan name, parameter) of every tensor a launch's plans move."""
    return tuple((name, t.param.data) for name, plan in plans.items() for t in plan.tensors)


def check_aliases(planned: Iterable[tuple[str, str]], params: Mapping[str, Any]) -> None:
    """Refuse a launch in which a tensor argument may share memory with a
    planned tensor. ``planned``: (plan name, parameter) pairs."""
    for plan, param in planned:
        t = params.get(param)
        if not isinstance(t, torch.Tensor):
            continue
        for other, u in params.items():
            if other != param and isinstance(u, torch.Tensor) and may_overlap(t, u):
                raise AbiError(
                    f"'{other}' shares memory with '{param}', the tensor plan @{plan} moves: the fused kernel "
                    f"synchronises only the accesses made through '{param}', so the ones through '{other}' could "
                    f"race with the communication; pass '{other}' a tensor of its own (for example "
                    f"{param}.clone())")

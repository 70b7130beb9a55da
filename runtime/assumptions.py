"""What verify-addresses' proofs assumed of a launch (``chunk.assume`` on the
kernel), checked at each launch before anything runs.

The compile-time proof that every access of a planned tensor is covered by
its waits or signals holds for launches where

* every integer parameter the proof read is at least its recorded least
  value (sizes, strides and counts are not negative; the modulus of a
  wrapped row is at least 1), and
* an offset within a row whose coordinates no mask bounds stays in that row:
  either each unmasked coordinate fits a dim of its own (other than the
  plan's) whose stride is its key and whose size exceeds its largest value,
  or the whole offset fits below the row stride of a tensor whose dims with
  smaller strides fit below it too (a row-major or padded-row layout), and
* a tensor descriptor built from a planned pointer has the tensor's strides
  and a shape no larger, dim by dim (its rows are the tensor's rows), and
* every 32-bit value an address is built from lies in int32 over the
  launch's program ids, loop iterations and unmasked lanes: the proof is
  about true values, which the device's equal only then
  (ir/crosscheck/widths.py).

An entry whose ``guards`` (constexpr flags of the ``if`` arms around its
access) this launch does not take is skipped. A launch that breaks an
assumption is refused with the access's source line, the assumption and
this launch's values: without it, the access could read a row no wait
covers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import permutations
from typing import Any

from syncopate.ir.assumed import assumed_entries
from syncopate.ir.contract import SPAN_PREFIX
from syncopate.ir.crosscheck.intops import evaluate, parse
from syncopate.runtime.errors import AbiError
from syncopate.runtime.rows import storage_span


INT32 = 2**31  # a 32-bit value lies in [-INT32, INT32)


class AssumptionError(AbiError):
    """A launch breaks an assumption of the address proof."""


def entries(kernel) -> list[dict]:
    """The kernel's recorded assumptions as plain data."""
    return assumed_entries(kernel)


def check(records: Sequence[dict], params: Mapping[str, Any], env: Mapping[str, int],
          grid: Sequence[int], tiles: Sequence[int], rank: int) -> None:
    """Raise :class:`AssumptionError` when this launch breaks one."""
    values = dict(env)
    for axis, n in enumerate(grid):
        values[f"npid{axis}"] = n
    for axis, n in enumerate(tiles):
        values[f"ntile{axis}"] = n
    for entry in records:
        if not all(bool(values.get(name, 0)) == taken for name, taken in entry["guards"]):
            continue
        where = entry["where"]
        for name, least in entry["least"].items():
            if name in values and values[name] < least:
                raise AssumptionError(
                    f"rank {rank}: {where}: the compile-time proof that this access is covered by its waits "
                    f"and signals assumes {name} >= {least} (a size, stride or count); this launch passes "
                    f"{name} = {values[name]}")
        if "in_row" in entry:
            _in_row(entry["in_row"], params, values, rank, where)
        if "descriptor" in entry:
            _descriptor(entry["descriptor"], params, values, rank, where)
        for term, lo, hi in entry.get("int32", ()):
            _int32(term, lo, hi, {**values, **_spans(params)}, rank, where)


def _spans(params: Mapping[str, Any]) -> dict[str, int]:
    """``syn_span_<p>`` of each tensor argument: one past its largest
    element offset (0 for an empty tensor)."""
    tensors = {name: getattr(t, "base", t) for name, t in params.items()}  # a TensorDescriptor's tensor
    return {f"{SPAN_PREFIX}{name}": storage_span(t)
            for name, t in tensors.items() if hasattr(t, "stride") and hasattr(t, "numel")}


def _int32(term: str, lo: str, hi: str, values: Mapping[str, int], rank: int, where: str) -> None:
    """A 32-bit value the access's address is built from stays in int32
    (Triton wraps it otherwise, and the access touches rows the proof never
    saw). A launch value that does not fit int32 itself reaches the kernel
    as a 64-bit argument; the check still holds the value to int32, so such
    a launch is refused unless the kernel widens the index itself."""
    least, most = evaluate(parse(lo), values), evaluate(parse(hi), values)
    if least is None or most is None:
        # a launch plan built from sizes alone (no tensor, a size not given):
        # nothing to check, as for the least values above
        return
    if -INT32 <= least and most < INT32:
        return
    raise AssumptionError(
        f"rank {rank}: {where}: {term} reaches {most if most >= INT32 else least} at this launch (range "
        f"[{lo}, {hi}] = [{least}, {most}]), outside int32: Triton computes it in 32-bit integers and wraps, so "
        f"the access would touch rows its waits and signals do not cover; widen the index with .to(tl.int64)")


def _descriptor(record: dict, params: Mapping[str, Any], values: Mapping[str, int], rank: int, where: str) -> None:
    """The descriptor's dims are the tensor's: the same strides, and shapes
    no larger (so its rows are the tensor's rows)."""
    t = params.get(record["param"])
    if t is None:
        return
    shape = [evaluate(parse(e), values) for e in record["shape"]]
    strides = [evaluate(parse(e), values) for e in record["strides"]]
    if hasattr(t, "stride") and t.dim() == len(shape) and all(
            st == t.stride(d) and sh is not None and 0 <= sh <= t.shape[d]
            for d, (sh, st) in enumerate(zip(shape, strides))):
        return
    actual = (tuple(t.shape), tuple(t.stride())) if hasattr(t, "stride") else "not a tensor"
    raise AssumptionError(
        f"rank {rank}: {where}: the tensor descriptor of '{record['param']}' (shape {shape}, strides {strides}) "
        f"does not describe the tensor passed at this launch (shape and strides {actual}): the compile-time "
        f"proof reads the descriptor's rows as the tensor's; build it with the tensor's own shape and strides")


def _in_row(record: dict, params: Mapping[str, Any], values: Mapping[str, int], rank: int, where: str) -> None:
    t = params.get(record["param"])
    if t is None:  # a launch plan built from sizes alone (no tensor to check)
        return
    if not hasattr(t, "stride"):
        raise AssumptionError(f"rank {rank}: {where}: '{record['param']}' is not a tensor at this launch")
    dim = record["dim"]
    row = record["stride"] if isinstance(record["stride"], int) else values.get(record["stride"])
    groups = []
    for key, lo, hi, masked in record["groups"]:
        k = key if isinstance(key, int) else values.get(key)
        lo_v, hi_v = evaluate(parse(lo), values), evaluate(parse(hi), values)
        if (k is None or lo_v is None or hi_v is None) and masked and row is not None:
            # a masked coordinate's range may depend on values read in the
            # kernel (`offs < seq_len`): its mask keeps it in its dim, so only
            # the own-dims rule, which does not need its range, can apply
            groups.append((key, k, None, None, masked))
            continue
        if k is None or lo_v is None or hi_v is None or row is None:
            raise AssumptionError(f"rank {rank}: {where}: cannot evaluate the offset within a row "
                                  f"({key}: [{lo}, {hi}]) at this launch")
        groups.append((key, k, lo_v, hi_v, masked))
    if _own_dims(t, dim, groups) or _below_row(t, dim, row, groups):
        return
    shown = ", ".join(f"{key} x [{lo}, {hi}]" for key, _, lo, hi, _ in groups)
    raise AssumptionError(
        f"rank {rank}: {where}: the offset within a row of '{record['param']}' ({shown}) may leave the row at "
        f"this launch (shape {tuple(t.shape)}, strides {tuple(t.stride())}, row stride {row}): a coordinate no "
        f"mask bounds must fit a dim whose stride it is multiplied by, or the whole offset must stay below the "
        f"row stride; mask it with its dim's size")


def _own_dims(t, dim: int, groups: list) -> bool:
    """Each unmasked coordinate fits its own dim (stride = its key)."""
    free = [g for g in groups if not g[4]]
    others = [d for d in range(t.dim()) if d != dim]
    for dims in permutations(others, len(free)):
        if all(t.stride(d) == k and 0 <= lo and hi < t.shape[d] for (_, k, lo, hi, _), d in zip(free, dims)):
            return True
    return False


def _below_row(t, dim: int, row: int, groups: list) -> bool:
    """The whole offset lies in ``[0, row)`` and the dims with smaller
    strides fit there too, so no other row's element lies in between."""
    if any(k is None or lo is None or hi is None or k < 0 or lo < 0 for _, k, lo, hi, _ in groups):
        return False
    top = sum(k * hi for _, k, _, hi, _ in groups)
    inner = sum((t.shape[d] - 1) * t.stride(d) for d in range(t.dim()) if d != dim and t.stride(d) < row)
    outer_ok = all(t.stride(d) >= row * t.shape[dim] for d in range(t.dim()) if d != dim and t.stride(d) >= row)
    return top < row and inner < row and outer_ok

"""The kernel's ``chunk.assume`` entries as plain data, read and written.

verify-addresses and verify-sync record what their proofs assume of a launch
(one entry per access, or per verifier); runtime/assumptions.py checks the
entries at each launch. Entries are dicts of str, int, bool, lists and dicts,
kept on the kernel as builtin attributes.
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import ArrayAttr, BoolAttr, DictionaryAttr, IntegerAttr, StringAttr
from xdsl.ir import Attribute, Operation

from syncopate.ir.contract import ASSUME_ATTR


def assumed_entries(kernel: Operation) -> list[dict]:
    """The kernel's recorded assumptions."""
    attr = kernel.attributes.get(ASSUME_ATTR)
    return _plain(attr) if attr is not None else []


def set_assumed_entries(kernel: Operation, entries: list[dict]) -> None:
    """Replace the kernel's recorded assumptions (none: the attribute goes)."""
    if entries:
        kernel.attributes[ASSUME_ATTR] = ArrayAttr([to_attr(e) for e in entries])
    else:
        kernel.attributes.pop(ASSUME_ATTR, None)


def to_attr(value: Any) -> Attribute:
    """Plain data (dicts, lists, str, int, bool) as builtin attributes."""
    if isinstance(value, dict):
        return DictionaryAttr({k: to_attr(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return ArrayAttr([to_attr(v) for v in value])
    if isinstance(value, bool):
        return BoolAttr.from_bool(value)
    if isinstance(value, int):
        return IntegerAttr(value, 64)
    return StringAttr(str(value))


def _plain(attr: Attribute) -> Any:
    if isinstance(attr, DictionaryAttr):
        return {k: _plain(v) for k, v in attr.data.items()}
    if isinstance(attr, ArrayAttr):
        return [_plain(v) for v in attr.data]
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, IntegerAttr):
        value = attr.value.data
        return bool(value) if attr.type.width.data == 1 else value
    raise TypeError(f"unexpected attribute {attr} in {ASSUME_ATTR}")

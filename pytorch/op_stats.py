"""What ``syncopate.ops`` decided, per call: fused or unfused (and why),
counted for ``syncopate.stats()`` and logged once per op, shape and
decision on the ``syncopate`` logger (``logging.getLogger("syncopate")``),
so a user can see which calls took the fused path without a profiler.
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

LOG = logging.getLogger("syncopate")

_COUNTS: Counter[tuple[str, str]] = Counter()  # (op, "fused" | "unfused") -> calls
_LOGGED: set[tuple] = set()  # (op, shapes, decision) already logged


def record(op: str, shapes: tuple, reason: str | None) -> None:
    """One call of ``op`` on tensors of ``shapes``: fused (``reason`` None) or unfused for ``reason``."""
    _COUNTS[(op, "fused" if reason is None else "unfused")] += 1
    key = (op, shapes, reason)
    if key not in _LOGGED:
        _LOGGED.add(key)
        shown = ", ".join("x".join(str(d) for d in s) for s in shapes)
        if reason is None:
            LOG.info("syncopate.ops.%s on %s: fused", op, shown)
        else:
            LOG.info("syncopate.ops.%s on %s: unfused (no fused kernel for %s)", op, shown, reason)


def stats(reset: bool = False) -> dict[str, Any]:
    """Calls per op and path since the start (or the last reset):
    ``{"all_gather_matmul": {"fused": 3, "unfused": 1}, ...}``."""
    result: dict[str, dict[str, int]] = {}
    for (op, path), n in sorted(_COUNTS.items()):
        result.setdefault(op, {"fused": 0, "unfused": 0})[path] = n
    if reset:
        _COUNTS.clear()
        _LOGGED.clear()
    return result

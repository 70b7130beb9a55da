"""What ``syncopate.ops`` decided, per call: fused or unfused (and why),
counted for ``syncopate.stats()`` and logged once per decision on the
``syncopate`` logger (``logging.getLogger("syncopate")``), so a user can
see which calls took the fused path without a profiler. A refused call
logs once per op, shape and refusal (``record``); a call the fused kernel
could run logs its per-shape choice once (pytorch/op_path.py, through
``count`` and ``log_once``).
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

LOG = logging.getLogger("syncopate")

_COUNTS: Counter[tuple[str, str]] = Counter()  # (op, "fused" | "unfused" | "replayed") -> calls
_LOGGED: set[tuple] = set()  # keys of the decisions already logged
_GENERATION = [0]  # resets so far: what a call remembered before one must be decided (and logged) again


def generation() -> int:
    """How many times the stats were reset (pytorch/settled_calls.py keys on it)."""
    return _GENERATION[0]


def count(op: str, path: str) -> None:
    """One call of ``op`` that ran ``path`` ("fused", "unfused" or "replayed")."""
    _COUNTS[(op, path)] += 1


def log_once(key: tuple, message: str, *args: Any) -> None:
    """Log ``message % args`` at INFO unless ``key`` was logged since the start (or the last reset)."""
    if key not in _LOGGED:
        _LOGGED.add(key)
        LOG.info(message, *args)


class Shown:
    """``((2, 3), (3, 4))`` as ``2x3, 3x4``, formatted only when a message
    that holds it is logged (every call passes one; few are logged)."""

    __slots__ = ("shapes",)

    def __init__(self, shapes: tuple):
        self.shapes = shapes

    def __str__(self) -> str:
        return ", ".join("x".join(str(d) for d in s) for s in self.shapes)


def shown(shapes: tuple) -> Shown:
    """``shapes`` for a log message (see :class:`Shown`)."""
    return Shown(shapes)


def record(op: str, shapes: tuple, reason: str) -> None:
    """One call of ``op`` on tensors of ``shapes`` that runs unfused because the fused kernel refuses it for ``reason``."""
    count(op, "unfused")
    log_once((op, shapes, reason), "syncopate.ops.%s on %s: unfused (no fused kernel for %s)", op, shown(shapes), reason)


def stats(reset: bool = False) -> dict[str, Any]:
    """Calls per op and path since the start (or the last reset):
    ``{"all_gather_matmul": {"fused": 3, "unfused": 1}, ...}``, with a
    ``"replayed"`` count where calls replayed the unfused path from a CUDA
    graph (pytorch/replayed_ops.py). A reset also logs every decision again
    at its next call."""
    result: dict[str, dict[str, int]] = {}
    for (op, path), n in sorted(_COUNTS.items()):
        result.setdefault(op, {"fused": 0, "unfused": 0})[path] = n
    if reset:
        _COUNTS.clear()
        _LOGGED.clear()
        _GENERATION[0] += 1
    return result

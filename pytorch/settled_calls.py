"""Calls of ``syncopate.ops`` whose path is settled skip their checks.

A call's argument checks, the fused kernel's refusal and the per-bucket
choice (pytorch/op_path.py) depend only on what :func:`signature` holds:
the op, the group, the tensors' shapes, strides, dtypes and devices, the
op's plain arguments (whether the stream is being captured among them: a
capture may take another path, pytorch/op_path.py), and the environment
variables the refusal and the choice read. Once a call with a signature has run a path that is fixed
(refused: unfused; a measured or forced choice), a later call with the same
signature takes that path straight away, with only the call count kept.
On a GPU machine a small call is host-bound, so the checks' Python work is
a visible share of its time.

Assumed: the process group behind a group name is not replaced while the
process runs, as torch's names are unique per group. Guaranteed: a
signature never seen, a changed variable, a reset of ``syncopate.stats``
(which must log each decision again) or :func:`forget` send the call
through the full checks. The table is bounded: it is emptied when full, so
a server with ever-new shapes pays the checks again, never memory.
"""

from __future__ import annotations

import os
from typing import Any

import torch

from syncopate.pytorch import op_stats

LIMIT = 4096  # signatures kept before the table is emptied
# variables a check or the choice reads on every call (pytorch/op_path.py, pytorch/fused_ops.py)
VARIABLES = ("SYNCOPATE_OPS_PATH", "TRITON_INTERPRET")

_PATHS: dict[tuple, tuple[int, str]] = {}  # signature -> (op_stats generation, "fused" | "unfused")


def signature(op: str, group_name: str, tensors: tuple[torch.Tensor, ...], *plain: Any) -> tuple:
    """What every check and choice of a call of ``op`` depends on."""
    environ = os.environ
    return (op, group_name, *plain, *[environ.get(v) for v in VARIABLES],
            *[(t.shape, t.stride(), t.dtype, t.device) for t in tensors])


def path(sig: tuple) -> str | None:
    """The settled path of calls with signature ``sig`` (None: run the checks)."""
    hit = _PATHS.get(sig)
    if hit is None or hit[0] != op_stats.generation():
        return None
    return hit[1]


def settle(sig: tuple, taken: str) -> None:
    """Calls with signature ``sig`` take ``taken`` from now on."""
    if len(_PATHS) >= LIMIT:
        _PATHS.clear()
    _PATHS[sig] = (op_stats.generation(), taken)


def forget() -> None:
    """Send every call through the checks again (tests that replace a check)."""
    _PATHS.clear()

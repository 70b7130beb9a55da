"""syncopate: chunk-centric compute/communication overlap for multi-GPU Triton kernels.

Public API for PyTorch programs (docs/pytorch.md), imported lazily so that
``import syncopate`` stays cheap (the command-line tools start fast):

``syncopate.compile(kernel, plans, pipeline="overlap", kernel_name=None, group=None)``
    fuse communication plans into a ``@triton.jit`` kernel; launch the
    result as ``fused[grid](...)``.
``syncopate.empty(*size, dtype=None, device=None, group=None)``
    a symmetric buffer for the tensors fused kernels gather from peers.
``syncopate.ops``
    ``all_gather_matmul`` and ``matmul_reduce_scatter``, torch.library ops
    with the arguments and results of PyTorch's ``symm_mem`` async-TP ops.
``syncopate.tp``
    ``parallelize_module`` styles whose collectives + matmuls run as those ops.
``syncopate.stats(reset=False)``
    how many ``syncopate.ops`` calls ran fused and unfused, per op; each
    decision is also logged once per shape (per rows bucket for a measured
    choice) on the ``syncopate`` logger.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = ["SyncopateSetupError", "__version__", "compile", "empty", "ops", "stats", "tp"]

_LAZY = {
    "compile": ("syncopate.pytorch.compile", "compile"),
    "empty": ("syncopate.pytorch.worlds", "empty"),
    "SyncopateSetupError": ("syncopate.pytorch.worlds", "SyncopateSetupError"),
    "ops": ("syncopate.ops", None),
    "stats": ("syncopate.pytorch.op_stats", "stats"),
    "tp": ("syncopate.tp", None),
}

if TYPE_CHECKING:
    from syncopate import ops, tp
    from syncopate.pytorch.compile import compile
    from syncopate.pytorch.op_stats import stats
    from syncopate.pytorch.worlds import SyncopateSetupError, empty


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'syncopate' has no attribute '{name}'")
    module_name, attr = _LAZY[name]
    module = importlib.import_module(module_name)
    value = module if attr is None else getattr(module, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_LAZY))

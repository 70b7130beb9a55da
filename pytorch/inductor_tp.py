"""torch.compile's micro-pipeline TP, emitting ``syncopate.ops``.

Inductor's micro-pipeline TP pass (``torch._inductor.fx_passes.
micro_pipeline_tp``) finds an all-gather feeding matmuls, or a matmul
feeding a reduce-scatter, in a compiled graph (what torch's own
``ColwiseParallel`` / ``RowwiseParallel`` / ``SequenceParallel`` plans
produce) and replaces each with ``torch.ops.symm_mem.fused_all_gather_matmul``
or ``fused_matmul_reduce_scatter``. syncopate's ops have those ops' exact
schemas, so :func:`enable` makes the pass insert
``torch.ops.syncopate.all_gather_matmul`` / ``matmul_reduce_scatter`` in
their place: a model parallelised with torch's plans and compiled runs
syncopate's ops with no plan rewrite. Scaled (fp8) matmuls keep torch's ops.

Assumes: the pass inserts its fused nodes through the module-level
functions ``_insert_fused_all_gather_matmul`` and
``_insert_fused_matmul_reduce_scatter`` (torch 2.11 to 2.13; a torch
without them is refused in one line), and fires only for groups torch's
symmetric memory knows (``enable`` registers the group) with
``torch._inductor.config._micro_pipeline_tp`` on (``enable`` sets it).

Guarantees: after :func:`enable`, every plain-matmul fusion the pass makes
is a node of syncopate's op with the arguments torch's op would get;
:func:`disable` restores the pass and the config value found by ``enable``.
"""

from __future__ import annotations

import warnings
from typing import Any

import torch

_SAVED: dict[str, Any] = {}  # what enable replaced: the two insert functions and the config value


def _pass_module() -> Any:
    try:
        import torch._inductor.fx_passes.micro_pipeline_tp as tp_pass
    except ImportError as err:  # pragma: no cover - depends on the torch build
        raise RuntimeError(f"syncopate.tp.enable: torch {torch.__version__} has no micro-pipeline TP pass "
                           f"({err})") from err
    for name in ("_insert_fused_all_gather_matmul", "_insert_fused_matmul_reduce_scatter", "_Matmul"):
        if not hasattr(tp_pass, name):
            raise RuntimeError(f"syncopate.tp.enable: torch {torch.__version__}'s micro-pipeline TP pass has no "
                               f"'{name}', which syncopate replaces (tested with torch 2.11 to 2.13)")
    return tp_pass


def enable(group: Any = None) -> None:
    """Make ``torch.compile``'s micro-pipeline TP emit syncopate's ops, for
    ``group`` (a process group or its name; the default group when None).
    Call it on every rank before compiling, after ``import syncopate.ops``
    (``syncopate.tp.enable`` is this, with the import)."""
    import torch.distributed as dist
    import torch.distributed._symmetric_memory as symm_mem

    tp_pass = _pass_module()
    if not hasattr(torch.ops.syncopate, "all_gather_matmul"):
        raise RuntimeError("syncopate.tp.enable: torch.ops.syncopate.* are not registered: import syncopate.ops first "
                           "(syncopate.tp.enable does)")
    name = group if isinstance(group, str) else (group or dist.group.WORLD).group_name
    with warnings.catch_warnings():  # deprecated in torch 2.13 but still what the pass checks
        warnings.simplefilter("ignore", FutureWarning)
        symm_mem.enable_symm_mem_for_group(name)
    if not _SAVED:
        _SAVED.update(all_gather=tp_pass._insert_fused_all_gather_matmul,
                      reduce_scatter=tp_pass._insert_fused_matmul_reduce_scatter,
                      config=torch._inductor.config._micro_pipeline_tp)
        tp_pass._insert_fused_all_gather_matmul = _all_gather_matmul_node
        tp_pass._insert_fused_matmul_reduce_scatter = _matmul_reduce_scatter_node
    torch._inductor.config._micro_pipeline_tp = True


def disable() -> None:
    """Undo :func:`enable` (the groups stay registered with symmetric memory)."""
    if not _SAVED:
        return
    tp_pass = _pass_module()
    tp_pass._insert_fused_all_gather_matmul = _SAVED["all_gather"]
    tp_pass._insert_fused_matmul_reduce_scatter = _SAVED["reduce_scatter"]
    torch._inductor.config._micro_pipeline_tp = _SAVED["config"]
    _SAVED.clear()


def enabled() -> bool:
    return bool(_SAVED)


def _all_gather_matmul_node(graph: torch.fx.Graph, matmuls: list, shard_node: torch.fx.Node, gather_dim: int,
                            group_name: str) -> torch.fx.Node:
    """The pass's all-gather fusion: syncopate's op for plain matmuls (the arguments torch's op gets)."""
    tp_pass = _pass_module()
    if not all(type(m) is tp_pass._Matmul for m in matmuls):
        return _SAVED["all_gather"](graph, matmuls, shard_node, gather_dim, group_name)
    return graph.call_function(torch.ops.syncopate.all_gather_matmul.default,
                               args=(shard_node, [m.B_node for m in matmuls], gather_dim, group_name),
                               kwargs={"return_A": True})


def _matmul_reduce_scatter_node(graph: torch.fx.Graph, matmul: Any, reduce_op: str, orig_scatter_dim: int,
                                group_name: str, scatter_dim_after_reshape: int,
                                output_shape: list[int]) -> torch.fx.Node:
    """The pass's reduce-scatter fusion: syncopate's op for a plain matmul."""
    tp_pass = _pass_module()
    if type(matmul) is not tp_pass._Matmul:
        return _SAVED["reduce_scatter"](graph, matmul, reduce_op, orig_scatter_dim, group_name,
                                        scatter_dim_after_reshape, output_shape)
    return graph.call_function(torch.ops.syncopate.matmul_reduce_scatter.default,
                               args=(matmul.A_node, matmul.B_node, reduce_op, orig_scatter_dim, group_name))

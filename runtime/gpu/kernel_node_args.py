"""Pointer arguments of a captured CUDA graph's kernel nodes, found once and
rewritten in the instantiated graph (``cuGraphExecKernelNodeSetParams``,
from the ``cuda-python`` bindings).

A launch replayed from a graph bakes in every kernel argument, so a launch
whose only change is a tensor that no plan moves (a fresh output, a new
activation) would need a capture of its own: more host time than the eager
launch it replaces. Its communication does not read those tensors (they
are exactly the ones outside the launch tables), only kernels do, as
pointer arguments. So the graph is captured once; each kernel parameter
that holds one of those tensors' addresses is recorded, and a later launch
with new addresses rewrites those parameters in the executable graph before
its replay: one driver call per kernel that reads them.

Assumes: the graph was captured with ``keep_graph=True`` and instantiated;
kernel nodes launch a ``CUfunction`` (Triton's and torch's do), whose
parameter layout ``cuFuncGetParamInfo`` gives (CUDA 12.4 and later); a
parameter holding a tracked address is that tensor's pointer (an 8-byte
scalar equal to a device address is not a value kernels are passed).
Guarantees: :func:`find` returns None (the caller captures instead)
wherever it cannot tell every site: no bindings, an older driver, a kernel
node it cannot read; :func:`rewrite` changes nothing and returns False
when two tracked tensors that shared an address no longer do. A rewrite
affects only later replays: the driver documents that launches already
queued keep the arguments they were launched with, so back-to-back
launches with different tensors need no synchronisation.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

from syncopate.runtime.gpu import stream_memops


@dataclass
class KernelSite:
    """One kernel node of a graph that reads tracked tensors: its driver
    parameters, the argument values (``values``, pointed to by
    ``params.kernelParams``), and which tracked tensors each rewritten
    argument holds (argument index -> tracked indices)."""

    node: Any
    params: Any
    values: list[ctypes.Array]
    array: ctypes.Array
    holds: dict[int, tuple[int, ...]]


def find(graph: Any, addresses: tuple[int, ...]) -> list[KernelSite] | None:
    """The kernel arguments of ``graph`` (a torch CUDAGraph kept after
    capture) that hold one of ``addresses``; None where they cannot all be
    found (see the module docstring)."""
    driver = stream_memops.driver_bindings()
    if driver is None:
        return None
    if not addresses:
        return []
    try:
        raw = graph.raw_cuda_graph()
    except RuntimeError:  # captured without keep_graph
        return None
    ok = driver.CUresult.CUDA_SUCCESS
    handle = driver.CUgraph(raw)
    err, _, count = driver.cuGraphGetNodes(handle, 0)
    if err != ok:
        return None
    err, nodes, count = driver.cuGraphGetNodes(handle, count)
    if err != ok:
        return None
    wanted: dict[int, list[int]] = {}
    for i, address in enumerate(addresses):
        wanted.setdefault(address, []).append(i)
    sites = []
    for node in nodes:
        err, kind = driver.cuGraphNodeGetType(node)
        if err != ok:
            return None
        if kind != driver.CUgraphNodeType.CU_GRAPH_NODE_TYPE_KERNEL:
            continue
        site = _site(driver, node, wanted)
        if site is False:
            return None
        if site is not None:
            sites.append(site)
    return sites


def _site(driver: Any, node: Any, wanted: dict[int, list[int]]) -> KernelSite | None | bool:
    """The node's site, None if it reads no tracked address, False if its
    arguments cannot be read."""
    ok = driver.CUresult.CUDA_SUCCESS
    err, params = driver.cuGraphKernelNodeGetParams(node)
    if err != ok or not params.func or not params.kernelParams:
        return False
    sizes = []
    while True:
        err, _offset, size = driver.cuFuncGetParamInfo(params.func, len(sizes))
        if err != ok:
            break
        sizes.append(size)
    if not sizes:
        return False
    pointers = (ctypes.c_void_p * len(sizes)).from_address(int(params.kernelParams))
    values = [ctypes.create_string_buffer(ctypes.string_at(pointers[j], size), size) for j, size in enumerate(sizes)]
    holds = {}
    for j, value in enumerate(values):
        if len(value) == 8:
            held = wanted.get(int.from_bytes(value.raw, "little"))
            if held:
                holds[j] = tuple(held)
    if not holds:
        return None
    array = (ctypes.c_void_p * len(values))(*[ctypes.addressof(v) for v in values])
    params.kernelParams = ctypes.addressof(array)
    return KernelSite(node, params, values, array, holds)


def rewrite(graph: Any, sites: list[KernelSite], addresses: tuple[int, ...]) -> bool:
    """Point every site's arguments at ``addresses`` (indexed as the
    addresses :func:`find` was given) in ``graph``'s executable graph."""
    for site in sites:
        for held in site.holds.values():
            if len({addresses[i] for i in held}) > 1:
                return False
    if not sites:
        return True
    driver = stream_memops.driver_bindings()
    handle = driver.CUgraphExec(graph.raw_cuda_graph_exec())
    for site in sites:
        for j, held in site.holds.items():
            ctypes.memmove(site.values[j], addresses[held[0]].to_bytes(8, "little"), 8)
        (err,) = driver.cuGraphExecKernelNodeSetParams(handle, site.node, site.params)
        if err != driver.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"cuGraphExecKernelNodeSetParams failed: {err}; the graph's kernel arguments are "
                               "partly rewritten and it must not be replayed")
    return True

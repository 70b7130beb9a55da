"""Kernel arguments of a captured graph found by address and rewritten in
its executable graph (runtime/gpu/kernel_node_args.py), against a recorded
driver whose kernel nodes hold real argument bytes (no GPU)."""

from __future__ import annotations

import ctypes
import enum
import types

import pytest
from recorded_driver import Result

from syncopate.runtime.gpu import kernel_node_args, stream_memops


class NodeType(enum.Enum):
    CU_GRAPH_NODE_TYPE_KERNEL = 0
    CU_GRAPH_NODE_TYPE_MEMCPY = 1


class Graph:
    def __init__(self, kept: bool = True):
        self.kept = kept

    def raw_cuda_graph(self) -> int:
        if not self.kept:
            raise RuntimeError("You cannot access the raw cudaGraph_t instance unless CUDAGraph was initialized with keep_graph=true")
        return 11

    def raw_cuda_graph_exec(self) -> int:
        return 22


def _args(*values: tuple[int, int]) -> list[bytes]:
    """Kernel arguments as (size, value)."""
    return [value.to_bytes(size, "little") for size, value in values]


class Driver:
    """Kernel nodes whose arguments live in ctypes buffers, as the driver's
    node parameters point to them; records every executable-graph update."""

    CUresult = Result
    CUgraphNodeType = NodeType

    def __init__(self, nodes: list[list[bytes] | None], set_result: Result = Result.CUDA_SUCCESS, readable: bool = True):
        self.nodes = nodes  # None: a memcpy node
        self.set_result, self.readable = set_result, readable
        self.updates: list[tuple[int, int, list[bytes]]] = []
        self._keep: list = []

    def CUgraph(self, raw):
        assert raw == 11
        return raw

    def CUgraphExec(self, raw):
        assert raw == 22
        return raw

    def cuGraphGetNodes(self, graph, count):
        return Result.CUDA_SUCCESS, (list(range(len(self.nodes))) if count else None), len(self.nodes)

    def cuGraphNodeGetType(self, node):
        kind = NodeType.CU_GRAPH_NODE_TYPE_MEMCPY if self.nodes[node] is None else NodeType.CU_GRAPH_NODE_TYPE_KERNEL
        return Result.CUDA_SUCCESS, kind

    def cuGraphKernelNodeGetParams(self, node):
        if not self.readable:
            return Result.CUDA_ERROR_INVALID_VALUE, None
        buffers = [ctypes.create_string_buffer(v, len(v)) for v in self.nodes[node]]
        array = (ctypes.c_void_p * len(buffers))(*[ctypes.addressof(b) for b in buffers])
        self._keep += [buffers, array]
        return Result.CUDA_SUCCESS, types.SimpleNamespace(func=100 + node, kernelParams=ctypes.addressof(array))

    def cuFuncGetParamInfo(self, func, index):
        args = self.nodes[func - 100]
        if index >= len(args):
            return Result.CUDA_ERROR_INVALID_VALUE, 0, 0
        return Result.CUDA_SUCCESS, sum(len(a) for a in args[:index]), len(args[index])

    def cuGraphExecKernelNodeSetParams(self, graph_exec, node, params):
        sizes = [len(a) for a in self.nodes[node]]
        pointers = (ctypes.c_void_p * len(sizes)).from_address(params.kernelParams)
        self.updates.append((graph_exec, node, [ctypes.string_at(pointers[j], s) for j, s in enumerate(sizes)]))
        return (self.set_result,)


A, B, C = 0x7F0000000000, 0x7F0000100000, 0x7F0000200000


@pytest.fixture
def driver(monkeypatch):
    def install(nodes, **kw):
        d = Driver(nodes, **kw)
        monkeypatch.setattr(stream_memops, "driver_bindings", lambda: d)
        return d
    return install


def test_the_pointer_arguments_holding_tracked_addresses_are_found_per_kernel_node(driver):
    gemm = _args((8, A), (8, B), (8, C), (4, 1024), (8, 0x7F0000900000))  # the last: a pad no key tracks
    clear = _args((8, 0x7F0000900000), (4, 3))
    driver([None, gemm, clear])
    sites = kernel_node_args.find(Graph(), (B, C))
    assert [s.node for s in sites] == [1]  # the copy and the pad-clearing kernel read no tracked tensor
    assert sites[0].holds == {1: (0,), 2: (1,)}


def test_rewriting_changes_only_the_tracked_arguments_of_the_executable_graph(driver):
    gemm = _args((8, A), (8, B), (8, C), (4, 1024), (8, 7))
    d = driver([gemm])
    graph = Graph()
    sites = kernel_node_args.find(graph, (B, C))
    new_c = C + (1 << 20)
    assert kernel_node_args.rewrite(graph, sites, (B, new_c))
    (exec_handle, node, args), = d.updates
    assert (exec_handle, node) == (22, 0)
    assert args == _args((8, A), (8, B), (8, new_c), (4, 1024), (8, 7))
    assert kernel_node_args.rewrite(graph, sites, (B, C)) and d.updates[-1][2] == gemm  # and back


def test_two_tensors_that_shared_an_address_and_no_longer_do_are_not_rewritten(driver):
    d = driver([_args((8, A), (8, B))])
    graph = Graph()
    sites = kernel_node_args.find(graph, (B, B))  # one tensor passed twice: one argument holds both
    assert sites[0].holds == {1: (0, 1)}
    assert not kernel_node_args.rewrite(graph, sites, (B, C)) and not d.updates
    assert kernel_node_args.rewrite(graph, sites, (C, C)) and d.updates[-1][2][1] == C.to_bytes(8, "little")


def test_a_4_byte_argument_equal_to_the_low_half_of_an_address_is_not_a_pointer(driver):
    driver([_args((4, C & 0xFFFFFFFF), (4, C >> 32))])
    assert kernel_node_args.find(Graph(), (C,)) == []


@pytest.mark.parametrize("case", ["no bindings", "graph not kept", "node unreadable"])
def test_sites_that_cannot_all_be_read_give_none(driver, monkeypatch, case):
    if case == "no bindings":
        monkeypatch.setattr(stream_memops, "driver_bindings", lambda: None)
    else:
        driver([_args((8, C))], readable=case != "node unreadable")
    assert kernel_node_args.find(Graph(kept=case != "graph not kept"), (C,)) is None


def test_a_failed_update_is_an_error_not_a_silent_stale_graph(driver):
    driver([_args((8, C))], set_result=Result.CUDA_ERROR_INVALID_VALUE)
    graph = Graph()
    sites = kernel_node_args.find(graph, (C,))
    with pytest.raises(RuntimeError, match="must not be replayed"):
        kernel_node_args.rewrite(graph, sites, (A,))

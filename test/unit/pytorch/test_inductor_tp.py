"""syncopate.tp.enable (pytorch/inductor_tp.py): Inductor's micro-pipeline
TP pass inserts syncopate's ops where it would insert symm_mem's, with the
same arguments, and disable restores the pass. The fusion functions are
called as the pass calls them, on a small FX graph (the pass itself needs
NCCL, which CPU builds of torch lack)."""

from __future__ import annotations

import pytest
import torch
import torch._inductor.fx_passes.micro_pipeline_tp as tp_pass

import syncopate.ops  # noqa: F401  (registers torch.ops.syncopate.*)
from syncopate.pytorch import inductor_tp


@pytest.fixture
def enabled(monkeypatch):
    import torch.distributed._symmetric_memory as symm_mem

    registered = []
    monkeypatch.setattr(symm_mem, "enable_symm_mem_for_group", registered.append)
    before = torch._inductor.config._micro_pipeline_tp
    inductor_tp.enable("tp-group")
    yield registered
    inductor_tp.disable()
    assert torch._inductor.config._micro_pipeline_tp == before


def _matmul(graph: torch.fx.Graph, a: torch.fx.Node, name: str) -> tp_pass._Matmul:
    b = graph.placeholder(name)
    mm = graph.call_function(torch.ops.aten.mm.default, (a, b))
    return tp_pass._Matmul(nodes=[mm], A_node=a, B_node=b, pre_mm_reshape=None, post_mm_reshape=None)


def test_enable_registers_the_group_and_turns_the_pass_on(enabled):
    assert enabled == ["tp-group"]
    assert torch._inductor.config._micro_pipeline_tp and inductor_tp.enabled()


def test_an_all_gather_fusion_inserts_syncopates_op_with_torchs_arguments(enabled):
    graph = torch.fx.Graph()
    shard = graph.placeholder("A_shard")
    gathered = graph.placeholder("A")
    matmuls = [_matmul(graph, gathered, "B0"), _matmul(graph, gathered, "B1")]
    node = tp_pass._insert_fused_all_gather_matmul(graph, matmuls, shard, 0, "tp-group")
    assert node.target is torch.ops.syncopate.all_gather_matmul.default
    assert node.args == (shard, [m.B_node for m in matmuls], 0, "tp-group") and node.kwargs == {"return_A": True}


def test_a_reduce_scatter_fusion_inserts_syncopates_op(enabled):
    graph = torch.fx.Graph()
    a = graph.placeholder("A")
    matmul = _matmul(graph, a, "B")
    node = tp_pass._insert_fused_matmul_reduce_scatter(graph, matmul, "sum", 1, "tp-group", 1, [4, 8])
    assert node.target is torch.ops.syncopate.matmul_reduce_scatter.default
    assert node.args == (a, matmul.B_node, "sum", 1, "tp-group")


def test_disable_restores_torchs_fusions():
    before = (tp_pass._insert_fused_all_gather_matmul, tp_pass._insert_fused_matmul_reduce_scatter)
    inductor_tp._SAVED.update(all_gather=before[0], reduce_scatter=before[1], config=False)
    tp_pass._insert_fused_all_gather_matmul = inductor_tp._all_gather_matmul_node
    inductor_tp.disable()
    assert (tp_pass._insert_fused_all_gather_matmul, tp_pass._insert_fused_matmul_reduce_scatter) == before
    assert not inductor_tp.enabled()

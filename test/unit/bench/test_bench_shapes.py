"""overlap-bench's shape table: per-rank sizes, labels, groups, selection."""

import pytest

from syncopate.bench.configs import CPU_DEFAULT, GPU_DEFAULT, PER_SHAPE, GemmConfig, config_for
from syncopate.bench.shapes import (
    A2A_GEMM,
    AG_ATTN,
    AG_GEMM,
    GEMM_AR,
    GEMM_RS,
    MOE_LAYER,
    RING_ATTN,
    SHAPES,
    Shape,
    ULYSSES_ATTN,
    ShapeError,
    describe,
    parse_workloads,
    select_shapes,
)


def shape(workload, name):
    return next(s for s in SHAPES if s.workload == workload and s.name == name)


@pytest.mark.parametrize("world", [1, 2, 4, 8])
def test_ag_n_per_rank_is_n_over_world(world):
    s = shape(AG_GEMM, "8192x8192x28672")
    d = s.local(world)
    assert d.b == (8192, 28672 // world)
    assert d.a == (8192 // world, 8192)
    assert d.c == d.out == (8192, 28672 // world)
    assert d.gathered == (8192, 8192)
    assert s.label(world) == f"AG 8192x8192x{28672 // world}"


@pytest.mark.parametrize("world", [1, 2, 4, 8])
def test_rs_k_per_rank_is_k_over_world(world):
    s = shape(GEMM_RS, "8192x8192x28672")
    d = s.local(world)
    assert d.a == (8192, 8192 // world)
    assert d.b == (8192 // world, 28672)
    assert d.c == (8192, 28672)  # the partial
    assert d.out == (8192 // world, 28672)  # the rank's reduced rows
    assert d.gathered is None
    assert d.gemm == (8192, 8192 // world, 28672)


@pytest.mark.parametrize("world", [1, 2, 4, 8])
def test_ar_splits_k_like_rs_and_every_rank_keeps_all_rows(world):
    s = shape(GEMM_AR, "8192x8192x28672")
    d, rs = s.local(world), shape(GEMM_RS, "8192x8192x28672").local(world)
    assert (d.a, d.b, d.c, d.gemm) == (rs.a, rs.b, rs.c, rs.gemm)
    assert d.out == (8192, 28672)  # the whole sum on every rank
    assert d.gathered is None
    assert s.label(world) == f"AR 8192x{8192 // world}x28672"
    with pytest.raises(ShapeError, match=r"K=20 is not divisible by W=8"):
        Shape(GEMM_AR, "odd", 64, 20, 16).local(8)


def test_the_anchor_group_has_the_eight_w2_labels_of_docs_performance():
    labels = {s.label(2) for s in select_shapes([AG_GEMM, GEMM_RS], "anchor", 2)}
    assert labels == {"AG 8192x8192x14336", "RS 8192x4096x28672", "AG 8192x8192x4096", "RS 8192x4096x8192",
                      "AG 4096x8192x2048", "RS 4096x4096x4096", "AG 16384x4096x1024", "RS 16384x2048x2048"}
    assert "AG 8192x8192x14336" in labels and "RS 8192x4096x28672" in labels
    assert "AG 16384x4096x1024" in labels and "RS 16384x2048x2048" in labels


def test_llama_shapes_use_hidden_8192_and_mlp_28672_at_4k_and_16k_tokens():
    llama = select_shapes([AG_GEMM, GEMM_RS], "llama", 2)
    assert {s.M for s in llama} == {4096, 16384}
    down = shape(GEMM_RS, "llama70b-mlp-down-16k")
    assert (down.M, down.K, down.N) == (16384, 28672, 8192)
    assert down.label(2) == "RS 16384x14336x8192"
    up = shape(AG_GEMM, "llama70b-mlp-up-4k")
    assert (up.M, up.K, up.N) == (4096, 8192, 28672)


def test_world_that_does_not_divide_is_an_error_naming_the_dimension():
    with pytest.raises(ShapeError, match=r"'8192x8192x28672': M=8192 is not divisible by W=3"):
        shape(AG_GEMM, "8192x8192x28672").local(3)
    with pytest.raises(ShapeError, match=r"N=20 is not divisible by W=8"):
        Shape(AG_GEMM, "odd", 64, 16, 20).local(8)
    with pytest.raises(ShapeError, match=r"K=20 is not divisible by W=8"):
        Shape(GEMM_RS, "odd", 64, 20, 16).local(8)
    with pytest.raises(ShapeError, match=r"M=8192 is not divisible by W=3"):
        select_shapes([GEMM_RS], "8192x8192x8192", 3)


def test_selection_by_label_name_group_and_errors():
    by_label = select_shapes([AG_GEMM, GEMM_RS], "AG-8192x8192x14336,rs 8192x4096x28672", 2)
    assert [(s.workload, s.name) for s in by_label] == [(AG_GEMM, "8192x8192x28672"), (GEMM_RS, "8192x8192x28672")]
    assert [s.name for s in select_shapes([GEMM_RS], "llama70b-o-4k", 4)] == ["llama70b-o-4k"]
    with pytest.raises(ShapeError, match=r"--shapes: no shape 'nope'"):
        select_shapes([AG_GEMM], "nope", 2)
    with pytest.raises(ShapeError, match=r"--workload: unknown workload 'ag_gemm'"):
        parse_workloads("ag-gemm,ag_gemm")
    assert parse_workloads(None) == [AG_GEMM, GEMM_RS, GEMM_AR, A2A_GEMM, AG_ATTN, MOE_LAYER, ULYSSES_ATTN, RING_ATTN]
    by_label = select_shapes([GEMM_RS, GEMM_AR], "AR-8192x4096x28672", 2)
    assert [(s.workload, s.name) for s in by_label] == [(GEMM_AR, "8192x8192x28672")]


def test_default_quick_and_cpu_sets_cover_every_workload():
    everything = select_shapes(parse_workloads(None), None, 2)
    assert {s.workload for s in everything} == {AG_GEMM, GEMM_RS, GEMM_AR, A2A_GEMM, AG_ATTN, MOE_LAYER, ULYSSES_ATTN,
                                               RING_ATTN}
    assert all(s.name != "cpu-tiny" for s in everything)
    for w in (AG_GEMM, GEMM_RS, GEMM_AR):
        assert len([s for s in everything if s.workload == w]) == 8  # 4 anchors + 4 llama
    assert [s.name for s in everything if s.workload == GEMM_AR] == [s.name for s in everything
                                                                     if s.workload == GEMM_RS]
    quick = select_shapes(parse_workloads(None), None, 2, quick=True)
    for w in (AG_GEMM, GEMM_AR):
        assert sorted(s.name for s in quick if s.workload == w) == ["4096x8192x4096", "8192x8192x8192"]
    assert {A2A_GEMM, AG_ATTN, MOE_LAYER, ULYSSES_ATTN, RING_ATTN} <= {s.workload for s in quick}
    cpu = select_shapes(parse_workloads(None), None, 1, cpu=True)
    assert [s.name for s in cpu if s.workload in (AG_GEMM, GEMM_RS, GEMM_AR)] == ["cpu-tiny"] * 3
    assert {A2A_GEMM, AG_ATTN, MOE_LAYER, ULYSSES_ATTN, RING_ATTN} <= {s.workload for s in cpu}


PAPER_TABLE = {  # issue "paper suite": global (M, N, K) of AG-GEMM, and of GEMM-RS / GEMM-AR
    "llama-7b": ((8192, 11008, 4096), (8192, 4096, 11008)),
    "llama-3.1-8b": ((8192, 14336, 4096), (8192, 4096, 14336)),
    "mistral-7b": ((8192, 14336, 4096), (8192, 4096, 14336)),
    "llama-3.1-70b": ((8192, 28672, 8192), (8192, 8192, 28672)),
    "llama-3.1-405b": ((8192, 53248, 16384), (8192, 16384, 53248)),
    "qwen2-72b": ((8192, 29568, 8192), (8192, 8192, 29568)),
}


def test_the_paper_group_is_the_papers_operator_table():
    """Each GEMM once: Llama-3.1-8B and Mistral-7B share theirs, and the
    Llama-3.1-70B AG GEMM is the 8192x8192x28672 anchor."""
    chosen = select_shapes([AG_GEMM, GEMM_RS, GEMM_AR], "paper", 4)
    for i, w in ((0, AG_GEMM), (1, GEMM_RS), (1, GEMM_AR)):
        got = sorted((s.M, s.N, s.K) for s in chosen if s.workload == w)
        assert got == sorted({mnk[i] for mnk in PAPER_TABLE.values()})
    assert shape(GEMM_AR, "paper-llama-3.1-405b").label(2) == "AR 8192x26624x16384"
    assert "Syncopate paper: llama-3.1-70b" in shape(AG_GEMM, "8192x8192x28672").note
    assert "mistral-7b" in shape(GEMM_RS, "paper-llama-3.1-8b").note
    assert shape(AG_GEMM, "paper-llama-7b").local(4).gemm == (8192, 4096, 11008 // 4)
    assert shape(GEMM_RS, "paper-llama-7b").local(4).gemm == (8192, 11008 // 4, 4096)
    default = select_shapes([AG_GEMM, GEMM_RS], None, 2)  # the default table stays the 16 bench shapes
    assert len(default) == 16 and not any(s.name.startswith("paper-") for s in default)


def test_any_other_gemm_is_named_m_by_k_by_n():
    chosen = select_shapes([AG_GEMM, GEMM_RS], "1024x8192x8192,paper-qwen2-72b", 2)
    assert [(s.workload, s.M, s.K, s.N) for s in chosen] == [
        (AG_GEMM, 8192, 8192, 29568), (GEMM_RS, 8192, 29568, 8192),
        (AG_GEMM, 1024, 8192, 8192), (GEMM_RS, 1024, 8192, 8192)]
    assert [s.label(2) for s in chosen[2:]] == ["AG 1024x8192x4096", "RS 1024x4096x8192"]
    assert [s.workload for s in select_shapes([GEMM_RS], "256x4096x4096", 4)] == [GEMM_RS]
    assert [s.label(4) for s in select_shapes([GEMM_AR], "256x4096x4096", 4)] == ["AR 256x1024x4096"]
    with pytest.raises(ShapeError, match=r"K=4095 is not divisible by W=2"):
        select_shapes([GEMM_RS], "256x4095x4096", 2)
    with pytest.raises(ShapeError, match=r"zero size"):
        select_shapes([AG_GEMM], "0x64x64", 2)
    with pytest.raises(ShapeError, match=r"or a GEMM as MxKxN"):
        select_shapes([AG_GEMM], "64x64", 2)


def test_describe_lists_labels_and_flags_indivisible_worlds():
    text = describe([shape(AG_GEMM, "8192x8192x28672")], 2)
    assert "AG 8192x8192x14336" in text
    assert "does not divide" in describe([shape(AG_GEMM, "8192x8192x28672")], 3)


def test_gemm_config_default_hook_and_validation():
    s = shape(AG_GEMM, "8192x8192x8192")
    assert config_for(s) == GPU_DEFAULT == GemmConfig(128, 256, 64, 8, 3)
    assert config_for(s, cpu=True) == CPU_DEFAULT
    PER_SHAPE[(AG_GEMM, s.name)] = GemmConfig(128, 128, 64, 4, 4)
    try:
        assert config_for(s).block_n == 128
    finally:
        del PER_SHAPE[(AG_GEMM, s.name)]
    assert GPU_DEFAULT.constexprs() == {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64}
    with pytest.raises(ValueError, match="block_n must be a power of two"):
        GemmConfig(block_n=96)


def test_the_decode_group_is_issue_36s_decode_table():
    """gemm-ar only: M in {1, 8, 32, 128} tokens, hidden 4096 and 8192 as
    K = N (row-parallel); W need not divide M (the plan then cuts columns),
    only K; never in the default table."""
    chosen = select_shapes([AG_GEMM, GEMM_RS, GEMM_AR], "decode", 4)
    assert sorted((s.M, s.K, s.N) for s in chosen) == sorted((m, h, h) for h in (4096, 8192) for m in (1, 8, 32, 128))
    assert {s.workload for s in chosen} == {GEMM_AR}
    assert shape(GEMM_AR, "decode-h4096-m1").local(4).gemm == (1, 1024, 4096)
    assert shape(GEMM_AR, "decode-h8192-m8").label(2) == "AR 8x4096x8192"
    assert not any(s.name.startswith("decode-") for s in select_shapes([GEMM_AR], None, 2))
    with pytest.raises(ShapeError, match=r"K=20 is not divisible by W=8"):
        Shape(GEMM_AR, "odd", 1, 20, 16).local(8)

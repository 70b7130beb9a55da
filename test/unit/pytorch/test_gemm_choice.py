"""Which library GEMM and tile ``syncopate.ops`` launches per shape
(pytorch/gemm_choice.py), and how ``fused_ops._gemm`` launches the
persistent one. CPU only: the GPU's capability and SM count are patched."""

from __future__ import annotations

import pytest
import torch

from syncopate.pytorch import fused_ops, gemm_choice

M, K, N = 512, 256, 384  # in no table entry


@pytest.fixture
def hopper(monkeypatch):
    monkeypatch.setattr(gemm_choice, "capability", lambda device: (9, 0))
    monkeypatch.setattr(gemm_choice, "sms", lambda device: 132)


def operands(b_nk: bool = True):
    a, c = torch.empty(M, K, dtype=torch.bfloat16), torch.empty(M, N, dtype=torch.bfloat16)
    b = torch.empty(N, K, dtype=torch.bfloat16).t() if b_nk else torch.empty(K, N, dtype=torch.bfloat16)
    return a, b, c


@pytest.mark.parametrize("b_nk", [True, False])
def test_hopper_runs_the_persistent_kernel_in_the_models_blocks(hopper, b_nk):
    a, b, c = operands(b_nk)
    tile = gemm_choice.choose("ag", a, b, c)
    model = gemm_choice.gemm_tile(M, N, 132)
    assert tile.kernel == gemm_choice.PERSISTENT
    assert (tile.block_m, tile.block_n, tile.block_k) == (model.block_m, model.block_n, model.block_k)


def test_the_persistent_128_by_256_tile_fits_shared_memory():
    """Four stages of 128 x 64 and 256 x 64 bf16 blocks are 256 KiB, past a
    Hopper SM's 227 KiB: that tile runs three."""
    assert gemm_choice.PERSISTENT_TILES[128, 256].num_stages == 3
    assert all(t.kernel == gemm_choice.PERSISTENT for t in gemm_choice.PERSISTENT_TILES.values())


@pytest.mark.parametrize("why", ["ampere", "strided a", "strided c", "unaligned a", "odd row stride", "b in neither"])
def test_operands_tma_cannot_take_run_the_pointer_kernel(monkeypatch, hopper, why):
    a, b, c = operands()
    if why == "ampere":
        monkeypatch.setattr(gemm_choice, "capability", lambda device: (8, 0))
    elif why == "strided a":
        a = torch.empty(K, M, dtype=torch.bfloat16).t()
    elif why == "strided c":
        c = torch.empty(N, M, dtype=torch.bfloat16).t()
    elif why == "unaligned a":
        a = torch.empty(M * K + 1, dtype=torch.bfloat16)[1:].view(M, K)
    elif why == "odd row stride":
        a = torch.empty(M, K + 1, dtype=torch.bfloat16)[:, :K]  # 514-byte rows
    else:
        b = torch.empty(2 * K, N, dtype=torch.bfloat16)[::2]
    assert gemm_choice.choose("rs", a, b, c) == gemm_choice.gemm_tile(M, N, 132)


def test_a_table_entry_for_the_persistent_kernel_falls_back_where_tma_cannot_run(monkeypatch, hopper):
    entry = gemm_choice.Tile(128, 256, 64, 8, 3, 1.0, gemm_choice.PERSISTENT)
    monkeypatch.setattr(gemm_choice, "measured", lambda: ((9, 0), {("ag", True, K, N): [(M, entry)]}))
    a, b, c = operands()
    assert gemm_choice.choose("ag", a, b, c) is entry
    assert gemm_choice.choose("ag", torch.empty(K, M, dtype=torch.bfloat16).t(), b, c).kernel == gemm_choice.PTR


@pytest.mark.parametrize("b_nk", [True, False])
def test_the_persistent_launch_has_one_program_per_sm_and_the_b_layout(monkeypatch, hopper, b_nk):
    """PROGRAMS is the SM count whatever the shape, so a new token count
    does not compile the kernel again; B_NK follows B's layout; the kernel
    is the plan kind's persistent one."""
    launched = []

    class Kernel:
        def __init__(self, kind):
            self.kind = kind

        def __getitem__(self, grid):
            return lambda *args, **kwargs: launched.append((self.kind, grid, kwargs))

    monkeypatch.setattr(fused_ops, "_kernel", lambda kind, group, blocks=1: Kernel((kind, blocks)))
    monkeypatch.setattr(fused_ops, "ensure_triton_allocator", lambda: launched.append("allocator"))
    for m in (M, 16):
        a, b, c = operands(b_nk)
        fused_ops._gemm(a[:m], b, c[:m], "rs", "g", 2)
    assert launched[0] == "allocator"
    (kind, grid, kwargs), (_, grid16, kwargs16) = launched[1], launched[3]
    assert kind == ("rs-persistent", 2) and grid == grid16 == (132,)
    assert kwargs["PROGRAMS"] == kwargs16["PROGRAMS"] == 132 and kwargs["B_NK"] is b_nk and kwargs["FLATTEN"] is False

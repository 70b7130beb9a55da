"""Which library GEMM, and in which tile, ``syncopate.ops`` runs per shape.

Two library kernels serve the ops' plain (one B) GEMMs:

* ``ptr`` (kernels/gemm_bf16.py): one output tile per program, pointer
  loads; it takes any strides.
* ``persistent`` (kernels/gemm_bf16_persistent.py): one program per SM
  walking the output tiles, loads and stores through tensor descriptors
  (TMA), B read as stored (``B_NK``: ``nn.Linear``'s N x K weight, or K x
  N). On Hopper it runs closer to cuBLAS than the pointer kernel, with
  either layout. It needs what TMA needs (:func:`descriptor_ready`): a
  Hopper or later GPU, rows of consecutive elements, 16-byte aligned bases
  and row strides.

The shipped table (``gemm_table.json``, measured by
test/e2e/probes/ops_gemm_table.py on one GPU generation) names the
fastest kernel and tile per per-rank GEMM; a shape it lacks takes the
cost model's tile (:func:`gemm_tile`) in the persistent kernel where the
operands allow it, else in the pointer kernel.
"""

from __future__ import annotations

import functools
import json
import math
import os
from typing import NamedTuple

import torch

from syncopate.kernels import b_layout

PTR, PERSISTENT = "ptr", "persistent"
PERSISTENT_GROUP_M = 8  # the persistent kernel's L2 group height in tile rows (Triton's GROUP_M)


class Tile(NamedTuple):
    """A GEMM configuration of the fused kernel, with the share of a large
    tile's per-SM throughput it reaches (smaller tiles reuse less of each
    loaded block), and the library kernel it runs in."""

    block_m: int
    block_n: int
    block_k: int
    num_warps: int
    num_stages: int
    efficiency: float
    kernel: str = PTR


# Hopper configurations of the Triton matmul tutorial's kind, largest first. 128 x 128 runs 8 warps: with 4 warps
# and 4 stages it was slower on every shape of pytorch/gemm_table.json (1.07-1.6x the time).
TILES = (Tile(128, 256, 64, 8, 3, 1.0), Tile(128, 128, 64, 8, 3, 0.85), Tile(64, 128, 64, 4, 4, 0.7))
# The same blocks in the persistent kernel: its 128 x 256 tile does not fit four stages in shared memory
PERSISTENT_TILES = {(t.block_m, t.block_n): t._replace(kernel=PERSISTENT, num_stages=3 if t.block_n == 256 else 4)
                    for t in TILES}
TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gemm_table.json")


@functools.lru_cache(maxsize=1024)
def gemm_tile(m: int, n: int, sms: int) -> Tile:
    """The tile of an m x n output on a GPU of ``sms`` SMs: the least
    modelled time, waves (tiles over SMs, rounded up) times a tile's work
    over its efficiency; ties go to the larger tile. A 128 x 256 tile leaves
    half the SMs idle on a small output (1024 x 2048: 64 tiles on 132 SMs),
    where a 128 x 128 one fills them."""
    def cost(t: Tile) -> float:
        tiles = -(-m // t.block_m) * -(-n // t.block_n)
        return -(-tiles // sms) * t.block_m * t.block_n / t.efficiency

    return min(TILES, key=cost)


@functools.lru_cache(maxsize=1)
def measured() -> tuple[tuple[int, int], dict[tuple, list[tuple[int, Tile]]]]:
    """The shipped table (``TABLE``): its GPU's capability, and per (kind,
    B layout, k, n) the measured rows and their fastest tile, by rows."""
    with open(TABLE) as f:
        data = json.load(f)
    found: dict[tuple, list[tuple[int, Tile]]] = {}
    for e in data["entries"]:
        tile = Tile(*e["tile"], 1.0, e.get("kernel", PTR))
        found.setdefault((e["kind"], e["b_nk"], e["k"], e["n"]), []).append((e["m"], tile))
    return tuple(data["capability"]), {key: sorted(rows) for key, rows in found.items()}


def measured_tile(kind: str, m: int, k: int, n: int, b_nk: bool | None, capability: tuple[int, int] | None) -> Tile | None:
    """The shipped table's tile for this GEMM (the entry of the same kind,
    B layout, k and n whose row count is nearest ``m`` on a log scale), or
    None: no entry, another GPU generation than the table's, or B in
    another layout."""
    table_capability, table = measured()
    rows = table.get((kind, b_nk, k, n)) if b_nk is not None and capability == table_capability else None
    if not rows:
        return None
    return min(rows, key=lambda row: abs(math.log2(row[0]) - math.log2(max(m, 1))))[1]


@functools.lru_cache(maxsize=16)
def capability(device: torch.device) -> tuple[int, int] | None:
    return tuple(torch.cuda.get_device_capability(device)) if device.type == "cuda" else None


@functools.lru_cache(maxsize=16)
def sms(device: torch.device) -> int:
    return torch.cuda.get_device_properties(device).multi_processor_count


def _tma_rows(t: torch.Tensor, row_stride: int) -> bool:
    """A base and a row stride that a tensor descriptor takes (16 bytes each)."""
    return t.data_ptr() % 16 == 0 and (row_stride * t.element_size()) % 16 == 0


def descriptor_ready(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, b_nk: bool | None) -> bool:
    """Whether the persistent kernel can read ``a`` and ``b`` and write ``c``
    (``b_nk``: B's layout, :func:`syncopate.kernels.b_layout`): a GPU with
    TMA (compute capability 9 or later), A and C with rows of consecutive
    elements, B in either layout, and every base and row stride 16-byte
    aligned."""
    cap = capability(a.device)
    if cap is None or cap < (9, 0) or b_nk is None or a.stride(1) != 1 or c.stride(1) != 1:
        return False
    return _tma_rows(a, a.stride(0)) and _tma_rows(c, c.stride(0)) and _tma_rows(b, b.stride(1 if b_nk else 0))


def choose(kind: str, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> Tile:
    """The kernel and tile for ``c = a @ b`` in the op of ``kind`` ("ag" or
    "rs"): the shipped table's where it has the shape (its persistent
    choice only where the operands allow descriptors), else the cost
    model's blocks, in the persistent kernel where the operands allow it."""
    m, k = a.shape
    n = b.shape[1]
    b_nk = b_layout(b)
    ready = descriptor_ready(a, b, c, b_nk)
    tile = measured_tile(kind, m, k, n, b_nk, capability(a.device))
    if tile is not None and (tile.kernel == PTR or ready):
        return tile
    model = gemm_tile(m, n, sms(a.device))
    return PERSISTENT_TILES[model.block_m, model.block_n] if ready else model

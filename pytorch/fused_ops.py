"""The fused (GPU) implementation of ``syncopate.ops``.

Both ops run a library GEMM that ``overlap-bench`` fuses too, compiled
with ``syncopate.compile`` once per process group and kernel: on Hopper
the persistent TMA kernel (kernels/gemm_bf16_persistent.py), reading an
``nn.Linear`` weight as stored, else the tiled pointer kernel
(kernels/gemm_bf16.py); pytorch/gemm_choice.py picks the kernel and tile
per shape:

* all-gather + matmul: plan ``all-gather{tensor=a_ptr dim=0}``. A_shard,
  its gather dim moved to the front and the dims before the last
  flattened into rows, is copied into this rank's rows of a symmetric
  M x K buffer (the documented copy: the op's caller passes an ordinary
  tensor; moving the dim makes it a transposing copy, no extra pass), and
  the fused kernel multiplies the rows as they arrive by ``Bs[0]``; given
  two or three B's of one layout (Q/K/V, gate/up: ``nn.Linear`` weights,
  transposed) it is the shared-A GEMM (kernels/gemm_shared_a.py), whose
  one launch multiplies each arriving row by all of them. B's it leaves
  (past the third, or of mixed layouts) multiply the gathered buffer with
  ``torch.matmul``. The results are views that move the gather dim back, as
  ``torch.ops.symm_mem.fused_all_gather_matmul``'s are: with a batch of two
  or more and the sequence dim gathered (``[b, s, h]``, dim 1) they are not
  contiguous. The gathered A is returned as a copy, since the buffer is
  reused by the next call.
* matmul + reduce-scatter: A's rows in their own order (a view, no copy)
  into an M x N output buffer, plan ``reduce-scatter{tensor=c_ptr dim=0
  blocks=P}``, P the product of the dims before the scatter dim: those rows
  are P blocks (a ``[b, s, h]`` A scattered on ``s``: b blocks of s rows),
  and rank r owns the r-th slice of every block, which is its slice of the
  scatter dim. This rank's rows are returned as a contiguous copy in A's
  dim order. Beyond ``max_blocks`` blocks (a plan that takes seconds to
  verify) A is copied with the scatter dim moved to the front, one block.

Buffers are kept per (group, row bucket, row width, dtype): a call uses
the first rows of the buffer whose row count is the next power of two, so
the runtime's launch tables (keyed by tensor addresses) are reused, a
steady-state call does no host-to-device copy, a call can be captured in a
CUDA graph after one eager call of the same shapes (the first call of a
bucket allocates symmetric memory, a collective that cannot be captured,
and the first of a shape builds the launch tables),
and varying token counts hold at most twice the largest call's rows per
width and dtype.

The fused path applies to CUDA tensors of an NCCL group with two or more
ranks that spans every rank (pytorch/worlds.py), fp16 or bf16, the collective on any dim but the last (the features),
and moved rows (A's for the gather, the output's for the reduce-scatter) of a multiple of 16 bytes; the
``*_refusal`` functions name the first condition a call misses, and the op then runs unfused. A may be
non-contiguous (an attention output's ``transpose(1, 2).reshape(b, s, -1)``, which SDPA's kernels can
leave with a padded batch stride, is the common case): the gather copies the shard into its symmetric
buffer anyway, and the reduce-scatter hands the GEMM A's rows as one strided view where they are one,
else a contiguous copy of A (one pass over A, where the unfused path would move the whole product).
"""

from __future__ import annotations

import math
import os
from typing import Any

import torch

from syncopate.kernels import b_layout
from syncopate.pytorch import gemm_choice
from syncopate.pytorch.unfused_ops import process_group
from syncopate.runtime.gpu.scratch import ensure_triton_allocator

DTYPES = (torch.float16, torch.bfloat16)


PLANS = {"ag": ("all-gather", "a_ptr"), "rs": ("reduce-scatter", "c_ptr")}  # kind -> (template, planned parameter)
# kernel kind -> (plan kind, library module, kernel): "-persistent" (pytorch/gemm_choice.py) walks the tiles in one
# program per SM; "ag-shared" multiplies one gathered A by up to SHARED_BS B's
KERNELS = {"ag": ("ag", "gemm_bf16", "gemm_kernel"), "rs": ("rs", "gemm_bf16", "gemm_kernel"),
           "ag-persistent": ("ag", "gemm_bf16_persistent", "gemm_persistent_kernel"),
           "rs-persistent": ("rs", "gemm_bf16_persistent", "gemm_persistent_kernel"),
           "ag-shared": ("ag", "gemm_shared_a", "gemm_shared_a_kernel")}
SHARED_BS = 3

_KERNELS: dict[tuple[str, str, int], Any] = {}  # (kernel kind, group name, blocks) -> fused kernel
_BUFFERS: dict[tuple, torch.Tensor] = {}  # (kind, group name, row bucket, width, dtype, device) -> buffer


def plan_for(kind: str, world: int, blocks: int = 1) -> Any:
    """The plan of ``kind`` ("ag" or "rs") over ``world`` ranks, typed (the
    library GEMM's rows on dim 0); ``blocks``: the reduce-scatter's rows
    are that many blocks, each scattered over the ranks."""
    from syncopate.ir.plans.templates import template

    collective, tensor = PLANS[kind]
    return template(collective, world, tensor=tensor, dim=0, blocks=blocks)


# Verifying a plan's symbolic extents grows faster than its blocks and chunks: at W = 8 it takes 1.8 s with 16
# blocks (1024 chunks), 10 s with 32; at W = 16, 12 s with 16 blocks (4096 chunks); at W = 2, a minute with 256.
# Past these caps copying A (the scatter dim moved to the front, one block) costs less.
BLOCKS_CAP, CHUNKS_CAP = 16, 1024


def max_blocks(world: int) -> int:
    """The most blocks of a reduce-scatter plan of ``world`` ranks the op
    compiles: at most ``BLOCKS_CAP``, and at most ``CHUNKS_CAP`` chunks
    (W * W per block). Their flags fit the signal pad with room to spare
    (runtime/gpu/flags.py: a flag per chunk in its lower half, the ce
    staging's W * W per block in its upper half)."""
    return max(1, min(BLOCKS_CAP, CHUNKS_CAP // (world * world)))


def _common_refusal(A: torch.Tensor, Bs: list[torch.Tensor], dim: int, group_name: str) -> str | None:
    from syncopate.pytorch.worlds import backend_name

    if not A.is_cuda:
        return f"{A.device.type} tensors"
    if os.environ.get("TRITON_INTERPRET") == "1":
        return "the Triton interpreter (TRITON_INTERPRET=1)"
    group = process_group(group_name)
    backend = backend_name(group)
    if "nccl" not in backend:
        return f"a '{backend}' process group"
    if group.size() < 2:
        return "a group of one rank"
    return layout_refusal(A, Bs, dim)


def layout_refusal(A: torch.Tensor, Bs: list[torch.Tensor], dim: int) -> str | None:
    """Why the tensors' dtypes and shapes keep the call off the fused path
    (None: they do not). A's strides are not among the reasons (see the
    module docstring)."""
    if A.dtype not in DTYPES or any(B.dtype != A.dtype for B in Bs):
        return f"dtype {A.dtype} (fused: float16, bfloat16, with B of A's dtype)"
    refusal = dim_refusal(tuple(A.shape), dim)
    if refusal:
        return refusal
    if (A.shape[-1] * A.element_size()) % 16:
        return "rows of A that are not a multiple of 16 bytes"
    return None


def dim_refusal(shape: tuple[int, ...], dim: int) -> str | None:
    """Why the collective dim ``dim`` of an A of ``shape`` cannot run fused:
    the kernel moves rows (the dims before the last flattened, the
    collective's first), so the dim must not be the last (the features)."""
    if not 0 <= dim < len(shape) - 1:
        return f"the collective on dim {dim} of shape {shape} (fused: any dim but the last, the features)"
    return None


def _rows_first(t: torch.Tensor, dim: int) -> torch.Tensor:
    """``t`` with dim ``dim`` moved to the front: its rows, flattened, are
    rank-major along ``dim`` (a view; the same memory order where the dims
    before ``dim`` are all 1)."""
    return t.movedim(dim, 0)


def all_gather_matmul_refusal(A_shard: torch.Tensor, Bs: list[torch.Tensor], gather_dim: int,
                              group_name: str) -> str | None:
    """Why the fused path does not apply to this call (None: it does)."""
    return _common_refusal(A_shard, Bs, gather_dim, group_name)


def matmul_reduce_scatter_refusal(A: torch.Tensor, B: torch.Tensor, scatter_dim: int, group_name: str) -> str | None:
    """Why the fused path does not apply to this call (None: it does)."""
    refusal = _common_refusal(A, [B], scatter_dim, group_name)
    if refusal is None and (B.shape[1] * B.element_size()) % 16:  # the output's rows are what moves
        return "output rows that are not a multiple of 16 bytes"
    return refusal


def _kernel(kind: str, group_name: str, blocks: int = 1) -> Any:
    """The fused kernel of ``kind`` (a key of ``KERNELS``) for the group, compiled once."""
    key = (kind, group_name, blocks)
    if key not in _KERNELS:
        import importlib

        from syncopate.pytorch.compile import compile as compile_kernel

        plan, module, name = KERNELS[kind]
        kernel = getattr(importlib.import_module(f"syncopate.kernels.{module}"), name)
        group = process_group(group_name)
        _KERNELS[key] = compile_kernel(kernel, [plan_for(plan, group.size(), blocks)], group=group)
    return _KERNELS[key]


def _buffer(kind: str, group_name: str, shape: tuple[int, int], dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """The first ``shape[0]`` rows of the kept buffer of the row bucket (a
    view that starts the buffer, as the runtime's peer views require)."""
    rows, width = shape
    bucket = 1 << max(rows - 1, 0).bit_length()
    key = (kind, group_name, bucket, width, dtype, device)
    buf = _BUFFERS.get(key)
    if buf is None:
        shape = (bucket, width)
        if kind == "ag":
            from syncopate.pytorch import worlds

            buf = worlds.empty(shape, dtype=dtype, device=device, group=process_group(group_name))
        else:
            buf = torch.empty(shape, dtype=dtype, device=device)
        _BUFFERS[key] = buf
    return buf[:rows]


def _gemm(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, kind: str, group_name: str, blocks: int = 1) -> None:
    """``c = a @ b`` with the fused kernel of ``kind`` ("ag" or "rs") for
    the group, in the kernel and tile :func:`gemm_choice.choose` picks."""
    m, k = a.shape
    n = b.shape[1]
    t = gemm_choice.choose(kind, a, b, c)
    args = (a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
    blocks_and_options = dict(BLOCK_M=t.block_m, BLOCK_N=t.block_n, BLOCK_K=t.block_k, num_warps=t.num_warps,
                              num_stages=t.num_stages)
    if t.kernel == gemm_choice.PTR:
        _kernel(kind, group_name, blocks)[(-(-m // t.block_m), -(-n // t.block_n))](*args, **blocks_and_options)
        return
    # one program per SM whatever the shape (programs past the last tile find none): PROGRAMS is a constexpr, so
    # a count that followed the tiles would compile the kernel again for every new token count
    programs = gemm_choice.sms(a.device)
    ensure_triton_allocator()  # the kernel's descriptors take scratch memory; the caller's thread may have none
    _kernel(f"{kind}-{gemm_choice.PERSISTENT}", group_name, blocks)[(programs,)](
        *args, **blocks_and_options, PROGRAMS=programs, GROUP_M=gemm_choice.PERSISTENT_GROUP_M, FLATTEN=False,
        B_NK=b_layout(b))


def shared_layout(bs: list[torch.Tensor]) -> bool | None:
    """The layout all of ``bs`` share, as the library kernels' ``B_NK``
    (``syncopate.kernels.b_layout``: True for ``nn.Linear`` weights
    transposed, as torch TP's column-wise layers pass them, False for
    contiguous K x N matrices); None for any other mix."""
    layouts = {b_layout(b) for b in bs}
    return layouts.pop() if len(layouts) == 1 else None


def gemm_shared_a(kernel: Any, a: torch.Tensor, bs: list[torch.Tensor], cs: list[torch.Tensor], b_nk: bool) -> None:
    """``cs[i] = a @ bs[i]`` for up to ``SHARED_BS`` B's of one layout
    (:func:`shared_layout`) in one launch of the shared-A kernel (each C
    contiguous); unused slots get width 0."""
    m, k = a.shape
    widths = [b.shape[1] for b in bs] + [0] * (SHARED_BS - len(bs))
    bs = bs + [bs[0]] * (SHARED_BS - len(bs))
    cs = cs + [cs[0]] * (SHARED_BS - len(cs))
    t = gemm_choice.gemm_tile(m, sum(widths), gemm_choice.sms(a.device))
    grid = (-(-m // t.block_m), sum(-(-n // t.block_n) for n in widths))
    kernel[grid](a, *bs, *cs, m, *widths, k, a.stride(0), a.stride(1), B_NK=b_nk, BLOCK_M=t.block_m,
                 BLOCK_N=t.block_n, BLOCK_K=t.block_k, num_warps=t.num_warps, num_stages=t.num_stages)


def all_gather_matmul(A_shard: torch.Tensor, Bs: list[torch.Tensor], gather_dim: int, group_name: str,
                      return_A: bool) -> tuple[torch.Tensor | None, list[torch.Tensor]]:
    import torch.distributed as dist

    group = process_group(group_name)
    world, rank = group.size(), dist.get_rank(group)
    K = A_shard.shape[-1]
    m = A_shard.numel() // K
    front = _rows_first(A_shard, gather_dim)
    gathered = _buffer("ag", group_name, (world * m, K), A_shard.dtype, A_shard.device)
    gathered[rank * m:(rank + 1) * m].view(front.shape).copy_(front)
    # gathering rank-major rows gathers along the front dim; the results move it back to gather_dim
    gathered_shape = (world * front.shape[0], *front.shape[1:-1])

    def back(t: torch.Tensor) -> torch.Tensor:
        return t.view(*gathered_shape, t.shape[-1]).movedim(0, gather_dim)

    b_nk = shared_layout(Bs[:SHARED_BS]) if len(Bs) > 1 else None
    fused = Bs[:SHARED_BS] if b_nk is not None else Bs[:1]
    cs = [torch.empty(world * m, B.shape[1], dtype=A_shard.dtype, device=A_shard.device) for B in fused]
    if b_nk is None:
        _gemm(gathered, fused[0], cs[0], "ag", group_name)
    else:
        gemm_shared_a(_kernel("ag-shared", group_name), gathered, fused, cs, b_nk)
    outs = [back(c) for c in cs] + [back(torch.matmul(gathered, B)) for B in Bs[len(fused):]]
    return (back(gathered).clone() if return_A else None), outs


def matmul_reduce_scatter(A: torch.Tensor, B: torch.Tensor, reduce_op: str, scatter_dim: int,
                          group_name: str) -> torch.Tensor:
    import torch.distributed as dist

    group = process_group(group_name)
    world, rank = group.size(), dist.get_rank(group)
    K, N = A.shape[-1], B.shape[1]
    M = A.numel() // K
    moved, dim = A, scatter_dim  # A's rows in their own order: blocks of the scatter dim's rows
    blocks = max(math.prod(A.shape[:scatter_dim]), 1)  # an empty batch has no rows: one block of none
    if blocks > max_blocks(world):
        moved, dim, blocks = _rows_first(A, scatter_dim), 0, 1
    a = moved.reshape(M, K)  # a view of A's rows where they are one strided view, else a copy
    c = _buffer("rs", group_name, (M, N), A.dtype, A.device)
    _gemm(a, B, c, "rs", group_name, blocks)
    rows = M // blocks // world  # this rank's slice of each block
    mine = c.view(blocks, M // blocks, N)[:, rank * rows:(rank + 1) * rows]
    mine = mine.reshape(*moved.shape[:dim], moved.shape[dim] // world, *moved.shape[dim + 1:-1], N)
    out = mine.movedim(dim, scatter_dim).clone(memory_format=torch.contiguous_format)
    return out.div_(world) if reduce_op == "avg" else out


def matmul_all_reduce_refusal(A: torch.Tensor, B: torch.Tensor, group_name: str) -> str | None:
    """Why the fused path does not apply (None: it does): A's rows (leading
    dims flattened) run as the fused matmul + reduce-scatter, then an
    all-gather of the reduced rows, so they must split evenly over the group."""
    rows = A.numel() // A.shape[-1] if A.shape[-1] else 0
    refusal = _common_refusal(A.reshape(rows, A.shape[-1]) if A.is_contiguous() else A, [B], 0, group_name)
    if refusal is None and (B.shape[1] * B.element_size()) % 16:
        return "output rows that are not a multiple of 16 bytes"
    if refusal is None and rows % process_group(group_name).size():
        return f"{rows} rows, not a multiple of the group size {process_group(group_name).size()}"
    return refusal


def matmul_all_reduce(A: torch.Tensor, B: torch.Tensor, reduce_op: str, group_name: str) -> torch.Tensor:
    """The fused matmul + reduce-scatter of A's rows, then an all-gather of
    each rank's reduced rows into one fresh tensor (the reduce-scatter's
    fused overlap, plus the all-reduce's second half as one collective)."""
    from syncopate.runtime.gpu import direct_collectives

    group = process_group(group_name)
    a = A.reshape(-1, A.shape[-1])
    part = matmul_reduce_scatter(a, B, reduce_op, 0, group_name)
    out = part.new_empty(a.shape[0], B.shape[1])
    direct_collectives.all_gather_into(out, part, group)
    return out.view(*A.shape[:-1], B.shape[1])

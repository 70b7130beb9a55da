"""Paged-KV decode attention in the style of vLLM: one (sequence, head) per
program, the KV cache read block by block through a block table."""

import torch
import triton
import triton.language as tl


@triton.jit
def paged_decode_kernel(q_ptr, k_cache_ptr, v_cache_ptr, block_tables_ptr, seq_lens_ptr, out_ptr, scale,
                        stride_qs, stride_qh, stride_kb, stride_kt, stride_kh, stride_bts, max_blocks,
                        HEAD_DIM: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    seq = tl.program_id(0)
    head = tl.program_id(1)
    seq_len = tl.load(seq_lens_ptr + seq)
    offs_d = tl.arange(0, HEAD_DIM)
    offs_t = tl.arange(0, BLOCK_SIZE)
    q = tl.load(q_ptr + seq * stride_qs + head * stride_qh + offs_d).to(tl.float32)
    m = float("-inf")
    l = 0.0
    acc = tl.zeros((HEAD_DIM,), dtype=tl.float32)
    for i in range(0, tl.cdiv(seq_len, BLOCK_SIZE)):
        block = tl.load(block_tables_ptr + seq * stride_bts + i)
        kv = block * stride_kb + offs_t[:, None] * stride_kt + head * stride_kh + offs_d[None, :]
        valid = (i * BLOCK_SIZE + offs_t) < seq_len
        k = tl.load(k_cache_ptr + kv, mask=valid[:, None], other=0.0)
        s = tl.sum(k * q[None, :], axis=1) * scale
        s = tl.where(valid, s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, axis=0))
        p = tl.exp(s - m_new)
        alpha = tl.exp(m - m_new)
        v = tl.load(v_cache_ptr + kv, mask=valid[:, None], other=0.0)
        acc = acc * alpha + tl.sum(p[:, None] * v, axis=0)
        l = l * alpha + tl.sum(p, axis=0)
        m = m_new
    tl.store(out_ptr + seq * stride_qs + head * stride_qh + offs_d, acc / l)


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    seqs, heads, dim, block, blocks = 3, 2, 16, 4, 12  # 12 cache blocks: equal shards for W = 2, 3, 4
    q = torch.randn(seqs, heads, dim, generator=g)
    k_cache = torch.randn(blocks, block, heads, dim, generator=g)
    v_cache = torch.randn(blocks, block, heads, dim, generator=g)
    table = torch.randperm(blocks, generator=g)[: seqs * 2].reshape(seqs, 2).to(torch.int32).contiguous()
    lens = torch.randint(1, 2 * block + 1, (seqs,), generator=g, dtype=torch.int32)
    out = torch.empty(seqs, heads, dim)
    return {
        "kernel": "paged_decode_kernel",
        "grid": (seqs, heads),
        "args": [q, k_cache, v_cache, table, lens, out, dim ** -0.5, q.stride(0), q.stride(1),
                 k_cache.stride(0), k_cache.stride(1), k_cache.stride(2), table.stride(0), 2],
        "kwargs": {"HEAD_DIM": dim, "BLOCK_SIZE": block},
        "outputs": [5],
        "atol": 1e-5,
        "rtol": 1e-5,
    }


def reference(case: dict) -> list:
    q, k_cache, v_cache, table, lens = case["args"][:5]
    scale = case["args"][6]
    out = torch.empty_like(q)
    block = k_cache.shape[1]
    for s in range(q.shape[0]):
        n = int(lens[s])
        k = torch.cat([k_cache[int(b)] for b in table[s]])[:n]
        v = torch.cat([v_cache[int(b)] for b in table[s]])[:n]
        for h in range(q.shape[1]):
            w = torch.softmax((k[:, h] @ q[s, h]) * scale, dim=0)
            out[s, h] = w @ v[:, h]
    assert block * table.shape[1] >= int(lens.max())
    return [out]


# Fusion (test/unit/corpus/test_corpus_fusion.py): all-gather the K cache's blocks.
# The block a program reads comes from the block table (loaded data), so the
# host cannot tell which tile reads which chunk; the kernel can: it waits for
# the chunk holding `block` (dim 0 of the cache, stride stride_kb) before
# each load. The plan names the stride: the address has 4 dims, the plan's
# tensor 2, and without it the analysis refuses to guess which is dim 0.
FUSE = ("all-gather{tensor=k_cache_ptr dim=0 stride=stride_kb}", 1, 0)

"""torchrun script: a Llama-style model (2 layers of GQA attention with RoPE,
SwiGLU MLP and RMSNorm, sequence-parallel activations ``[batch, seq,
hidden]``) trained for a few AdamW steps with torch's own tensor
parallelism and with the port to ``syncopate.tp``, from the same weights
on the same data. Every step's loss, the first step's gradients and the
final weights must agree.

    torchrun --nproc-per-node=W test/e2e/llama_tp.py         # W GPUs, NCCL, bf16
    (CI: two gloo ranks in fp64, test/unit/pytorch/test_llama_tp.py)

The port is what docs/pytorch.md shows: the norms keep torch's
``SequenceParallel`` (with ``use_local_output=True``), q/k/v and gate/up
become one ``SyncopateSharedColwiseParallel`` each, o and down
``SyncopateRowwiseParallel``, and the ``PrepareModuleInput`` gathers go
(the column-wise styles gather their input themselves).

On CPU (gloo) the ops run their unfused path and the comparison is fp64
(1e-9). On GPUs (NCCL) the ops are forced onto the fused path
(``SYNCOPATE_OPS_PATH=fused``) and every call must have taken it; the
comparison is bf16 against bf16 torch TP, so the tolerances are bf16's.
Prints ``LLAMA rank R: ok ...`` or raises.
"""

from __future__ import annotations

import copy
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

LAYERS, STEPS = 2, 4


class Attention(nn.Module):
    def __init__(self, hidden: int, heads: int, kv_heads: int):
        super().__init__()
        self.head_dim = hidden // heads
        self.q_proj = nn.Linear(hidden, heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(hidden, kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(hidden, kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(heads * self.head_dim, hidden, bias=False)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        # the shapes come from the projections: under syncopate.tp they gather the tokens themselves,
        # so ``x`` holds this rank's slice and q, k, v every token (and this rank's heads)
        q, k, v = self.q_proj(x), self.k_proj(x), self.v_proj(x)
        b, s = q.shape[:2]
        q, k, v = (t.view(b, s, -1, self.head_dim).transpose(1, 2) for t in (q, k, v))
        q, k = rotary(q, cos, sin), rotary(k, cos, sin)
        groups = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(groups, dim=1), v.repeat_interleave(groups, dim=1)
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o_proj(o.transpose(1, 2).reshape(b, s, -1))


class Mlp(nn.Module):
    def __init__(self, hidden: int, ffn: int):
        super().__init__()
        self.gate_proj = nn.Linear(hidden, ffn, bias=False)
        self.up_proj = nn.Linear(hidden, ffn, bias=False)
        self.down_proj = nn.Linear(ffn, hidden, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Layer(nn.Module):
    def __init__(self, hidden: int, heads: int, kv_heads: int, ffn: int):
        super().__init__()
        self.input_layernorm = nn.RMSNorm(hidden, eps=1e-6)
        self.self_attn = Attention(hidden, heads, kv_heads)
        self.post_attention_layernorm = nn.RMSNorm(hidden, eps=1e-6)
        self.mlp = Mlp(hidden, ffn)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        x = x + self.self_attn(self.input_layernorm(x), cos, sin)
        return x + self.mlp(self.post_attention_layernorm(x))


class Model(nn.Module):
    def __init__(self, hidden: int, heads: int, kv_heads: int, ffn: int):
        super().__init__()
        self.layers = nn.ModuleList(Layer(hidden, heads, kv_heads, ffn) for _ in range(LAYERS))
        self.norm = nn.RMSNorm(hidden, eps=1e-6)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x, cos, sin)
        return self.norm(x)


def rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return x * cos + rotated * sin


def rope_tables(seq: int, head_dim: int, dtype: torch.dtype, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    inv = 1.0 / 10000 ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
    angles = torch.outer(torch.arange(seq, dtype=torch.float64), inv)
    angles = torch.cat((angles, angles), dim=-1)
    return angles.cos().to(device, dtype), angles.sin().to(device, dtype)


def torch_plan() -> dict:
    """torch's sequence-parallel plan for the model (as torchtitan writes it)."""
    from torch.distributed.tensor import Replicate, Shard
    from torch.distributed.tensor.parallel import (ColwiseParallel, PrepareModuleInput, RowwiseParallel,
                                                   SequenceParallel)

    plan = {"norm": SequenceParallel(use_local_output=True)}
    for i in range(LAYERS):
        plan.update({
            f"layers.{i}.input_layernorm": SequenceParallel(use_local_output=True),
            f"layers.{i}.self_attn": PrepareModuleInput(input_layouts=(Shard(1), None, None),
                                                        desired_input_layouts=(Replicate(), None, None)),
            f"layers.{i}.self_attn.q_proj": ColwiseParallel(),
            f"layers.{i}.self_attn.k_proj": ColwiseParallel(),
            f"layers.{i}.self_attn.v_proj": ColwiseParallel(),
            f"layers.{i}.self_attn.o_proj": RowwiseParallel(output_layouts=Shard(1)),
            f"layers.{i}.post_attention_layernorm": SequenceParallel(use_local_output=True),
            f"layers.{i}.mlp": PrepareModuleInput(input_layouts=(Shard(1),), desired_input_layouts=(Replicate(),)),
            f"layers.{i}.mlp.gate_proj": ColwiseParallel(),
            f"layers.{i}.mlp.up_proj": ColwiseParallel(),
            f"layers.{i}.mlp.down_proj": RowwiseParallel(output_layouts=Shard(1)),
        })
    return plan


def syncopate_plan() -> dict:
    """The same plan ported to syncopate.tp (docs/pytorch.md shows the lines that change)."""
    from torch.distributed.tensor.parallel import SequenceParallel

    from syncopate.tp import SyncopateRowwiseParallel, SyncopateSharedColwiseParallel

    plan = {"norm": SequenceParallel(use_local_output=True)}
    for i in range(LAYERS):
        plan.update({
            f"layers.{i}.input_layernorm": SequenceParallel(use_local_output=True),
            f"layers.{i}.self_attn": SyncopateSharedColwiseParallel(["q_proj", "k_proj", "v_proj"],
                                                                    keep_gathered=True),
            f"layers.{i}.self_attn.o_proj": SyncopateRowwiseParallel(),
            f"layers.{i}.post_attention_layernorm": SequenceParallel(use_local_output=True),
            f"layers.{i}.mlp": SyncopateSharedColwiseParallel(["gate_proj", "up_proj"], keep_gathered=True),
            f"layers.{i}.mlp.down_proj": SyncopateRowwiseParallel(),
        })
    return plan


def full(t: torch.Tensor) -> torch.Tensor:
    return t.full_tensor() if hasattr(t, "full_tensor") else t


def train(model: nn.Module, x: torch.Tensor, target: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
          tokens: int) -> tuple[list[float], dict[str, torch.Tensor]]:
    """STEPS AdamW steps on this rank's token slice; every step's global loss
    (summed over the ranks) and the first step's full gradients."""
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1, foreach=False)
    losses, grads = [], {}
    for step in range(STEPS):
        opt.zero_grad()
        # the mean squared error over every token of every rank: each rank sums its own slice
        loss = (model(x, cos, sin).float() - target.float()).pow(2).sum() / (tokens * x.shape[-1])
        loss.backward()
        total = loss.detach().clone()
        dist.all_reduce(total)
        losses.append(total.item())
        if step == 0:
            grads = {name: full(p.grad).detach().clone() for name, p in model.named_parameters()}
        opt.step()
    return losses, grads


def relative(a: torch.Tensor, b: torch.Tensor) -> float:
    a, b = a.double(), b.double()
    return ((a - b).norm() / b.norm().clamp_min(1e-30)).item()


def main() -> None:
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import parallelize_module

    import syncopate

    gpu = torch.cuda.is_available() and os.environ.get("LLAMA_TP_DEVICE", "cuda") == "cuda"
    if gpu:
        os.environ["SYNCOPATE_OPS_PATH"] = "fused"
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl" if gpu else "gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    device = torch.device("cuda" if gpu else "cpu")
    dtype = torch.bfloat16 if gpu else torch.float64
    # GPU: Llama-like proportions at a size the fused kernels tile; CPU: small, in fp64
    batch, seq, hidden, heads, kv_heads, ffn = (2, 512, 1024, 16, 8, 2816) if gpu else (2, 8 * world, 32, 4 * world, 2 * world, 48)
    mesh = init_device_mesh(device.type, (world,))
    torch.manual_seed(0)
    model = Model(hidden, heads, kv_heads, ffn).to(device, dtype)
    cos, sin = rope_tables(seq, hidden // heads, dtype, device)
    x = torch.randn(batch, seq, hidden, device=device, dtype=dtype)
    target = torch.randn(batch, seq, hidden, device=device, dtype=dtype)
    mine = slice(rank * seq // world, (rank + 1) * seq // world)
    tokens = batch * seq
    reference = parallelize_module(copy.deepcopy(model), mesh, torch_plan())
    ported = parallelize_module(copy.deepcopy(model), mesh, syncopate_plan())
    want_losses, want_grads = train(reference, x[:, mine].contiguous(), target[:, mine].contiguous(), cos, sin, tokens)
    syncopate.stats(reset=True)
    got_losses, got_grads = train(ported, x[:, mine].contiguous(), target[:, mine].contiguous(), cos, sin, tokens)
    counts = syncopate.stats()
    # bf16 against bf16: two summation orders of the same products; fp64: the same sums
    loss_tol, grad_tol, weight_tol = (2e-2, 5e-2, 2e-2) if gpu else (1e-9, 1e-9, 1e-9)
    for step, (got, want) in enumerate(zip(got_losses, want_losses)):
        assert abs(got - want) <= loss_tol * abs(want), f"step {step}: loss {got} != torch TP's {want}"
    assert want_losses[-1] < want_losses[0], f"torch TP did not train: {want_losses}"
    for name, want in want_grads.items():
        err = relative(got_grads[name], want)
        assert err <= grad_tol, f"first step's gradient of {name}: relative error {err:.3g}"
    for (name, got), (_, want) in zip(ported.named_parameters(), reference.named_parameters()):
        err = relative(full(got.detach()), full(want.detach()))
        assert err <= weight_tol, f"{name} after {STEPS} steps: relative error {err:.3g}"
    # one gather and one reduce-scatter per half layer, forward and backward, as torch TP's sequence parallelism:
    # the shared column-wise styles gather q/k/v's (gate/up's) input once and keep it for the backward
    calls = {op: sum(found.values()) for op, found in counts.items()}
    want_calls = {"all_gather_matmul": 4 * LAYERS * STEPS, "matmul_reduce_scatter": 4 * LAYERS * STEPS}
    assert calls == want_calls, f"op calls {calls}, torch TP's collective count {want_calls}"
    if gpu:  # the ops' calls, forward and backward: {op: {"fused": n, "unfused": m}}
        assert counts and all(found["fused"] and not found["unfused"] for found in counts.values()), \
            f"not every op call took the fused path: {counts}"
    print(f"LLAMA rank {rank}: ok (W={world}, {device.type}, {dtype}, losses {['%.6g' % v for v in got_losses]}, "
          f"torch TP {['%.6g' % v for v in want_losses]}, ops {counts})", flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

"""Device probe (not a test): where a tp-layer step's device time goes,
torch TP against syncopate ops (forward + backward, the bench's
Llama-3-70B-shaped layer, 4096 tokens, bf16).

    torchrun --standalone --nproc-per-node=W test/e2e/probes/tp_layer_profile.py [TOKENS]

Each row's output and gradients are checked against torch TP first (the
bench's check). Then rank 0 prints the step's median time (CUDA events,
5 steps) and, from torch.profiler over 3 steps, the CUDA kernels by total
time per step, and the paths the ops took (``syncopate.stats()``, and the
``syncopate`` logger's decisions at INFO).
"""
import collections
import functools
import logging
import os
import sys

import torch
import torch.distributed as dist

from syncopate.bench import tp_layer as t

tokens = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
dist.init_process_group("nccl")
r, W = dist.get_rank(), dist.get_world_size()
if r == 0:
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("syncopate").setLevel(logging.INFO)
name = dist.group.WORLD.group_name
dev, dt, shape = torch.device("cuda"), torch.bfloat16, t.LLAMA3_70B
w = t.make_weights(shape, W, r, dt, dev, 0)
g = torch.Generator(device="cpu").manual_seed(7919 + r)
x = torch.randn(tokens // W, shape.hidden, generator=g).to(device=dev, dtype=dt)
grad = torch.randn(tokens // W, shape.hidden, generator=g).to(device=dev, dtype=dt)
rows = {"torch TP": t.torch_tp(name, W, True), "syncopate ops": t.syncopate_ops(name)}
ref = None
for label, (ag, rs) in rows.items():
    fn = functools.partial(t._step, lambda xs, ws, ag=ag, rs=rs: t.layer(xs, ws, shape, W, ag, rs), x, w, True, grad)
    got = fn()
    if ref is None:
        ref = got
    else:
        bad = t._mismatch(got, ref, 5e-2)
        assert bad is None, bad
    ms = t._time(fn, True, 3, 5)
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize(); dist.barrier()
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
    if r == 0:
        print(f"== {label}: fwd+bwd {ms:.3f} ms per step (W={W}, {tokens} tokens, checked against torch TP)")
        per = collections.Counter()
        for e in p.key_averages():
            if e.device_time_total:
                per[e.key[:100]] += e.device_time_total / 3 / 1e3
        total = sum(per.values())
        print(f"   kernels' device time per step (summed over streams): {total:.3f} ms")
        for k, v in per.most_common(16):
            print(f"   {v:7.3f} ms  {k}")
if r == 0:
    import syncopate
    print("paths:", syncopate.stats() if hasattr(syncopate, "stats") else "")
dist.barrier(); dist.destroy_process_group()

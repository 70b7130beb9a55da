"""Runtime mutation check: sabotage the GPU runtime's launch path and the
fused ops one way at a time and show that the CPU tests notice (the GPU
World runs on recorded streams there: test/unit/runtime/gpu).

    python test/mutation/run_runtime_mutations.py            # every mutation
    python test/mutation/run_runtime_mutations.py -k nccl    # those whose name contains 'nccl'
    python test/mutation/run_runtime_mutations.py --list

Same driver as run_mutations.py (a scratch copy, the named tests run
before and after each mutation); exit status 0 when every mutation was
killed.
"""

from __future__ import annotations

import sys

from run_mutations import Mutation, main

GPU = "test/unit/runtime/gpu"
TOKENS = f"{GPU}/test_gpu_gather_tokens.py"
RECORDS = f"{GPU}/test_gpu_launch_records.py"
OVERHEAD = f"{GPU}/test_gpu_launch_overhead.py"
REPLAY = f"{GPU}/test_gpu_replay.py"
OPS = "test/unit/pytorch/test_fused_ops_cpu.py"

MEMOPS = f"{GPU}/test_gpu_stream_memops.py"

MUTATIONS = [
    # driver stream waits and the communication graph (runtime/gpu/stream_memops.py, rank.py)
    Mutation("driver wait compares for equality", "runtime/gpu/stream_memops.py",
             "CU_STREAM_WAIT_VALUE_GEQ))", "CU_STREAM_WAIT_VALUE_EQ))", pytest=(MEMOPS,)),
    Mutation("driver wait one word off", "runtime/gpu/stream_memops.py",
             "    address = words.data_ptr() + index * words.element_size()",
             "    address = words.data_ptr() + (index + 1) * words.element_size()", pytest=(MEMOPS,)),
    Mutation("full grid not held back behind wait kernels", "runtime/gpu/rank.py",
             "        if cached.ready_first and (sync.spin_limit or not device.memop_waits()):",
             "        if False:", pytest=(OVERHEAD,)),
    Mutation("communication graph's flags never cleared", "runtime/gpu/rank.py",
             "        flags.clear_flags(sync.flags, list(raised), cached.raised_words if raised == cached.raised else None)\n",
             "", pytest=(OVERHEAD,)),
    Mutation("kernel queued before the communication stream joins", "runtime/gpu/rank.py",
             "        w.comm_stream.wait_stream(compute)  # this launch's own rows (and sends) are written\n"
             "        with torch.cuda.stream(w.comm_stream):\n            device.replay(graph)\n"
             "        run(cached.extra, cached.grid)",
             "        run(cached.extra, cached.grid)\n"
             "        w.comm_stream.wait_stream(compute)  # this launch's own rows (and sends) are written\n"
             "        with torch.cuda.stream(w.comm_stream):\n            device.replay(graph)", pytest=(OVERHEAD,)),
    # launch keys and replay keys (runtime/gpu/rank.py, replay.py)
    Mutation("launch key without the data pointer", "runtime/gpu/rank.py",
             "    return (t.data_ptr(), t.shape, t.stride(), t.dtype)", "    return (t.shape, t.stride(), t.dtype)",
             pytest=(RECORDS, REPLAY)),
    Mutation("replay key without the other tensors", "runtime/gpu/rank.py",
             "                others.append(_describe(v))", "                pass",
             pytest=(REPLAY,)),
    Mutation("replays not counted on the host", "runtime/gpu/replay.py",
             "        sync.host_epoch += 1  # the graph counted this launch on the device\n", "",
             pytest=(REPLAY,)),
    Mutation("a repeat replays after its launch tables were dropped", "runtime/gpu/rank.py",
             "            if (graph is None or w.launches.get(key) is not cached or w.spin_limit or sync.spin_limit",
             "            if (graph is None or w.spin_limit or sync.spin_limit", pytest=(OVERHEAD,)),
    Mutation("a repeat replays under a spin limit", "runtime/gpu/rank.py",
             "            if (graph is None or w.launches.get(key) is not cached or w.spin_limit or sync.spin_limit",
             "            if (graph is None or w.launches.get(key) is not cached", pytest=(OVERHEAD,)),
    Mutation("a repeat keyed without tensor addresses", "runtime/fused.py",
             "            key.append((value.data_ptr(), value.shape, value.stride(), value.dtype))",
             "            key.append((value.shape, value.stride(), value.dtype))", pytest=(OVERHEAD,)),
    # flags (runtime/gpu/flags.py, ce.py, rank.py)
    Mutation("captured flags never cleared", "runtime/gpu/flags.py",
             "    if words is not None and indices and words.numel() == len(indices):",
             "    return\n    if words is not None and indices and words.numel() == len(indices):",
             pytest=(TOKENS, OVERHEAD)),
    Mutation("ce flag raised before its copy", "runtime/gpu/ce.py",
             "                    device.copy(c.dst, c.src)\n                    flags.raise_flag(w, sync, c.flag, captured)",
             "                    flags.raise_flag(w, sync, c.flag, captured)\n                    device.copy(c.dst, c.src)",
             pytest=(TOKENS,)),
    Mutation("ce flag raised on the communication stream, not the lane", "runtime/gpu/ce.py",
             "                    flags.raise_flag(w, sync, c.flag, captured)",
             "                    with torch.cuda.stream(w.comm_stream):\n"
             "                        flags.raise_flag(w, sync, c.flag, captured)",
             pytest=(TOKENS,)),
    Mutation("local flags never written", "runtime/gpu/rank.py",
             "                    device.write_value(sync.flags, c.flag, LOCAL_FLAG)", "                    pass",
             pytest=(TOKENS,)),
    Mutation("nccl flags raised before the collectives", "runtime/gpu/rank.py",
             "                for collective in steps.collectives:\n                    collective()\n"
             "                for flag in steps.nccl_flags:\n                    flags.raise_flag(w, sync, flag, captured)",
             "                for flag in steps.nccl_flags:\n                    flags.raise_flag(w, sync, flag, captured)\n"
             "                for collective in steps.collectives:\n                    collective()",
             pytest=(RECORDS,)),
    # gather tokens (runtime/gpu/gather_tokens.py)
    Mutation("reader releases the owner before resetting its ready token", "runtime/gpu/gather_tokens.py",
             "    for owner in owners:\n        words.write_own(w, sync, tokens.ready(owner), 0)\n"
             "    for owner in owners:\n        words.write_peer(w, sync, owner, tokens.released(w.rank), 1)",
             "    for owner in owners:\n        words.write_peer(w, sync, owner, tokens.released(w.rank), 1)\n"
             "    for owner in owners:\n        words.write_own(w, sync, tokens.ready(owner), 0)",
             pytest=(TOKENS,)),
    # captured word writes and batched waits (runtime/gpu/words.py, stream_memops.py, gather_tokens.py)
    Mutation("captured own word copied within this GPU", "runtime/gpu/words.py",
             "        source = w.peer_view(sync.flags, (w.rank + 1) % w.world, \"signal pad\")",
             "        source = sync.flags", pytest=(TOKENS, f"{GPU}/test_gpu_flags.py")),
    Mutation("captured word copied from the wrong constant", "runtime/gpu/words.py",
             "    return CONSTANTS_AT + CONSTANT_VALUES.index(value)", "    return CONSTANTS_AT",
             pytest=(TOKENS, f"{GPU}/test_gpu_flags.py")),
    Mutation("batched waits skip the last word", "runtime/gpu/stream_memops.py",
             "    for index in indices:\n        op = driver.CUstreamBatchMemOpParams()",
             "    for index in indices[:-1]:\n        op = driver.CUstreamBatchMemOpParams()", pytest=(MEMOPS,)),
    Mutation("release tokens awaited for the first reader only", "runtime/gpu/gather_tokens.py",
             "    device.await_tokens(sync, tuple(tokens.released(reader) for reader in readers))",
             "    device.await_tokens(sync, tuple(tokens.released(reader) for reader in readers[:1]))", pytest=(TOKENS,)),
    # nccl (runtime/gpu/nccl.py)
    Mutation("nccl broadcast from this rank, not the owner", "runtime/gpu/nccl.py",
             "dist.broadcast(t, src=r.dst, group=w.nccl_group)", "dist.broadcast(t, src=w.rank, group=w.nccl_group)",
             pytest=(RECORDS,)),
    Mutation("nccl reduce to this rank, not the owner", "runtime/gpu/nccl.py",
             "dist.reduce(t, dst=r.dst, group=w.nccl_group)", "dist.reduce(t, dst=w.rank, group=w.nccl_group)",
             pytest=(RECORDS,)),
    Mutation("NCCL starvation warning dropped", "runtime/gpu/rank.py",
             "            warnings.warn(risk, RuntimeWarning, stacklevel=5)", "            pass",
             pytest=(RECORDS,)),
    # stream wait and staging (runtime/gpu/stream_wait.py, memory.py)
    Mutation("stream wait one below its target", "runtime/gpu/stream_wait.py",
             "tl.maximum(tl.load(epoch_ptr) * count, least)", "tl.maximum(tl.load(epoch_ptr) * count - 1, least)",
             pytest=(RECORDS,)),
    Mutation("staging key without dtype", "runtime/gpu/memory.py",
             "tuple(out.shape[1:]), out.dtype)", "tuple(out.shape[1:]))",
             pytest=(f"{GPU}/test_gpu_warm.py",)),
    # the fused ops (pytorch/fused_ops.py)
    Mutation("all_gather_matmul skips the copy of A_shard", "pytorch/fused_ops.py",
             "    gathered[rank * m:(rank + 1) * m].copy_(A_shard.reshape(m, K))", "    pass",
             pytest=(OPS,)),
    Mutation("matmul_reduce_scatter returns rank 0's rows", "pytorch/fused_ops.py",
             "    out = c[rank * rows:(rank + 1) * rows]", "    out = c[0:rows]",
             pytest=(OPS,)),
]


if __name__ == "__main__":
    sys.exit(main(mutations=MUTATIONS, doc=__doc__))

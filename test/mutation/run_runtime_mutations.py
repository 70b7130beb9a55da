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
REPLAYED = "test/unit/pytorch/test_replayed_ops.py"
OP_PATH = "test/unit/pytorch/test_op_path.py"
DIRECT = "test/unit/pytorch/test_direct_collectives.py"

MEMOPS = f"{GPU}/test_gpu_stream_memops.py"
STAGING = f"{GPU}/test_gpu_staging_tokens.py"
MEMORY = f"{GPU}/test_gpu_memory_bound.py"
CE_JOIN = f"{GPU}/test_gpu_ce_join.py"
NODE_ARGS = f"{GPU}/test_gpu_kernel_node_args.py"

MUTATIONS = [
    # an eager launch of a captured pad counts on the device and raises graph flags (no sync)
    Mutation("eager launch of a captured pad raises the host's count", "runtime/gpu/flags.py",
             "    capturing = torch.cuda.is_current_stream_capturing() or sync.captured\n",
             "    capturing = torch.cuda.is_current_stream_capturing()\n", pytest=(f"{GPU}/test_gpu_flags.py", MEMORY)),
    Mutation("eager launch of a captured pad writes the host's epoch", "runtime/gpu/flags.py",
             "    if sync.captured:\n        device.add_epoch(sync.epoch)\n        return\n", "",
             pytest=(f"{GPU}/test_gpu_flags.py", MEMORY)),
    # produced flags count one launch's tile signals, so configurations of other tiles share a pad
    Mutation("produced flags never zeroed", "runtime/gpu/reduce_scatter.py",
             "    reset_counts(sync.flags, steps)\n", "", pytest=(STAGING, MEMORY)),
    Mutation("produced flags zeroed before the waits", "runtime/gpu/reduce_scatter.py",
             "    if steps.sends or steps.arrivals:\n",
             "    reset_counts(sync.flags, steps)\n    if steps.sends or steps.arrivals:\n", pytest=(STAGING,)),
    Mutation("pad key without who sends partials", "runtime/gpu/rank.py",
             "launch.flag_count, tuple(sorted(c.flag for c in chunks)), local, senders)",
             "launch.flag_count, tuple(sorted(c.flag for c in chunks)), local, ())", pytest=(OVERHEAD,)),
    Mutation("launch tables uploaded with a stream synchronisation", "runtime/uploads.py",
             "    return torch.tensor(values, dtype=dtype).to(device, non_blocking=True)",
             "    return torch.tensor(values, dtype=dtype, device=device)", pytest=(OVERHEAD,)),
    # driver stream waits and the communication graph (runtime/gpu/stream_memops.py, rank.py)
    Mutation("driver wait compares for equality", "runtime/gpu/stream_memops.py",
             "CU_STREAM_WAIT_VALUE_GEQ))", "CU_STREAM_WAIT_VALUE_EQ))", pytest=(MEMOPS,)),
    Mutation("driver wait one word off", "runtime/gpu/stream_memops.py",
             "    _wait(words.data_ptr() + index * words.element_size(), value, f\"pad word {index}\")",
             "    _wait(words.data_ptr() + (index + 1) * words.element_size(), value, f\"pad word {index}\")",
             pytest=(MEMOPS,)),
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
    # graphs rewritten for new addresses of the other tensors (runtime/gpu/replay.py, kernel_node_args.py)
    Mutation("a rewritten graph ignores a pointer's alignment", "runtime/gpu/replay.py",
             "ptr % 16 == 0) for ptr,", "True) for ptr,", pytest=(REPLAY,)),
    Mutation("a rewritten graph still replays for its old key", "runtime/gpu/replay.py",
             "        self.graphs.pop(kept.key, None)\n", "", pytest=(REPLAY,)),
    Mutation("tensors that shared an argument are rewritten apart", "runtime/gpu/kernel_node_args.py",
             "            if len({addresses[i] for i in held}) > 1:", "            if False:", pytest=(NODE_ARGS,)),
    Mutation("a graph whose arguments cannot all be read is rewritten anyway", "runtime/gpu/kernel_node_args.py",
             "        if site is False:\n            return None\n", "", pytest=(NODE_ARGS,)),
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
             "            append((value.data_ptr(), value.shape, value.stride(), value.dtype))",
             "            append((value.shape, value.stride(), value.dtype))", pytest=(OVERHEAD,)),
    Mutation("a repeat keyed without the type of a plain value", "runtime/fused.py",
             "            append((kind, value))", "            append(value)", pytest=(OVERHEAD,)),
    Mutation("every row count gets its own pad again", "runtime/gpu/rank.py",
             "config[0], launch.flag_count, tuple(", "config[0], launch.flag_count, launch.tiles, tuple(",
             pytest=(OVERHEAD,)),
    # flags (runtime/gpu/flags.py, ce.py, rank.py)
    Mutation("captured flags never cleared", "runtime/gpu/flags.py",
             "    if words is not None and indices and words.numel() == len(indices):",
             "    return\n    if words is not None and indices and words.numel() == len(indices):",
             pytest=(TOKENS, OVERHEAD)),
    Mutation("ce flag raised before its copy", "runtime/gpu/ce.py",
             "                    device.copy(c.dst, c.src)\n                    flags.raise_flags(sync.flags, c.flags, sync, captured, c.words)",
             "                    flags.raise_flags(sync.flags, c.flags, sync, captured, c.words)\n                    device.copy(c.dst, c.src)",
             pytest=(TOKENS,)),
    Mutation("joined ce copy covers only its first chunk", "runtime/gpu/ce.py",
             "    return a.as_strided((a.numel() + b.numel(),), (1,), a.storage_offset())",
             "    return a.as_strided((a.numel(),), (1,), a.storage_offset())", pytest=(TOKENS, CE_JOIN)),
    Mutation("joined ce copy raises only its first chunk's flag", "runtime/gpu/ce.py",
             "    return Copy(a.ready, dst, src, a.flags + b.flags)", "    return Copy(a.ready, dst, src, a.flags)",
             pytest=(TOKENS, CE_JOIN)),
    Mutation("ce flags raised by a kernel although the grid fills every SM", "runtime/gpu/rank.py",
             "        kernel_flags = math.prod(grid) < sms and not torch.cuda.is_current_stream_capturing()",
             "        kernel_flags = not torch.cuda.is_current_stream_capturing()", pytest=(OVERHEAD,)),
    Mutation("chunks joined across a ready-token wait", "runtime/gpu/ce.py",
             "    if b.ready is not None or a.dst.nbytes + b.dst.nbytes > limit:",
             "    if a.dst.nbytes + b.dst.nbytes > limit:", pytest=(TOKENS, CE_JOIN)),
    Mutation("ce flag raised on the communication stream, not the lane", "runtime/gpu/ce.py",
             "                    flags.raise_flags(sync.flags, c.flags, sync, captured, c.words)",
             "                    with torch.cuda.stream(w.comm_stream):\n"
             "                        flags.raise_flags(sync.flags, c.flags, sync, captured, c.words)",
             pytest=(TOKENS,)),
    Mutation("local flags never written", "runtime/gpu/rank.py",
             "                    device.write_value(sync.flags, c.flag, LOCAL_FLAG)", "                    pass",
             pytest=(TOKENS,)),
    Mutation("nccl flags raised before the collectives", "runtime/gpu/rank.py",
             "                for collective in steps.collectives:\n                    collective()\n"
             "                for flag in steps.nccl_flags:\n                    flags.raise_flag(sync.flags, flag, sync, captured)",
             "                for flag in steps.nccl_flags:\n                    flags.raise_flag(sync.flags, flag, sync, captured)\n"
             "                for collective in steps.collectives:\n                    collective()",
             pytest=(RECORDS,)),
    # gather tokens (runtime/gpu/gather_tokens.py)
    Mutation("reader releases the owner before resetting its ready token", "runtime/gpu/gather_tokens.py",
             "    device.token_ops(sync, tuple((\"write\", sync.flags, tokens.ready(owner), 0) for owner in owners) +\n"
             "                     tuple((\"write\", w.peer_view(sync.flags, owner, \"signal pad\"), tokens.released(w.rank), 1)\n"
             "                           for owner in owners))",
             "    device.token_ops(sync, tuple((\"write\", w.peer_view(sync.flags, owner, \"signal pad\"), tokens.released(w.rank), 1)\n"
             "                                 for owner in owners) +\n"
             "                     tuple((\"write\", sync.flags, tokens.ready(owner), 0) for owner in owners))",
             pytest=(TOKENS,)),
    # batched token operations (runtime/gpu/stream_memops.py, gather_tokens.py, reduce_scatter.py)
    Mutation("batched operations skip the last one", "runtime/gpu/stream_memops.py",
             "    for kind, address, value in ops:\n        op = driver.CUstreamBatchMemOpParams()",
             "    for kind, address, value in ops[:-1]:\n        op = driver.CUstreamBatchMemOpParams()",
             pytest=(MEMOPS,)),
    Mutation("batched writes sent as waits", "runtime/gpu/stream_memops.py",
             "        if kind == \"wait\":\n            op.waitValue.operation", "        if True:\n            op.waitValue.operation",
             pytest=(MEMOPS,)),
    Mutation("release tokens awaited for the first reader only", "runtime/gpu/gather_tokens.py",
             "    device.token_ops(sync, tuple((\"wait\", sync.flags, tokens.released(reader), 1) for reader in readers) +",
             "    device.token_ops(sync, tuple((\"wait\", sync.flags, tokens.released(reader), 1) for reader in readers[:1]) +",
             pytest=(TOKENS,)),
    Mutation("ready tokens announced after the waits", "runtime/gpu/gather_tokens.py",
             "                                 for reader in readers) +\n"
             "                     tuple((\"wait\", sync.flags, tokens.ready(owner), 1) for owner in owners))",
             "                                 for reader in readers[:0]) +\n"
             "                     tuple((\"wait\", sync.flags, tokens.ready(owner), 1) for owner in owners))",
             pytest=(TOKENS,)),
    Mutation("tile waits one below their count", "runtime/gpu/reduce_scatter.py",
             "counts.get((c.plan, c.id), 0)) for c in mine", "counts.get((c.plan, c.id), 0) - 1) for c in mine",
             pytest=(RECORDS, OVERHEAD, f"{GPU}/test_gpu_reduce_order.py")),
    Mutation("tile waits dropped before a send", "runtime/gpu/reduce_scatter.py",
             "                        device.token_ops(sync, send.tiles)\n", "",
             pytest=(RECORDS, OVERHEAD, f"{GPU}/test_gpu_reduce_order.py")),
    Mutation("staging tokens taken before they are there", "runtime/gpu/reduce_scatter.py",
             "    device.token_ops(sync, tuple((\"wait\", flags_, word, 1) for word in steps.takes) +",
             "    device.token_ops(sync, tuple((\"wait\", flags_, word, 1) for word in steps.takes[:0]) +",
             pytest=(f"{GPU}/test_gpu_staging_tokens.py",)),
    # nccl (runtime/gpu/nccl.py)
    Mutation("nccl broadcast from this rank, not the owner", "runtime/gpu/nccl.py",
             "lambda t, src=w.global_rank(r.dst):", "lambda t, src=w.global_rank(w.rank):",
             pytest=(RECORDS,)),
    Mutation("nccl reduce to this rank, not the owner", "runtime/gpu/nccl.py",
             "lambda t, dst=w.global_rank(r.dst):", "lambda t, dst=w.global_rank(w.rank):",
             pytest=(RECORDS,)),
    Mutation("nccl names a sub-group's peers by group rank", "runtime/gpu/world.py",
             "        return rank if group is None else dist.get_global_rank(group, rank)", "        return rank",
             pytest=(RECORDS,)),
    Mutation("barrier on the default group", "runtime/gpu/world.py",
             "        dist.barrier(group=self.group, device_ids=[self.device.index])",
             "        dist.barrier(device_ids=[self.device.index])", pytest=(RECORDS,)),
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
             "    gathered[rank * m:(rank + 1) * m].view(front.shape).copy_(front)", "    pass",
             pytest=(OPS,)),
    Mutation("matmul_reduce_scatter returns rank 0's rows", "pytorch/fused_ops.py",
             "    mine = c.view(blocks, M // blocks, N)[:, rank * rows:(rank + 1) * rows]",
             "    mine = c.view(blocks, M // blocks, N)[:, 0:rows]",
             pytest=(OPS,)),
    # the replayed path and the collectives' options (pytorch/replayed_ops.py, op_path.py, direct_collectives.py)
    Mutation("a replay returns its static output", "pytorch/replayed_ops.py",
             "    outs = [out.view(*shape[:-1], -1).clone() for out in replay.static_out]",
             "    outs = [out.view(*shape[:-1], -1) for out in replay.static_out]", pytest=(REPLAYED,)),
    Mutation("a replay skips the copy of its input", "pytorch/replayed_ops.py",
             "    replay.static_in.copy_(A)\n    replay.graph.replay()\n    shape = [*A.shape[:-1], B.shape[1]]",
             "    replay.graph.replay()\n    shape = [*A.shape[:-1], B.shape[1]]", pytest=(REPLAYED,)),
    Mutation("the replay key without the weights' addresses", "pytorch/replayed_ops.py",
             "t.data_ptr() if address else None", "None", pytest=(REPLAYED,)),
    Mutation("a graph replayed inside the caller's capture", "pytorch/replayed_ops.py",
             "    if torch.cuda.is_current_stream_capturing():\n        return None\n    replay = _GRAPHS.get(key)",
             "    replay = _GRAPHS.get(key)", pytest=(REPLAYED,)),
    Mutation("graphs kept through destroy_process_group", "pytorch/replayed_ops.py",
             "        clear()\n        return original(*args, **kwargs)", "        return original(*args, **kwargs)",
             pytest=(REPLAYED,)),
    Mutation("the replay never measured", "pytorch/op_path.py",
             '**({"replayed": replayed} if replayed else {})', "", pytest=(OP_PATH,)),
    Mutation("collectives issued as asynchronous ops", "runtime/gpu/direct_collectives.py",
             "        opts.asyncOp = False", "        pass", pytest=(DIRECT,)),
]


if __name__ == "__main__":
    sys.exit(main(mutations=MUTATIONS, doc=__doc__))

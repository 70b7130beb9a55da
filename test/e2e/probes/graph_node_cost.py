"""Device probe (not a test): host time of one CUDA-graph launch, by the kind
and number of nodes the graph holds, on one GPU.

    python test/e2e/probes/graph_node_cost.py

Each graph is captured once and replayed ``LAUNCHES`` times per round
without synchronising; the median over ``ROUNDS`` rounds of the host time
per replay is printed for graphs of 1 to 32 nodes of one kind. Node kinds:
a small kernel, a stream write (``cuStreamWriteValue32``), a satisfied stream
wait, a batch of 8 stream operations (``cuStreamBatchMemOp``), and copies
within the GPU. A kind whose cost grows with the node count is processed by
the host at every replay (runtime/gpu/stream_memops.py says why the tokens
go in batches). It also checks that a batch runs in order: a write after a
wait stays undone until the wait is satisfied.
"""

from __future__ import annotations

import os
import statistics
import time

import torch
from cuda.bindings import driver

LAUNCHES, ROUNDS = int(os.environ.get("LAUNCHES", "50")), int(os.environ.get("ROUNDS", "7"))
COUNTS = (1, 4, 8, 16, 32)


def main() -> None:
    words = torch.ones(4096, dtype=torch.int32, device="cuda")
    tiny = torch.zeros(16, device="cuda")
    src, dst = torch.randn(32768, device="cuda"), torch.empty(32768 * 32, device="cuda")
    geq = int(driver.CUstreamWaitValue_flags.CU_STREAM_WAIT_VALUE_GEQ)

    def stream() -> driver.CUstream:
        return driver.CUstream(torch.cuda.current_stream().cuda_stream)

    def address(i: int) -> driver.CUdeviceptr:
        return driver.CUdeviceptr(words.data_ptr() + 4 * i)

    def batch(ops: list[tuple[str, int, int]]) -> None:
        params = []
        for kind, i, v in ops:
            p = driver.CUstreamBatchMemOpParams()
            part = p.waitValue if kind == "wait" else p.writeValue
            part.operation = (driver.CUstreamBatchMemOpType.CU_STREAM_MEM_OP_WAIT_VALUE_32 if kind == "wait"
                              else driver.CUstreamBatchMemOpType.CU_STREAM_MEM_OP_WRITE_VALUE_32)
            part.address, part.value, part.flags = address(i), v, geq if kind == "wait" else 0
            params.append(p)
        assert driver.cuStreamBatchMemOp(stream(), len(params), params, 0)[0] == 0

    kinds = {
        "kernel": lambda j: tiny.add_(1),
        "stream write": lambda j: driver.cuStreamWriteValue32(stream(), address(j), 1, 0),
        "stream wait": lambda j: driver.cuStreamWaitValue32(stream(), address(j), 1, geq),
        "batch of 8 writes": lambda j: batch([("write", 8 * j + k, 1) for k in range(8)]),
        "copy 128 KiB (same GPU)": lambda j: dst[j * 32768:(j + 1) * 32768].copy_(src, non_blocking=True),
    }
    print(f"host us per graph replay, by node kind and count ({torch.cuda.get_device_name()})")
    print(f"{'node kind':26}" + "".join(f"{n:>8}" for n in COUNTS))
    for name, op in kinds.items():
        row = [host_us(capture(lambda op=op, n=n: [op(j) for j in range(n)]).replay) for n in COUNTS]
        print(f"{name:26}" + "".join(f"{t:8.1f}" for t in row), flush=True)
    words[100:102] = 0
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        batch([("wait", 100, 1), ("write", 101, 7)])
    time.sleep(0.1)
    before = int(words[101].item())  # reads on the default stream, which does not wait for side
    driver.cuStreamWriteValue32(stream(), address(100), 1, 0)
    side.synchronize()
    print(f"batch order: write behind an unsatisfied wait {'held' if before == 0 else 'NOT held'}, "
          f"done after it: {int(words[101].item()) == 7}")


def capture(issue) -> torch.cuda.CUDAGraph:
    graph, side = torch.cuda.CUDAGraph(), torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        graph.capture_begin(capture_error_mode="thread_local")
        issue()
        graph.capture_end()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    return graph


def host_us(launch) -> float:
    for _ in range(5):
        launch()
    torch.cuda.synchronize()
    times = []
    for _ in range(ROUNDS):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(LAUNCHES):
            launch()
        times.append((time.perf_counter() - t0) / LAUNCHES * 1e6)
        torch.cuda.synchronize()
    return statistics.median(times)


if __name__ == "__main__":
    main()

"""overlap-bench: syncopate's fused kernels against the baselines, on GPUs.

One module per job:

``shapes``     the workloads and the shape table (global sizes, per-rank sizes, labels)
``configs``    GEMM block sizes per shape (a default table plus a per-shape hook)
``context``    the bench's view of the ranks (GPU under torchrun, or one gloo rank on the CPU)
``problem``    per-rank random inputs and fp32 references
``comm``       the NCCL collectives of the baselines
``gemm``       launching the local Triton GEMM (``kernels/gemm_bf16.py``)
``variants``   what one benchmarked row is (:class:`Variant`) and the row names
``baselines``  cuBLAS+NCCL, cuBLAS+CE, async-TP (both modes), Triton+NCCL, compute alone, communication alone
``ce``         the copy-engine all-gather of the cuBLAS+CE and CE alone rows
``fused``      syncopate's fused rows, one per backend x tile order (:func:`fused_variants`)
``headline``   the confirmation run's row per shape, chosen before timing
``check``      the scaled reference check and output poisoning
``timing``     CUDA-event (or host) timing: warm-up, median of many iterations
``runner``     check-then-time every variant of one case (shuffled round-robin), agree across ranks
``report``     tables, speedups, efficiency, CSV and JSON
``plot``       the bar chart PNG
``autotune``   the cache of the best (backend, order) per workload/shape/world/device

``tools/overlap_bench.py`` is the command line. Nothing here imports Triton
at import time, so ``--cpu`` can set ``TRITON_INTERPRET=1`` first.
"""

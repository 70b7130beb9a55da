"""The test harness of fused kernels: workload files (``workload``; their
authors import it as ``syncopate.runtime.workload``), the simulated-rank
check against the unfused reference (``check``) and its GPU counterpart
(``check_gpu``), which ``overlap-run`` and the test suites drive."""

# -t triton prints Triton only for a kernel whose chunk ops are lowered:
# after insert-signals alone the kernel holds chunk.wait_span, and the error
# names the pass that lowers it; with lower-chunk-to-tile at the end the same
# pipeline emits, and an analysis alone (attributes, no ops) emits as well.
# RUN: not overlap-opt %S/../../examples/ag_gemm.py --plan 'all-gather{tensor=a_ptr dim=0 world=2}' -p chunk-dependency-analysis,insert-signals -t triton 2>&1 | filecheck %s --check-prefix=UNLOWERED
# RUN: overlap-opt %S/../../examples/ag_gemm.py --plan 'all-gather{tensor=a_ptr dim=0 world=2}' -p chunk-dependency-analysis,insert-signals,lower-chunk-to-tile -t triton | filecheck %s --check-prefix=LOWERED
# RUN: overlap-opt %S/../../examples/ag_gemm.py --plan 'all-gather{tensor=a_ptr dim=0 world=2}' -p chunk-dependency-analysis -t triton | filecheck %s --check-prefix=ANALYSED

# UNLOWERED: overlap-opt: error: the kernel still holds chunk.wait_span, which only lower-chunk-to-tile turns into Triton: end the pipeline with it (the overlap pipeline does)
# LOWERED: def gemm_kernel(
# LOWERED: syn_wait_span(
# ANALYSED: def gemm_kernel(
# ANALYSED-NOT: syn_wait_span

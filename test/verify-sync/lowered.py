# verify-sync checks chunk span ops; after lower-chunk-to-tile they are helper
# calls over runtime tables, so a lowered kernel is refused, not passed.
# RUN: not overlap-opt %S/../../examples/ag_gemm.py --plan 'all-gather{tensor=a_ptr dim=0 world=2}' -p 'overlap,verify-sync' 2>&1 | filecheck %s

# CHECK: overlap-opt: error: verify-sync: @gemm_kernel is already lowered (its waits and signals are helper calls); run verify-sync before lower-chunk-to-tile

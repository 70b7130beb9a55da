// The cost model's sizes and rates must be positive: elem_bytes=0 made every chunk 0 bytes (and negative ones
// negative), so the backend was chosen from nonsense; each is refused, naming the option, through overlap too.
// RUN: not overlap-opt %S/cost-model.mlir -p 'select-backend{sizes="M=64,K=64" elem_bytes=0}' 2>&1 | filecheck %s --check-prefix=ZERO
// RUN: not overlap-opt %S/cost-model.mlir -p 'select-backend{elem_bytes=-2}' 2>&1 | filecheck %s --check-prefix=NEG
// RUN: not overlap-opt %S/cost-model.mlir -p 'select-backend{sms=0}' 2>&1 | filecheck %s --check-prefix=SMS
// RUN: not overlap-opt %S/cost-model.mlir -p 'select-backend{link_gbps=0.0}' 2>&1 | filecheck %s --check-prefix=LINK
// RUN: not overlap-opt %S/../../examples/ag_gemm.py --plan 'all-gather{tensor=a_ptr world=2}' -p 'overlap{elem_bytes=0}' 2>&1 | filecheck %s --check-prefix=ZERO

// ZERO: overlap-opt: error: select-backend: elem_bytes must be a positive number, got 0
// NEG: overlap-opt: error: select-backend: elem_bytes must be a positive number, got -2
// SMS: overlap-opt: error: select-backend: sms must be a positive number, got 0
// LINK: overlap-opt: error: select-backend: link_gbps must be a positive number, got 0.0

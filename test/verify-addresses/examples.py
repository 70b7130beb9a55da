# verify-addresses on the examples, after the placing passes of the default
# pipeline: every access of a planned tensor is proved covered (strict=true
# passes), through a wait before the K loop (ag_gemm), a chunk.wait_span_loop
# per K block (ag_gemm_k) and a signal after the store (gemm_rs).
# RUN: overlap-opt %S/../../examples/ag_gemm.py --plan 'all-gather{tensor=a_ptr dim=0 world=2}' -p 'chunk-dependency-analysis,tile-reorder{order=arrival group=8},insert-signals,select-backend,verify-addresses{strict=true}' | filecheck %s --check-prefix=AG
# RUN: overlap-opt %S/../../examples/ag_gemm_k.py --plan 'all-gather{tensor=a_ptr dim=1 size=K world=2}' -p 'chunk-dependency-analysis,tile-reorder{order=arrival group=8},insert-signals,select-backend,verify-addresses{strict=true}' | filecheck %s --check-prefix=AGK
# RUN: overlap-opt %S/../../examples/gemm_rs.py --plan 'reduce-scatter{tensor=c_ptr dim=0 world=2}' -p 'chunk-dependency-analysis,tile-reorder{order=arrival group=8},insert-signals,select-backend,verify-addresses{strict=true}' | filecheck %s --check-prefix=RS
#
# The same modules made wrong by hand, read back as IR: the wait deleted, the
# wait shifted one tile down (lo + BLOCK_M), the signal deleted, and the loop
# wait's lo replaced by BLOCK_K (no longer first + iteration * step, so it
# covers nothing). Each is refused, naming the access's source line.
# RUN: overlap-opt %S/../../examples/ag_gemm.py --plan 'all-gather{tensor=a_ptr dim=0 world=2}' -p 'chunk-dependency-analysis,tile-reorder{order=arrival group=8},insert-signals,select-backend' --print-debuginfo | sed '/chunk.wait_span/d' | not overlap-opt -f mlir -p verify-addresses 2>&1 | filecheck %s --check-prefix=NOWAIT
# RUN: overlap-opt %S/../../examples/ag_gemm.py --plan 'all-gather{tensor=a_ptr dim=0 world=2}' -p 'chunk-dependency-analysis,tile-reorder{order=arrival group=8},insert-signals,select-backend' --print-debuginfo | sed 's/^\( *\)chunk.wait_span \(%[0-9a-z_]*\), \(%[0-9a-z_]*\) plan @ag/\1%moved = tile.add \2, %BLOCK_M : i32, !tile.constexpr -> i32\n\1chunk.wait_span %moved, \3 plan @ag/' | not overlap-opt -f mlir -p verify-addresses 2>&1 | filecheck %s --check-prefix=SHIFT
# RUN: overlap-opt %S/../../examples/gemm_rs.py --plan 'reduce-scatter{tensor=c_ptr dim=0 world=2}' -p 'chunk-dependency-analysis,tile-reorder{order=arrival group=8},insert-signals,select-backend' --print-debuginfo | sed '/chunk.signal_span/d' | not overlap-opt -f mlir -p verify-addresses 2>&1 | filecheck %s --check-prefix=NOSIGNAL
# RUN: overlap-opt %S/../../examples/ag_gemm_k.py --plan 'all-gather{tensor=a_ptr dim=1 size=K world=2}' -p 'chunk-dependency-analysis,tile-reorder{order=arrival group=8},insert-signals,select-backend' --print-debuginfo | sed 's/chunk.wait_span_loop %k0, %BLOCK_K first \(%[0-9]*\) step \(%[0-9]*\)/chunk.wait_span_loop \2, %BLOCK_K first \1 step \2/' | not overlap-opt -f mlir -p verify-addresses 2>&1 | filecheck %s --check-prefix=LOOP

# AG:  chunk.wait_span {{.*}} plan @ag tensor "a_ptr"
# AGK: chunk.wait_span_loop %k0, %BLOCK_K
# RS:  chunk.signal_span {{.*}} plan @rs tensor "c_ptr"

# NOWAIT:   verify-addresses: ag_gemm.py:22: 'tile.load' is uncovered: reads rows [BLOCK_M*{{.*}}) of 'a_ptr' (plan @ag); waits that dominate it: none; row BLOCK_M*{{.*}} is outside all of them
# SHIFT:    verify-addresses: ag_gemm.py:22: 'tile.load' is uncovered: {{.*}} waits that dominate it: [BLOCK_M*{{[a-z0-9_]*}} + BLOCK_M, {{.*}}); row BLOCK_M*{{[a-z0-9_]*}} is outside all of them
# NOSIGNAL: verify-addresses: gemm_rs.py:28: 'tile.store' is uncovered: writes rows [BLOCK_M*{{.*}}) of 'c_ptr' (plan @rs); signals that follow it: none
# LOOP:     verify-addresses: ag_gemm_k.py:26: 'tile.load' is uncovered: reads rows [BLOCK_K*iv0, {{.*}}); waits that dominate it: none; row BLOCK_K*iv0 is outside all of them

# The inputs of insert-signals' own tests, through insert-signals then
# verify-sync: wrapped offsets (two waits, one for the rows past M),
# loop-carried pointers walked per iteration, a persistent kernel's tile loop
# (waits and signals once per tile), deduplicated waits, and clamped or
# redirected rows (`tl.minimum`, `tl.where`: a wait per range) all verify.
# RUN: overlap-opt %S/../insert-signals/carried-and-wrapped.py --kernel mm --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p 'insert-signals,verify-sync' | filecheck %s --check-prefix=WRAP
# RUN: overlap-opt %S/../insert-signals/carried-and-wrapped.py --kernel mm --plan 'all-gather{tensor=a_ptr dim=1 size=K world=2}' -p 'insert-signals,verify-sync' | filecheck %s --check-prefix=WALK
# RUN: overlap-opt %S/../insert-signals/persistent-store.py --plan 'reduce-scatter{tensor=c_ptr world=2 size=M}' -p 'chunk-dependency-analysis,insert-signals,verify-sync' | filecheck %s --check-prefix=PERSISTENT
# RUN: overlap-opt %S/../insert-signals/dedup.py --plan 'all-gather{tensor=x_ptr world=2}' -p 'insert-signals,verify-sync' | filecheck %s --check-prefix=DEDUP
# RUN: overlap-opt %S/../insert-signals/clamped.py --kernel upper --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p 'insert-signals,verify-sync' | filecheck %s --check-prefix=CLAMP
# RUN: overlap-opt %S/../insert-signals/clamped.py --kernel where_lt --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p 'insert-signals,verify-sync' | filecheck %s --check-prefix=WHERE
# RUN: overlap-opt %S/../insert-signals/clamped.py --kernel upper --plan 'reduce-scatter{tensor=c_ptr dim=0 size=M world=2}' -p 'insert-signals,verify-sync' | filecheck %s --check-prefix=CLAMP-SIGNAL
# RUN: overlap-opt %S/../insert-signals/clamped.py --kernel looped --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p 'insert-signals,verify-sync' | filecheck %s --check-prefix=CLAMP-LOOP
# The same inputs with their waits dropped are refused.
# RUN: not overlap-opt %S/../insert-signals/carried-and-wrapped.py --kernel mm --plan 'all-gather{tensor=a_ptr dim=1 size=K world=2}' -p 'insert-signals{waits=false},verify-sync' 2>&1 | filecheck %s --check-prefix=NOWAIT

# WRAP-COUNT-2: chunk.wait_span {{.*}} plan @ag tensor "a_ptr"
# WALK:         chunk.wait_span_loop {{.*}} plan @ag tensor "a_ptr"
# PERSISTENT:   chunk.signal_span {{.*}} plan @rs tensor "c_ptr"
# DEDUP:        chunk.wait_span {{.*}} plan @ag tensor "x_ptr"
# CLAMP:        chunk.wait_span {{.*}} plan @ag tensor "a_ptr"
# WHERE-COUNT-2: chunk.wait_span {{.*}} plan @ag tensor "a_ptr"
# CLAMP-SIGNAL: chunk.signal_span {{.*}} plan @rs tensor "c_ptr"
# CLAMP-LOOP:   chunk.wait_span {{.*}} plan @ag tensor "a_ptr"
# NOWAIT:       overlap-opt: error: verify-sync: carried-and-wrapped.py:{{[0-9]+}}: 'tile.load' reads {{.*}} along dim 1 of 'a_ptr' (plan @ag), but no chunk.wait_span before it covers them on every path (waits that dominate it: none)

# Every example, through the default pipeline up to lower-chunk-to-tile and
# printed, verifies when verify-sync reads it back on its own; verify-sync
# rewrites nothing, so the waits and signals come out as they went in.
# RUN: overlap-opt %S/../../examples/ag_gemm.py --plan 'all-gather{tensor=a_ptr dim=0 world=2}' -p 'chunk-dependency-analysis,tile-reorder{order=arrival group=8},insert-signals,select-backend' | overlap-opt -f mlir -p verify-sync | filecheck %s --check-prefix=AG
# RUN: overlap-opt %S/../../examples/ag_gemm_k.py --plan 'all-gather{tensor=a_ptr dim=1 size=K world=2}' -p 'chunk-dependency-analysis,tile-reorder{order=arrival group=8},insert-signals,select-backend' | overlap-opt -f mlir -p verify-sync | filecheck %s --check-prefix=AGK
# RUN: overlap-opt %S/../../examples/ag_gemm_persistent.py --plan 'all-gather{tensor=a_ptr dim=0 world=2}' -p 'chunk-dependency-analysis,tile-reorder{order=arrival group=8},insert-signals,select-backend' | overlap-opt -f mlir -p verify-sync | filecheck %s --check-prefix=AGP
# RUN: overlap-opt %S/../../examples/a2a_grouped_gemm.py --plan 'all-to-all{tensor=x_ptr dim=0 world=2 splits=3,1,2,2}' -p 'chunk-dependency-analysis,tile-reorder{order=arrival group=8},insert-signals,select-backend' | overlap-opt -f mlir -p verify-sync | filecheck %s --check-prefix=A2A
# RUN: overlap-opt %S/../../examples/attention_ag_kv.py --plan 'all-gather{tensor=k_ptr dim=0 world=2 size=N_KV name=agk}' --plan 'all-gather{tensor=v_ptr dim=0 world=2 size=N_KV name=agv}' -p 'chunk-dependency-analysis,tile-reorder{order=arrival group=8},insert-signals,select-backend' | overlap-opt -f mlir -p verify-sync | filecheck %s --check-prefix=ATT
# RUN: overlap-opt %S/../../examples/gemm_rs.py --plan 'reduce-scatter{tensor=c_ptr dim=0 world=2}' -p 'chunk-dependency-analysis,tile-reorder{order=arrival group=8},insert-signals,select-backend' | overlap-opt -f mlir -p verify-sync | filecheck %s --check-prefix=RS
# RUN: overlap-opt %S/../../examples/ag_gemm_persistent.py --plan 'reduce-scatter{tensor=c_ptr dim=0 world=2}' -p 'chunk-dependency-analysis,tile-reorder{order=arrival group=8},insert-signals,select-backend' | overlap-opt -f mlir -p verify-sync | filecheck %s --check-prefix=RSP
# RUN: overlap-opt %S/../../examples/gemm_rs_tma.py --plan 'reduce-scatter{tensor=c_ptr dim=0 world=2}' -p 'chunk-dependency-analysis,tile-reorder{order=arrival group=8},insert-signals,select-backend,fuse-peer-reduction' | overlap-opt -f mlir -p verify-sync | filecheck %s --check-prefix=TMA
# RUN: overlap-opt %S/../../examples/gemm_ar.py --plan 'all-reduce{tensor=c_ptr dim=0 world=3}' -p 'chunk-dependency-analysis,tile-reorder{order=arrival group=8},insert-signals,select-backend' | overlap-opt -f mlir -p verify-sync | filecheck %s --check-prefix=AR
# The default pipeline runs verify-sync itself (a failure would exit 1).
# RUN: overlap-opt %S/../../examples/ag_gemm.py --plan 'all-gather{tensor=a_ptr dim=0 world=2}' -p overlap | filecheck %s --check-prefix=FULL

# AG:      chunk.wait_span {{.*}} plan @ag tensor "a_ptr"
# AG:      scf.for
# AG:        tile.load {{.*}}chunk.access = {plan = @ag
# AGK:     scf.for
# AGK:       chunk.wait_span_loop {{.*}} plan @ag tensor "a_ptr"
# AGP:     chunk.wait_span {{.*}} plan @ag tensor "a_ptr"
# A2A:     chunk.wait_span {{.*}} plan @a2a tensor "x_ptr"
# ATT:     chunk.wait_span_loop {{.*}} plan @agk tensor "k_ptr"
# ATT:     chunk.wait_span_loop {{.*}} plan @agv tensor "v_ptr"
# RS:      tile.store {{.*}}chunk.access = {plan = @rs
# RS-NEXT: chunk.signal_span {{.*}} plan @rs tensor "c_ptr"
# AR:      tile.store {{.*}}chunk.access = {plan = @ar
# AR-NEXT: chunk.signal_span {{.*}} plan @ar tensor "c_ptr"
# RSP:     tile.store {{.*}}chunk.access = {plan = @rs
# RSP:     chunk.signal_span {{.*}} plan @rs tensor "c_ptr"
# TMA:     chunk.reduce_span
# TMA:     tile.desc_store
# TMA:     chunk.signal_span {{.*}} plan @rs tensor "c_ptr"
# FULL:    tile.call_jit @syn_wait_span(

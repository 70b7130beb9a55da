# Emitted code imports again and emits the same text (a fixed point).
# RUN: overlap-opt %S/control.py -t triton -o %t.py
# RUN: overlap-opt %t.py -t triton -o %t2.py
# RUN: overlap-opt %t2.py -t triton | filecheck %s
# RUN: overlap-opt %t2.py -t triton | diff - %t2.py
# RUN: overlap-opt %t.py | filecheck %s --check-prefix=IR

# CHECK: def control(out_ptr, n, K, STAGES: tl.constexpr, BLOCK: tl.constexpr):
# CHECK: for k in range(0, K, BLOCK):
# CHECK: for j in tl.range(0, n, num_stages=STAGES):
# CHECK: while i < n:
# IR: tile.func @control(%out_ptr: !tile.ptr, %n: !tile.scalar, %K: !tile.scalar, %STAGES: !tile.constexpr, %BLOCK: !tile.constexpr)
# IR: scf.for
# IR: } {tile.loop = "range", tile.num_stages = @STAGES}
# IR: scf.if
# IR: scf.while

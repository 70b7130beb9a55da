# The emitted file carries the module-level Python the kernel's decorators
# use, and an annotated local constexpr keeps its annotation; the result
# runs in the interpreter.
# RUN: overlap-opt %s -t triton -o %t.py
# RUN: filecheck %s --input-file %t.py
# RUN: %python %S/inputs/parses.py < %t.py | filecheck %s --check-prefix=PARSE
# RUN: overlap-opt %s -t triton -o %t.py
# RUN: env TRITON_INTERPRET=1 %python -c "import importlib.util as u, torch; s = u.spec_from_file_location('m', '%t.py'); m = u.module_from_spec(s); s.loader.exec_module(m); x = torch.arange(64.0); y = torch.zeros(64); m.halves[(4,)](x, y, 64); print('ok' if torch.equal(y, x * 3) else 'bad')" | filecheck %s --check-prefix=OUT
import triton
import triton.language as tl
from triton import jit as tjit

GROUP: tl.constexpr = 2


def get_configs():
    return [triton.Config({"BLOCK": b}) for b in SIZES]


SIZES = [16]


@triton.autotune(configs=get_configs(), key=["n"])
@tjit
def halves(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    HALF: tl.constexpr = BLOCK // GROUP
    lo = tl.program_id(0) * BLOCK + tl.arange(0, HALF)
    hi = lo + HALF
    tl.store(y_ptr + lo, tl.load(x_ptr + lo, mask=lo < n) * 3, mask=lo < n)
    tl.store(y_ptr + hi, tl.load(x_ptr + hi, mask=hi < n) * 3, mask=hi < n)

# CHECK:      from triton import jit as tjit
# CHECK-NEXT: GROUP: tl.constexpr = 2
# CHECK-EMPTY:
# CHECK-EMPTY:
# CHECK-NEXT: def get_configs():
# CHECK:      SIZES = [16]
# CHECK:      @triton.autotune(configs=get_configs(), key=['n'])
# CHECK-NEXT: @tjit
# CHECK-NEXT: def halves(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
# CHECK-NEXT:     HALF: tl.constexpr = BLOCK // 2
# CHECK-NEXT:     lo = tl.program_id(axis=0) * BLOCK + tl.arange(0, HALF)
# OUT: ok

# The emitted file is Python (ast.parse).
# PARSE: parses: get_configs, halves{{$}}

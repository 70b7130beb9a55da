# RUN: overlap-opt %s | filecheck %s
# Module-level Python the jit functions reach travels with the module as
# `tile.prelude` (decorator helpers, their constants, aliased imports);
# constexpr globals read in a kernel become their literal values; an
# annotated local constexpr keeps its constexpr-ness as a named retype.
import torch
import triton
import triton.language as tl
from triton import jit as tjit

GROUP: tl.constexpr = 2
SCALE = tl.constexpr(3)
DTYPE: tl.constexpr = tl.float16
UNRELATED = torch.zeros(3)


def get_configs():
    return [triton.Config({"BLOCK": b}) for b in SIZES]


SIZES = [16]


@triton.autotune(configs=get_configs(), key=["n"])
@tjit
def halves(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    HALF: tl.constexpr = BLOCK // GROUP
    lo = tl.program_id(0) * BLOCK + tl.arange(0, HALF)
    a = tl.load(x_ptr + lo, mask=lo < n)
    tl.store(y_ptr + lo, (a * SCALE).to(DTYPE), mask=lo < n)


if __name__ == "__main__":
    print("not carried")

# CHECK:      builtin.module attributes {tile.source = "module-globals.py", tile.prelude = "from triton import jit as tjit\0AGROUP: tl.constexpr = 2\0ASCALE = tl.constexpr(3)\0ADTYPE: tl.constexpr = tl.float16\0A\0A\0Adef get_configs():\0A    return [triton.Config({\22BLOCK\22: b}) for b in SIZES]\0A\0A\0ASIZES = [16]"}
# CHECK:      decorators = ["triton.autotune(configs=get_configs(), key=['n'])", "tjit"]
# CHECK:      %[[TWO:.*]] = arith.constant 2 : i32
# CHECK-NEXT: %[[DIV:.*]] = tile.floordiv %BLOCK, %[[TWO]]
# CHECK-NEXT: %HALF = tile.retype %[[DIV]] : i32 -> !tile.constexpr
# CHECK:      tile.arange %{{.*}}, %HALF
# CHECK:      arith.constant 3 : i32
# CHECK:      %[[F16:.*]] = tile.literal f16
# CHECK-NEXT: tile.call ".to"(%{{.*}}, %[[F16]])

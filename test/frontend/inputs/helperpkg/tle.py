"""Program-id helpers in the manner of FlagGems' language extension module:
jit wrappers around `tl.program_id` / `tl.num_programs` whose axis is a
constexpr parameter, so a kernel writes `tle.program_id(0)`."""

import triton
import triton.language as tl


@triton.jit
def program_id(axis: tl.constexpr):
    return tl.program_id(axis)


@triton.jit
def num_programs(axis: tl.constexpr):
    return tl.num_programs(axis)


@triton.jit
def grid_coords(ROW_AXIS: tl.constexpr, COL_AXIS: tl.constexpr):
    """Forwards both axes to `program_id`: the axis reaches `tl.program_id` two calls down."""
    return program_id(ROW_AXIS), program_id(axis=COL_AXIS)

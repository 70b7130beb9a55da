"""Which plan extents are read from the launched tensor (ir/plans/launch_extents.py)."""

from __future__ import annotations

import pytest

from syncopate.ir.plans.launch_extents import LaunchExtent, launch_extents
from syncopate.ir.plans.model import to_op
from syncopate.ir.plans.spec import plan_from_spec

KERNEL = ("x_ptr", "y_ptr", "stride", "N_COLS", "BLOCK")


def _extents(spec: str, parameters=KERNEL) -> list[LaunchExtent]:
    return launch_extents(to_op(plan_from_spec(spec)), parameters)


@pytest.mark.parametrize("spec, expected", [
    # the default size names no parameter
    ("all-gather{world=2 tensor=x}", LaunchExtent("M", "ag", "x", "x_ptr", 0, "stride_x_0")),
    ("reduce-scatter{world=3 tensor=y size=rows stride=stride}", LaunchExtent("rows", "rs", "y", "y_ptr", 0, "stride")),
    ("all-gather{world=2 tensor=x dim=1 size=n name=agn}", LaunchExtent("n", "agn", "x", "x_ptr", 1, "stride_x_1")),
])
def test_a_bare_symbol_naming_no_parameter_is_read_at_launch(spec, expected):
    assert _extents(spec) == [expected]


@pytest.mark.parametrize("spec", [
    "all-gather{world=2 tensor=x size=N_COLS}",  # a kernel parameter: its launch argument
    "all-gather{world=2 tensor=x size=12}",  # a literal: checked against the tensor at launch
    "all-gather{world=2 tensor=x size=\"2*R\"}",  # an expression: not an extent of its own
    "all-gather{world=2 tensor=x size=W}",  # the world size
    "all-gather{world=2 tensor=x size=y_ptr}",  # a pointer parameter's name
])
def test_other_extents_are_not(spec):
    assert _extents(spec) == []


def test_describe_names_the_tensor_dim_and_plan():
    (extent,) = _extents("all-gather{world=2 tensor=x name=agx}")
    assert extent.describe() == "M = x_ptr.shape[0] (plan @agx)"

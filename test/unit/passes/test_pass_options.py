"""Enum-like pass options are Literal types, refused with the pass and option named."""

from __future__ import annotations

import pytest
from xdsl.utils.arg_spec import parse_spec

from syncopate.passes.options import choices
from syncopate.passes.overlap_pipeline import OverlapPipelinePass
from syncopate.passes.select_backend import SelectBackendPass
from syncopate.passes.tile_reorder import TileReorderPass


def test_choices_come_from_the_literal_types() -> None:
    assert choices(TileReorderPass) == {"order": ("none", "arrival", "rotate")}
    assert choices(SelectBackendPass) == {"backend": ("auto", "ce", "sm", "nccl")}
    assert choices(OverlapPipelinePass) == {
        "order": ("none", "arrival", "rotate"),
        "backend": ("auto", "ce", "sm", "nccl"),
        "reduce": ("stream", "epilogue", "push"),
    }


def test_a_valid_choice_is_accepted_from_a_spec_and_from_python() -> None:
    assert TileReorderPass.from_pass_spec(parse_spec("tile-reorder{order=rotate}")).order == "rotate"
    assert OverlapPipelinePass(reduce="epilogue").reduce == "epilogue"


@pytest.mark.parametrize(
    "spec,message",
    [
        ("tile-reorder{order=zigzag}", "tile-reorder: unknown order 'zigzag', expected one of none, arrival, rotate"),
        ("select-backend{backend=pcie}", "select-backend: unknown backend 'pcie', expected one of auto, ce, sm, nccl"),
        ("overlap{reduce=stream,epilogue}", "overlap: unknown reduce 'stream,epilogue', expected one of stream, epilogue, push"),
    ],
)
def test_an_unknown_choice_in_a_spec_names_pass_and_option(spec, message) -> None:
    name = spec.split("{")[0]
    cls = {"tile-reorder": TileReorderPass, "select-backend": SelectBackendPass, "overlap": OverlapPipelinePass}[name]
    with pytest.raises(ValueError) as err:
        cls.from_pass_spec(parse_spec(spec))
    assert str(err.value) == message


def test_an_unknown_choice_from_python_is_refused() -> None:
    with pytest.raises(ValueError, match="overlap: unknown backend 'pcie', expected one of auto, ce, sm, nccl"):
        OverlapPipelinePass(backend="pcie")  # type: ignore[arg-type]

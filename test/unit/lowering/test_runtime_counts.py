"""The fused kernel's chunk-table counts stay runtime values (lowering/runtime_counts.py)."""

import importlib.util

import pytest

from syncopate.lowering.runtime_counts import unspecialized

NAMES = ["syn_wait_x_n", "syn_signal_y_n"]


@pytest.mark.parametrize("decorators, expected", [
    (["triton.jit"], ["triton.jit(do_not_specialize=['syn_wait_x_n', 'syn_signal_y_n'])"]),
    (["jit"], ["jit(do_not_specialize=['syn_wait_x_n', 'syn_signal_y_n'])"]),
    (["triton.jit(debug=True)"], ["triton.jit(debug=True, do_not_specialize=['syn_wait_x_n', 'syn_signal_y_n'])"]),
    (["triton.jit(do_not_specialize=['M'])"], ["triton.jit(do_not_specialize=[*['M'], 'syn_wait_x_n', 'syn_signal_y_n'])"]),
    (["triton.autotune(configs=[], key=['M'])", "triton.jit"],
     ["triton.autotune(configs=[], key=['M'])", "triton.jit(do_not_specialize=['syn_wait_x_n', 'syn_signal_y_n'])"]),
])
def test_counts_join_the_jit_decorator(decorators, expected):
    assert unspecialized(decorators, NAMES) == expected


@pytest.mark.parametrize("decorators", [["my_wrapper"], ["triton.autotune(configs=[], key=[])"], []])
def test_other_decorators_are_left_alone(decorators):
    assert unspecialized(decorators, NAMES) == decorators


def test_no_tables_no_change():
    assert unspecialized(["triton.jit"], []) == ["triton.jit"]


def test_fused_kernel_compiles_the_same_code_for_one_row(monkeypatch):
    """A one-row table (a world of one) must not make Triton specialize the
    count to a constant: the emitted kernel's jit lists every table count, and
    the jit function marks those parameters unspecialized."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    from syncopate.bench.configs import GemmConfig
    from syncopate.bench.fused import program_for

    program = program_for("gemm-rs", 1, "ce", "arrival", GemmConfig(16, 16, 16, 1, 1, "persistent-flat"))
    assert "@triton.jit(do_not_specialize=['syn_signal_rs_c_ptr_n'])" in program.source
    monkeypatch.delenv("TRITON_INTERPRET")  # the GPU's JITFunction, which builds the specialization (no launch)
    spec = importlib.util.spec_from_file_location("fused_for_counts", program.path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    params = {p.name: p for p in getattr(module, program.kernel_name).params}
    assert params["syn_signal_rs_c_ptr_n"].do_not_specialize
    assert not params["M"].do_not_specialize

"""An autotuned original: FusedKernel, the one launch path, launches the
fused kernel's plain jit function with the configuration a ConfigChoice
picks (runtime/autotune.py); several configurations without a choice that
can benchmark are refused."""

from types import SimpleNamespace

import pytest
import triton
import triton.language as tl

from syncopate.runtime.autotune import OnlyConfig, launch_arguments
from syncopate.runtime.fused import FusedKernel
from launch_standins import Context, Recorder

ONE = [triton.Config({"BLOCK": 16}, num_warps=2)]
TWO = [triton.Config({"BLOCK": 16}, num_warps=2), triton.Config({"BLOCK": 32}, num_warps=4, num_stages=2)]
NO_PLANS = SimpleNamespace(moved=frozenset())  # the launch facts of a program that moves no tensor


def kernel_body(x_ptr, n, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), 0.0, mask=tl.arange(0, BLOCK) < n)




def fused_over(configs, choose=None):
    original = triton.autotune(configs=configs, key=["n"])(triton.jit(kernel_body))
    plain = Recorder()
    # the emitted autotuned kernel
    program = SimpleNamespace(kernel_name="kernel_body", jit=SimpleNamespace(fn=plain), launch_facts=NO_PLANS)
    context = Context()
    return FusedKernel(program, original, context, choose), plain, context


def test_one_config_launches_the_plain_jit_with_its_constexprs_and_options():
    fused, plain, context = fused_over(ONE)
    fused[(1,)]("x", 8)
    assert plain.launches == [((1,), ("x", 8), {"BLOCK": 16, "syn_flags": "flags", **launch_arguments(ONE[0])[1]})]
    assert plain.launches[0][2]["num_warps"] == 2
    assert context.bound == {"x_ptr": "x", "n": 8, "BLOCK": 16}
    assert fused.chosen == {(): ONE[0]}


def test_the_callers_own_launch_options_win_over_the_configs():
    fused, plain, _ = fused_over(ONE)
    fused[(1,)]("x", 8, num_warps=8)
    assert plain.launches[0][2]["num_warps"] == 8


def test_several_configs_without_a_benchmarking_choice_are_refused_at_launch():
    fused, plain, _ = fused_over(TWO)  # building it is fine: the refusal names the launch
    with pytest.raises(ValueError, match="kernel_body is autotuned over 2 configs; a fused launch needs its block sizes"):
        fused[(1,)]("x", 8)
    assert plain.launches == []


def test_a_choice_picks_the_config_per_launch():
    class Second(OnlyConfig):
        def __call__(self, grid, args, kwargs):
            self.chosen[(args[1],)] = self.configs[1]
            return self.configs[1]

    choice = Second("kernel_body", TWO)
    fused, plain, _ = fused_over(TWO, choice)
    fused[lambda meta: (meta["n"] // meta["BLOCK"],)]("x", 64)
    grid, _, kwargs = plain.launches[0]
    assert grid == (2,) and kwargs["BLOCK"] == 32 and (kwargs["num_warps"], kwargs["num_stages"]) == (4, 2)
    assert fused.chosen == {(64,): TWO[1]}


def test_a_plain_original_launches_the_program_as_is():
    plain = Recorder()
    fused = FusedKernel(SimpleNamespace(kernel_name="kernel_body", jit=plain, launch_facts=NO_PLANS), triton.jit(kernel_body), Context())
    fused[(1,)]("x", 8, BLOCK=16)
    assert plain.launches == [((1,), ("x", 8), {"BLOCK": 16, "syn_flags": "flags"})]
    assert fused.chosen == {}


def test_the_chosen_configs_pre_hook_runs_before_the_launch_with_every_argument():
    """Triton's autotuner runs the chosen config's pre_hook (zeroing a split-K
    output, say) before each launch; the fused launch must too, or the
    kernel accumulates into stale values."""
    seen = []

    class Launching(Context):
        def launch(self, program, grid, bound, run, options=None):
            seen.append("launch")
            super().launch(program, grid, bound, run, options)

    config = triton.Config({"BLOCK": 16}, num_warps=2, pre_hook=lambda nargs: seen.append(dict(nargs)))
    original = triton.autotune(configs=[config], key=["n"])(triton.jit(kernel_body))
    plain = Recorder()
    program = SimpleNamespace(kernel_name="kernel_body", jit=SimpleNamespace(fn=plain), launch_facts=NO_PLANS)
    fused = FusedKernel(program, original, Launching())
    for _ in range(2):
        fused[(1,)]("x", 8)
    hook_args = {"x_ptr": "x", "n": 8, **config.all_kwargs()}
    assert seen == [hook_args, "launch", hook_args, "launch"]
    assert len(plain.launches) == 2

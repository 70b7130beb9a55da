"""``@triton.heuristics`` at a fused launch (issue 38): the values reach the
fused kernel as Triton's own launch of the original computes them (from the
call's arguments, after an autotuner's config, a later heuristic seeing the
earlier ones), on the one launch path (``runtime/autotune.py``'s
``LaunchHelpers``, which ``FusedKernel`` applies for workloads and
``syncopate.compile`` alike). A heuristic that reads an argument the
launch does not pass is one error naming it and its decorator's line."""

from __future__ import annotations

import inspect
import re
import types
from pathlib import Path
from types import SimpleNamespace

import pytest
import triton
import triton.language as tl

from syncopate.runtime.autotune import HeuristicError, LaunchHelpers, plain_jit
from syncopate.runtime.fused import FusedKernel
from syncopate.runtime.harness.check import compile_workload, run_simulated
from syncopate.runtime.harness.workload import load_workload
from syncopate.runtime.sim.delivery import DELIVERY_ORDERS
from launch_standins import Context, Recorder

WORKLOADS = Path(__file__).resolve().parents[1] / "workloads"
NO_PLANS = SimpleNamespace(moved=frozenset())  # the launch facts of a program that moves no tensor


def _fuses_and_matches(workload, world: int = 2, seeds=(0, 1)) -> None:
    """Fused matches unfused on every rank, every delivery order, for each seed
    (the workloads' seed 0 takes the unmasked arm, seed 1 the masked one)."""
    program = compile_workload(workload, world)
    for seed in seeds:
        for order in DELIVERY_ORDERS:
            results = run_simulated(workload, world, order, seed, program)
            assert all(r.ok for r in results), (seed, order, [(r.rank, r.max_error) for r in results])
            assert sum(r.polls for r in results) > 0, "the fused kernel never waited"


@pytest.mark.parametrize("name", ["heuristics_copy", "heuristics_autotuned"])
def test_heuristics_values_reach_the_fused_launch(name):
    """Was: ``launch(the fused kernel, ...) raised TypeError: missing a required argument: 'EVEN'``."""
    _fuses_and_matches(load_workload(str(WORKLOADS / f"{name}.py")))


def test_the_plain_jit_under_the_decorators_launches_with_the_callers_constexprs():
    """A workload that passes the plain jit function of the decorated kernel
    gives every constexpr itself, as Triton's launch of that function needs:
    the fused launch applies no autotuner or heuristic then."""
    loaded = load_workload(str(WORKLOADS / "heuristics_autotuned.py"))
    module = types.ModuleType("heuristics_autotuned_plain")
    module.__dict__.update(vars(loaded.module))
    module.KERNEL, module.launch = plain_jit(loaded.module.KERNEL), loaded.module.launch_plain
    _fuses_and_matches(type(loaded)(loaded.path, module), seeds=(1,))


# --- the launch's keyword arguments against Triton's own launch of the same stack


class Recorded:
    """A jit function's stand-in under Triton's decorators: records what
    Triton's autotuner and heuristics pass to its ``run``."""

    def __init__(self, fn):
        self.fn = fn
        self.arg_names = list(inspect.signature(fn).parameters)
        self.runs = []

    def run(self, *args, grid=None, warmup=False, **kwargs):
        self.runs.append((args, kwargs))


def body(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr, HALF: tl.constexpr):
    pass


ONE = [triton.Config({"BLOCK": 16}, num_warps=2)]
EVEN = {"EVEN": lambda args: args["n"] % args["BLOCK"] == 0}
HALF = {"HALF": lambda args: args["BLOCK"] // 2 if args["EVEN"] else 0}
STACKS = {
    "heuristics": lambda jit: triton.heuristics({"BLOCK": lambda args: 8, **EVEN, **HALF})(jit),
    "autotune over heuristics": lambda jit: triton.autotune(ONE, key=["n"])(triton.heuristics({**EVEN, **HALF})(jit)),
    "heuristics over autotune": lambda jit: triton.heuristics({"HALF": lambda args: args["n"] // 2})(
        triton.autotune(ONE, key=["n"])(triton.heuristics(EVEN)(jit))),
    "heuristics over heuristics": lambda jit: triton.heuristics({"BLOCK": lambda args: 4, **EVEN})(
        triton.heuristics(HALF)(jit)),  # the outer one runs first
}


@pytest.mark.parametrize("stack", STACKS)
@pytest.mark.parametrize("call", [((None, 64), {}), ((None,), {"n": 48}), ((None, 40), {"EVEN": 7})])
def test_the_launch_passes_what_tritons_launch_of_the_original_passes(stack, call):
    args, kwargs = call
    recorded = Recorded(body)
    original = STACKS[stack](recorded)
    original[(1,)](*args, **kwargs)
    [(triton_args, triton_kwargs)] = recorded.runs
    kw, options, _ = LaunchHelpers(original, "body").resolve((1,), args, kwargs)
    assert triton_args == args and {**kw, **options} == triton_kwargs




def _fused(original, name="scaled"):
    plain = Recorder()
    # the emitted kernel keeps the decorators over its plain jit function
    program = SimpleNamespace(kernel_name=name, jit=SimpleNamespace(fn=SimpleNamespace(fn=plain)),
                              launch_facts=NO_PLANS)
    return FusedKernel(program, original, Context()), plain


@triton.heuristics({"BLOCK": lambda args: 16})
@triton.heuristics({"EVEN": lambda args: args["n"] % args["SCALE"] == 0})  # SCALE: a default, never passed
@triton.jit
def scaled(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr, SCALE: tl.constexpr = 4):
    pass


def test_a_heuristic_reading_an_argument_the_launch_lacks_names_itself_and_its_decorator():
    fused, plain = _fused(scaled)
    line = inspect.getsourcelines(scaled.fn.fn.fn)[1] + 1  # the second decorator
    where = f"{__file__}:{line}"
    with pytest.raises(HeuristicError) as error:
        fused[(1,)]("x", 8)
    message = str(error.value)
    assert message.startswith(f"{where}: heuristic 'EVEN' of @scaled reads args['SCALE'], which this launch does "
                              "not pass"), message
    assert "\n" not in message and plain.launches == []
    with pytest.raises(KeyError, match="SCALE"):  # Triton's own launch cannot supply it either
        scaled.run("x", 8, grid=(1,), warmup=False)
    fused[(1,)]("x", 8, SCALE=2)  # given, it is seen
    assert plain.launches == [((1,), ("x", 8), {"SCALE": 2, "EVEN": True, "BLOCK": 16, "syn_flags": "flags"})]


def test_a_heuristic_made_by_the_call_form_is_named_at_its_function():
    original = triton.heuristics({"EVEN": lambda args: args["missing"]})(triton.jit(body))
    fused, _ = _fused(original, "body")
    line = inspect.getsourcelines(test_a_heuristic_made_by_the_call_form_is_named_at_its_function)[1] + 1
    with pytest.raises(HeuristicError, match=rf"^{re.escape(__file__)}:{line}: heuristic 'EVEN' of @body reads"):
        fused[(1,)]("x", 8, BLOCK=4, HALF=1)


def test_a_heuristic_that_raises_a_key_error_of_its_own_is_not_reworded():
    original = triton.heuristics({"EVEN": lambda args: {}[args["n"]]})(triton.jit(body))
    fused, _ = _fused(original, "body")
    with pytest.raises(KeyError, match="8"):
        fused[(1,)]("x", 8, BLOCK=4, HALF=1)


def test_a_heuristic_may_set_a_launch_option():
    """``num_warps`` from a heuristic (Triton's own docstring example) is a launch option, not a parameter."""
    original = triton.heuristics({"num_warps": lambda args: 8 if args["n"] > 4 else 4, **EVEN, **HALF})(
        triton.jit(body))
    fused, plain = _fused(original, "body")
    fused[(1,)]("x", 8, BLOCK=4)
    assert plain.launches == [((1,), ("x", 8), {"BLOCK": 4, "EVEN": True, "HALF": 2, "syn_flags": "flags",
                                                "num_warps": 8})]

"""Run-time checks of a fused launch against its plans (runtime/abi.py):
a rank receives each row once, and every chunk of every plan has its own
signal-pad flag. Each is driven through a whole simulated run, so deleting
the check (not only breaking its helper) fails here."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.parser import Parser

from syncopate.ir.context import make_context
from syncopate.runtime.abi import AbiError
from syncopate.runtime.harness.check import compile_workload, run_simulated
from syncopate.runtime.harness.workload import load_workload

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def test_a_rank_that_would_receive_rows_twice_is_refused():
    """Chunk 3 (rank 1 -> 0) starts a row early, inside rank 0's own rows: the
    wait table of rank 0 overlaps, which its binary search cannot handle.
    (The plan verifier refuses such a plan; the edit bypasses it, as a plan
    whose sizes only collide at the launch's values would.)"""
    workload = load_workload(str(EXAMPLES / "ag_gemm.py"))
    program = compile_workload(workload, 2)
    old = program.plans[0]
    text = str(old).replace('id 3 "a_ptr" dim 0 offset "M/2" size "M - M/2"',
                            'id 3 "a_ptr" dim 0 offset "M/2 - 1" size "M - M/2 + 1"')
    assert text != str(old)
    new = Parser(make_context(), text).parse_op()
    old.parent_block().insert_op_before(new, old)
    old.detach()
    old.erase()
    with pytest.raises(AbiError, match=r"rank 0 receives rows \[24, 25\) of 'a_ptr' in two chunks \(0 and 3\)"):
        run_simulated(workload, 2, "plan", program=program)


def test_two_plans_wait_on_distinct_flags():
    """attention_ag_kv gathers K and V with two plans: their chunks must not
    share flags (a shared flag lets a V wait pass on K's arrival)."""
    workload = load_workload(str(EXAMPLES / "attention_ag_kv.py"))
    program = compile_workload(workload, 2)
    bases = {k: v.value.data for k, v in program.abi["flag_bases"].data.items()}
    assert sorted(bases) == ["agk", "agv"] and bases["agk"] != bases["agv"], bases
    for order in ("plan", "isolated"):
        assert all(r.ok for r in run_simulated(workload, 2, order, program=program)), order


def test_plans_sharing_a_flag_are_refused_at_launch():
    workload = load_workload(str(EXAMPLES / "attention_ag_kv.py"))
    program = compile_workload(workload, 2)
    abi = dict(program.abi)
    bases = abi["flag_bases"]
    shared = type(bases)({k: type(v)(0, v.type) for k, v in bases.data.items()})
    abi["flag_bases"] = shared
    program.kernel.attributes["chunk.abi"] = type(program.kernel.attributes["chunk.abi"])(abi)
    with pytest.raises(AbiError, match=r"chunk 0 of @agk and chunk 0 of @agv share signal-pad flag 0"):
        run_simulated(workload, 2, "plan", program=program)


def test_nan_inputs_match_where_the_original_has_them_and_poison_is_still_found(tmp_path: Path):
    """A NaN in A reaches the original kernel's output too: the check matches it there (it used to report
    "poisoned data reached the output"). A fused kernel without waits still reads unsent rows, and the
    NaN they hold, where the original's output is finite."""
    import math

    import torch

    from syncopate.runtime.harness.check import _close, _error

    text = (EXAMPLES / "ag_gemm.py").read_text()
    line = "    a = torch.randn(size, K_DIM, generator=g, dtype=torch.float32)\n"
    assert line in text
    path = tmp_path / "nan_input.py"
    path.write_text(text.replace(line, line + "    a[0, 0] = float('nan')\n"))
    results = run_simulated(load_workload(str(path)), 2, "late")
    assert all(r.ok and r.max_error == 0.0 for r in results), results
    ref = torch.tensor([1.0, math.nan, math.inf])
    assert _close(ref.clone(), ref) and _error(ref.clone(), ref) == 0.0
    poisoned = torch.tensor([math.nan, math.nan, math.inf])
    assert not _close(poisoned, ref) and math.isnan(_error(poisoned, ref))
    assert not _close(torch.tensor([1.0, math.nan, -math.inf]), ref)

"""LocalRank: a fused program with every chunk in place runs as the local
kernel (overlap-bench's "syncopate no-comm" row), on the Triton interpreter."""

import math

import pytest
import torch

from syncopate.bench.configs import CPU_DEFAULT
from syncopate.bench.fused import program_for
from syncopate.bench.gemm import gemm_kernel, launch_gemm
from syncopate.bench.problem import OUT, PARTIAL, make_problem
from syncopate.bench.shapes import AG_GEMM, GEMM_RS, SHAPES
from syncopate.runtime.fused import FusedKernel
from syncopate.runtime.local import LocalRank, LocalRankError


def problem(workload, rank=1):
    shape = next(s for s in SHAPES if s.workload == workload and s.name == "cpu-tiny")
    return make_problem(shape, 2, rank, torch.device("cpu"), torch.float32, 5)


def launch(program, context, a, b, c=None):
    c = torch.full((a.shape[0], b.shape[1]), math.nan) if c is None else c.fill_(math.nan)
    launch_gemm(FusedKernel(program, gemm_kernel(CPU_DEFAULT), context), a, b, c, CPU_DEFAULT)
    return c


def test_a_gather_program_with_every_chunk_in_place_is_the_local_gemm():
    p = problem(AG_GEMM)
    program = program_for(AG_GEMM, 2, "ce", "arrival", CPU_DEFAULT)
    assert "syn_wait_span(" in program.source  # its tiles do wait
    context = LocalRank(None, rank=1, spin_limit=50)
    c = launch(program, context, p.a_full, p.b)
    assert torch.allclose(c, p.references[OUT], atol=1e-4)
    assert torch.allclose(launch(program, context, p.a_full, p.b, c), p.references[OUT], atol=1e-4)
    assert context.timed_out() == [] and len(context.launches) == 1  # every wait passed; tables built once
    launch(program, context, p.a_full, p.b)  # another output tensor: tables of its own
    assert len(context.launches) == 2


def test_a_wait_on_a_flag_that_is_not_raised_shows_in_the_report():
    p = problem(AG_GEMM)
    program = program_for(AG_GEMM, 2, "ce", "arrival", CPU_DEFAULT)
    context = LocalRank(None, rank=1, spin_limit=20)
    c = launch(program, context, p.a_full, p.b)
    [(_, _, sync)] = context.launches.values()
    sync.flags.zero_()  # as if no chunk had arrived
    launch(program, context, p.a_full, p.b, c)
    [message] = context.timed_out()
    assert "rank 1: program" in message and "gave up waiting for chunk" in message


def test_a_reduce_scatter_program_leaves_the_local_partial():
    p = problem(GEMM_RS)
    program = program_for(GEMM_RS, 2, "ce", "arrival", CPU_DEFAULT)
    assert "syn_signal_span(" in program.source
    c = launch(program, LocalRank(None, rank=1, spin_limit=50), p.a, p.b)
    assert torch.allclose(c, p.references[PARTIAL], atol=1e-4)


def test_programs_with_sm_communication_programs_are_refused():
    p = problem(AG_GEMM)
    program = program_for(AG_GEMM, 2, "sm", "arrival", CPU_DEFAULT)
    with pytest.raises(LocalRankError, match="SM communication programs"):
        launch(program, LocalRank(None, rank=0), p.a_full, p.b)

"""Host expressions of the analysis (``host_exprs.host_expr``: tile rows,
extents, tile-loop counts) are evaluated as the device computes them:
``//`` and ``%`` truncate toward zero as in Triton (and C), ``tl.cdiv`` is
Triton's ``(a + (b - 1)) // b``, and a value that leaves the device's integer
width (int32 unless an operand is 64-bit) is refused, naming the access,
instead of being computed exactly on the host while the device wraps.

The reference answers come from Triton itself: a tiny kernel run in
Triton's interpreter (``TRITON_INTERPRET=1``) in a subprocess."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from syncopate.ir.analysis import deps
from syncopate.ir.analysis.deps import HostOverflow, eval_host, tdiv, tmod
from syncopate.runtime.harness.check import compile_workload
from syncopate.runtime.errors import AbiError
from syncopate.runtime.harness.workload import load_workload
from syncopate.tools import overlap_run

WORKLOAD = Path(__file__).resolve().parents[1] / "workloads" / "negative_mod_rs.py"
PAIRS = [(a, b) for a in (-9, -8, -7, -5, -1, 0, 1, 5, 7, 8, 9) for b in (-4, -3, -1, 1, 3, 4)]

DEVICE = textwrap.dedent("""
    import json, sys
    import torch, triton, triton.language as tl

    @triton.jit
    def ops(a_ptr, b_ptr, q_ptr, r_ptr, c_ptr, N: tl.constexpr):
        i = tl.arange(0, N)
        a = tl.load(a_ptr + i)
        b = tl.load(b_ptr + i)
        tl.store(q_ptr + i, a // b)
        tl.store(r_ptr + i, a % b)
        tl.store(c_ptr + i, tl.cdiv(a, b))

    pairs = json.loads(sys.argv[1])
    n = triton.next_power_of_2(len(pairs))
    a = torch.tensor([p[0] for p in pairs] + [1] * (n - len(pairs)), dtype=torch.int32)
    b = torch.tensor([p[1] for p in pairs] + [1] * (n - len(pairs)), dtype=torch.int32)
    q, r, c = (torch.zeros(n, dtype=torch.int32) for _ in range(3))
    ops[(1,)](a, b, q, r, c, N=n)
    print(json.dumps([q.tolist()[:len(pairs)], r.tolist()[:len(pairs)], c.tolist()[:len(pairs)]]))
""")


@pytest.fixture(scope="module")
def device_answers() -> tuple[list[int], list[int], list[int]]:
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    out = subprocess.run([sys.executable, "-c", DEVICE, json.dumps(PAIRS)], env=env, capture_output=True, text=True,
                         check=True, timeout=300).stdout
    q, r, c = json.loads(out.strip().splitlines()[-1])
    return q, r, c


def _host(expr: str, a: int, b: int) -> int | None:
    return eval_host(expr, {"a": a, "b": b}, (0, 0, 0), (1, 1, 1))


def test_division_and_remainder_are_tritons(device_answers):
    q, r, c = device_answers
    assert [tdiv(a, b) for a, b in PAIRS] == q
    assert [tmod(a, b) for a, b in PAIRS] == r
    assert [_host("(a // b)", a, b) for a, b in PAIRS] == q
    assert [_host("(a % b)", a, b) for a, b in PAIRS] == r
    assert [_host("cdiv(a, b)", a, b) for a, b in PAIRS] == c
    # C semantics, stated: truncation toward zero, the remainder takes the dividend's sign
    assert (_host("(a // b)", -7, 2), _host("(a % b)", -7, 2), _host("(a % b)", 7, -2)) == (-3, -1, 1)


def test_a_value_outside_int32_is_refused_unless_widened():
    env = {"BLOCK": 2**20}
    with pytest.raises(HostOverflow, match=r"'pid0 \* BLOCK' is 4294967296 at this launch, outside int32"):
        eval_host("(pid0 * BLOCK)", env, (4096, 0, 0), (4097, 1, 1))
    assert eval_host("(int64(pid0) * BLOCK)", env, (4096, 0, 0), (4097, 1, 1)) == 2**32  # `.to(tl.int64)`
    assert eval_host("(pid0 * BIG)", {"BIG": 2**32}, (3, 0, 0), (4, 1, 1)) == 3 * 2**32  # an int64 argument
    with pytest.raises(HostOverflow):  # cdiv's `a + (b - 1)` wraps first
        eval_host("cdiv(M, B)", {"M": 2**31 - 2, "B": 8}, (0, 0, 0), (1, 1, 1))
    assert issubclass(HostOverflow, AbiError)  # a launch error: one line from overlap-run


def test_negative_remainder_signals_what_the_device_writes(capsys):
    """Programs whose row `(pid - SHIFT) % T` is negative write nothing; a
    host with Python's `%` counted them as writers of the last chunk, which
    was then never announced (test/unit/workloads/negative_mod_rs.py)."""
    code = overlap_run.main([str(WORKLOAD), "--world", "2", "--delivery", "all"])
    out, err = capsys.readouterr()
    assert code == 0 and "all ranks match" in out and "[isolated]" in out, (out, err)


def test_an_overflowing_row_names_the_access():
    program = compile_workload(load_workload(WORKLOAD), 2)
    env = {"M": 32, "N": 8, "T": 4, "SHIFT": -(2**31 - 1), "BLOCK_M": 8, "BLOCK_N": 8}
    with pytest.raises(HostOverflow) as caught:  # pid 1: `pid - SHIFT` is 2**31
        deps.tile_chunk_graph(program.module, program.kernel, env, (2,), 0, {"rs": 0})
    message = str(caught.value)
    assert re.match(r"negative_mod_rs\.py:\d+: 'tile\.(load|store)': the rows of this access at program id "
                    r"\(1, 0, 0\): '.*pid0 - SHIFT.*' is 2147483648 at this launch, outside int32", message), message
    assert "\n" not in message and "`.to(tl.int64)`" in message

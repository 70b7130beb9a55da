"""Seeded mutants of the K/V all-gather attention kernel
(examples/attention_ag_kv.py), in the ways public flash-attention kernels
read K and V, and how each ends under syncopate.

Every attention tile reads every K/V row, in a loop over blocks of the
sequence: the waits must cover the rows each iteration's addresses reach,
whatever the spelling. A mutant rewrites the loop's loads of K and V:

* ``shift``: both read the block ``s`` rows further on (index and mask
  alike), so an iteration reads rows of the next chunk;
* ``helper``: the block's rows come from a ``@triton.jit`` helper;
* ``advance``: the loads go through pointers built before the loop and
  advanced by ``BLOCK_N`` rows at the end of every iteration
  (``k_ptrs += BLOCK_N * stride_kn``), the tutorial's spelling;
* ``core``: the loads are spelt ``tl.core.load``;
* ``product``: K's row stride is written ``(stride_kn * 1)``;
* ``order``: K's two stride parameters are declared (and passed) the other
  way round;
* ``named``: the plans name the rows' stride and size;
* ``widen``: the rows are widened, ``(...).to(tl.int64)``;
* ``trans``: K is loaded transposed (``[BLOCK_D, BLOCK_N]``, rows on the
  second axis) and multiplied without ``tl.trans``;

mixed at random, on a random K/V length, world size, tile order and
delivery order. Every mutant is a valid single-GPU kernel (in bounds), so
its fused kernel must match the original on every simulated rank under
the sanitizer, or be refused in one line (``input_mutants.outcome``);
anything else is a soundness bug.

    python test/fuzz/attention_mutants.py 60 --seed 3      # prints each outcome
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from input_mutants import Mutant, launched, run_sample, sample  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BASE = (ROOT / "examples" / "attention_ag_kv.py").read_text()
KINDS = ("shift", "helper", "advance", "core", "product", "order", "named", "widen", "trans")
HELPER = '''

@triton.jit
def block_rows(start, BLOCK: tl.constexpr):
    return start + tl.arange(0, BLOCK)
'''
KV = "        kv = start_n + tl.arange(0, BLOCK_N)\n"
LOADS = ("        k = tl.load(k_ptr + kv[:, None] * stride_kn + ds[None, :] * stride_kd, mask=kv[:, None] < N_KV, "
         "other=0.0)\n"
         "        v = tl.load(v_ptr + kv[:, None] * stride_vn + ds[None, :] * stride_vd, mask=kv[:, None] < N_KV, "
         "other=0.0)\n")
DOT = "        s = tl.dot(q, tl.trans(k)) * sm_scale\n"
LOOP_END = "        m_i = m_new\n"


def _replace(source: str, old: str, new: str) -> str:
    """``source`` with its one ``old`` replaced (the base changed if it is not there)."""
    if source.count(old) != 1:
        raise AssertionError(f"examples/attention_ag_kv.py no longer holds exactly one {old!r}")
    return source.replace(old, new)


def _loads(kinds: list[str], rows: str) -> str:
    """The loop's K and V loads, indexed by ``rows`` (a name of the block's rows)."""
    load = "tl.core.load" if "core" in kinds else "tl.load"
    kn = "(stride_kn * 1)" if "product" in kinds else "stride_kn"
    if "trans" in kinds:
        k = f"{load}(k_ptr + {rows}[None, :] * {kn} + ds[:, None] * stride_kd, mask={rows}[None, :] < N_KV, other=0.0)"
    else:
        k = f"{load}(k_ptr + {rows}[:, None] * {kn} + ds[None, :] * stride_kd, mask={rows}[:, None] < N_KV, other=0.0)"
    v = f"{load}(v_ptr + {rows}[:, None] * stride_vn + ds[None, :] * stride_vd, mask={rows}[:, None] < N_KV, other=0.0)"
    return f"        k = {k}\n        v = {v}\n"


def _advanced(kinds: list[str], shift: int) -> tuple[str, str, str]:
    """Pointers built before the loop and moved by a block each iteration:
    (what goes before the loop, the loads, the increments at its end)."""
    load = "tl.core.load" if "core" in kinds else "tl.load"
    kn = "(stride_kn * 1)" if "product" in kinds else "stride_kn"
    first = f"tl.arange(0, BLOCK_N) + {shift}" if shift else "tl.arange(0, BLOCK_N)"
    if "trans" in kinds:
        k_ptrs = f"k_ptr + offs_n[None, :] * {kn} + ds[:, None] * stride_kd"
        k_mask = "(start_n + offs_n)[None, :] < N_KV"
    else:
        k_ptrs = f"k_ptr + offs_n[:, None] * {kn} + ds[None, :] * stride_kd"
        k_mask = "(start_n + offs_n)[:, None] < N_KV"
    before = (f"    offs_n = {first}\n"
              f"    k_ptrs = {k_ptrs}\n"
              "    v_ptrs = v_ptr + offs_n[:, None] * stride_vn + ds[None, :] * stride_vd\n")
    loads = (f"        k = {load}(k_ptrs, mask={k_mask}, other=0.0)\n"
             f"        v = {load}(v_ptrs, mask=(start_n + offs_n)[:, None] < N_KV, other=0.0)\n")
    step = (f"        k_ptrs += BLOCK_N * {kn}\n"
            "        v_ptrs += BLOCK_N * stride_vn\n")
    return before, loads, step


def mutant(rng: random.Random, index: int) -> Mutant:
    """The ``index``-th mutant of ``rng``'s sequence."""
    kinds = sorted(rng.sample(KINDS, rng.randint(1, 3)))
    if "advance" in kinds and "helper" in kinds:  # the advanced pointers have no per-block rows to compute
        kinds.remove("helper")
    shift = rng.choice((1, 5, 16, 17)) if "shift" in kinds else 0
    source = BASE
    if "advance" in kinds:
        before, loads, step = _advanced(kinds, shift)
        source = _replace(source, "    for start_n in range(0, N_KV, BLOCK_N):\n",
                          before + "    for start_n in range(0, N_KV, BLOCK_N):\n")
        source = _replace(source, KV + LOADS, loads)
        source = _replace(source, LOOP_END, LOOP_END + step)
        if "trans" in kinds:
            source = _replace(source, DOT, "        s = tl.dot(q, k) * sm_scale\n")
        # the score mask names the block's rows
        source = _replace(source, "        s = tl.where(kv[None, :] < N_KV, s, float(\"-inf\"))\n",
                          "        s = tl.where((start_n + offs_n)[None, :] < N_KV, s, float(\"-inf\"))\n")
    else:
        rows = "start_n + tl.arange(0, BLOCK_N)"
        if "helper" in kinds:
            source = _replace(source, "\n\n@triton.jit\ndef attention_kernel",
                              HELPER + "\n\n@triton.jit\ndef attention_kernel")
            rows = "block_rows(start_n, BLOCK_N)"
        if shift:
            rows = f"{rows} + {shift}"
        if "widen" in kinds:
            rows = f"({rows}).to(tl.int64)"
        source = _replace(source, KV + LOADS, f"        kv = {rows}\n" + _loads(kinds, "kv"))
        if "trans" in kinds:
            source = _replace(source, DOT, "        s = tl.dot(q, k) * sm_scale\n")
    if "order" in kinds:
        source = _replace(source, "stride_kn, stride_kd, stride_vn", "stride_kd, stride_kn, stride_vn")
        source = _replace(source, "k.stride(0), k.stride(1), v.stride(0)", "k.stride(1), k.stride(0), v.stride(0)")
    if "named" in kinds:
        source = _replace(source, '"all-gather{tensor=k_ptr dim=0 size=N_KV name=agk}"',
                          '"all-gather{tensor=k_ptr dim=0 size=N_KV stride=stride_kn name=agk}"')
        source = _replace(source, '"all-gather{tensor=v_ptr dim=0 size=N_KV name=agv}"',
                          '"all-gather{tensor=v_ptr dim=0 size=N_KV stride=stride_vn name=agv}"')
    n_kv = rng.choice((32, 45, 64, 70))
    source = _replace(source, "S_Q, S_KV, HEAD_DIM = 20, 45, 16", f"S_Q, S_KV, HEAD_DIM = 20, {n_kv}, 16")
    return launched(rng, f"#{index} {'+'.join(kinds)} shift={shift} N_KV={n_kv}", source)


def mutants(seed: int, count: int) -> list[Mutant]:
    return sample(mutant, seed, count)


def main() -> int:
    return run_sample(__doc__, mutants, 60)


if __name__ == "__main__":
    sys.exit(main())

"""One benchmark case: its spec, this rank's random inputs and the references.

Every rank draws every rank's inputs from the same seeds (``seed``, source
rank, tensor), so references need no communication: the fp32 product of the
gathered (AG) or K-concatenated (RS, AR) bf16 inputs. Inputs are standard
normal, never zeros.

All-gather inputs come in :data:`AG_VERSIONS` versions (each with its own
references): the checks of an all-gather row cycle through them, so a
launch that read a peer's rows of the previous launch (a missing readiness
signal) reads other numbers and fails its check instead of re-reading
identical bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch

from syncopate.bench.check import staged_sum_rounding
from syncopate.bench.shapes import AG_GEMM, GEMM_RS, MOE_LAYER, REDUCED, RING_ATTN, ULYSSES_ATTN, LocalDims, Shape

PAPER_LAYERS = (MOE_LAYER, ULYSSES_ATTN, RING_ATTN)  # bench/paper_layers.py

# keys of Problem.references that a Variant's ``expect`` may name
OUT, GATHERED, PARTIAL = "out", "gathered", "partial"
AG_VERSIONS = 2  # input versions of an all-gather problem (see the module doc)


def reference_key(expect: str, version: int) -> str:
    """The key of ``Problem.references`` for reference ``expect`` of input version ``version``."""
    return expect if version == 0 else f"{expect}@{version}"


@dataclass
class Problem:
    """This rank's inputs and the fp32 references its variants are checked against.

    ag-gemm: ``a`` is the M/W x K shard, ``b`` this rank's K x N/W block,
    ``a_full`` the gathered M x K A (for compute-alone rows);
    references ``out`` (M x N/W) and ``gathered`` (= a_full); version
    ``v`` > 0 of the inputs is ``a_versions[v]`` / ``a_full_versions[v]``
    with references ``out@v`` and ``gathered@v``.

    gemm-rs: ``a`` is M x K/W, ``b`` K/W x N, ``partial`` this rank's bf16
    A_r @ B_r (input of the communication-alone row); references ``out``
    (rows r*M/W.. of the sum, M/W x N) and ``partial`` (fp32 A_r @ B_r);
    ``rounding`` is what summing the W partials in the dtype may add to each
    element of ``out`` (bench/check.py, ``staged_sum_rounding``): the fused
    reductions and NCCL's ring both round every partial and running sum.

    gemm-ar: as gemm-rs, but ``out`` (and ``rounding``) cover all M rows of
    the sum: every rank ends with all of it.
    """

    a: torch.Tensor
    b: torch.Tensor
    a_full: torch.Tensor | None = None
    partial: torch.Tensor | None = None
    references: dict[str, torch.Tensor] = field(default_factory=dict)
    a_versions: tuple[torch.Tensor, ...] = ()  # ag-gemm: the shard of every input version (version 0 = a)
    a_full_versions: tuple[torch.Tensor, ...] = ()  # ag-gemm: the gathered A of every input version
    rounding: torch.Tensor | None = None  # gemm-rs, gemm-ar: the allowance of ``out`` for the partials' rounding

    @property
    def versions(self) -> int:
        return max(1, len(self.a_versions))


@dataclass
class BenchSpec:
    """What a variant builder gets: the shape, sizes, dtype, config and data."""

    shape: Shape
    world: int
    rank: int
    dtype: torch.dtype
    config: Any  # GemmConfig (GEMM workloads) or attention.AttnConfig (ag-attn)
    problem: Any  # Problem (GEMM workloads), attention.AttnProblem (ag-attn), moe.MoeProblem (a2a-gemm)

    @property
    def workload(self) -> str:
        return self.shape.workload

    @property
    def dims(self) -> LocalDims:
        return self.shape.local(self.world)

    @property
    def label(self) -> str:
        return self.shape.label(self.world)

    @property
    def own_rows(self) -> tuple[int, int]:
        """This rank's rows of the M dimension: ``[r*M/W, (r+1)*M/W)``."""
        per = self.shape.M // self.world
        return self.rank * per, (self.rank + 1) * per

    @property
    def kept_rows(self) -> tuple[int, int]:
        """The rows of the reduced sum this rank ends with (gemm-rs, gemm-ar; see :func:`kept_rows`)."""
        return kept_rows(self.shape, self.world, self.rank)


def kept_rows(shape: Shape, world: int, rank: int) -> tuple[int, int]:
    """The rows of a reduced GEMM's sum that rank ``rank`` ends with: its own
    ``[r*M/W, (r+1)*M/W)`` after a reduce-scatter, all M after an all-reduce."""
    if shape.workload == GEMM_RS:
        per = shape.M // world
        return rank * per, (rank + 1) * per
    return 0, shape.M


def randn(shape: tuple[int, ...], seed: int, device: torch.device, dtype: torch.dtype) -> torch.Tensor:
    g = torch.Generator(device=device)
    g.manual_seed(seed)
    return torch.randn(shape, generator=g, device=device, dtype=torch.float32).to(dtype)


def seed_of(base: int, source: int, tensor: int) -> int:
    return base * 1_000_003 + source * 101 + tensor


def make_problem(shape: Shape, world: int, rank: int, device: torch.device, dtype: torch.dtype,
                 seed: int = 0) -> Problem:
    """Rank ``rank``'s inputs and references for a GEMM workload."""
    d = shape.local(world)
    if shape.workload == AG_GEMM:
        b = randn(d.b, seed_of(seed, rank, 1), device, dtype)
        mine, fulls, references = [], [], {}
        for version in range(AG_VERSIONS):
            tensor = 0 if version == 0 else 1 + version  # tensor 1 is B
            shards = [randn(d.a, seed_of(seed, s, tensor), device, dtype) for s in range(world)]
            a_full = torch.cat(shards, dim=0).contiguous()
            mine.append(shards[rank].contiguous())
            fulls.append(a_full)
            references[reference_key(OUT, version)] = a_full.float() @ b.float()
            references[reference_key(GATHERED, version)] = a_full
        return Problem(a=mine[0], b=b, a_full=fulls[0], references=references,
                       a_versions=tuple(mine), a_full_versions=tuple(fulls))
    if shape.workload in REDUCED:
        lo, hi = kept_rows(shape, world, rank)
        reduced = torch.zeros(d.out, dtype=torch.float32, device=device)
        magnitude = torch.zeros(d.out, dtype=torch.float32, device=device)  # sum of |partial|
        a = b = None
        for s in range(world):
            a_s = randn(d.a, seed_of(seed, s, 0), device, dtype)
            b_s = randn(d.b, seed_of(seed, s, 1), device, dtype)
            part = a_s[lo:hi].float() @ b_s.float()
            reduced += part
            magnitude += part.abs()
            if s == rank:
                a, b = a_s, b_s
        assert a is not None and b is not None
        partial_ref = a.float() @ b.float()
        return Problem(a=a, b=b, partial=partial_ref.to(dtype), references={OUT: reduced, PARTIAL: partial_ref},
                       rounding=staged_sum_rounding(magnitude, world, dtype))
    raise ValueError(f"workload '{shape.workload}' has no GEMM problem")

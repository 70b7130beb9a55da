"""Porting DTensor-style placement changes to chunk plans.

Over a 1-D mesh of W ranks a tensor is ``Shard(d)`` (split along dim d),
``Replicate()`` (full copy everywhere) or ``Partial()`` (every rank holds a
partial sum). A change of placement is a collective:

==================  ===========================  ====================
from                to                           collective
==================  ===========================  ====================
``Shard(d)``        ``Replicate()``              all-gather on dim d
``Partial()``       ``Shard(d)``                 reduce-scatter on d
``Partial()``       ``Replicate()``              all-reduce
``Shard(a)``        ``Shard(b)``, a != b         all-to-all on dim a
==================  ===========================  ====================

Placements are written ``Shard(0)``, ``Replicate()``, ``Partial()`` (quote
them in a spec: ``from="Shard(0)"``) or, unquoted, ``shard-0`` / ``S0``,
``replicate`` / ``R``, ``partial`` / ``P``. Spec form::

    port{from="Shard(0)" to="Replicate()" world=4 tensor=a}
    port{from=partial to=shard-1 world=8 size=4096 chunks_per_rank=2}

All template options except ``dim`` and ``splits`` are accepted and passed on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from syncopate.ir.plans.errors import PlanError
from syncopate.ir.plans.model import Plan
from syncopate.ir.plans.templates import TemplateOptions, instantiate


@dataclass(frozen=True)
class Shard:
    dim: int

    def __str__(self) -> str:
        return f"Shard({self.dim})"


@dataclass(frozen=True)
class Replicate:
    def __str__(self) -> str:
        return "Replicate()"


@dataclass(frozen=True)
class Partial:
    def __str__(self) -> str:
        return "Partial()"


Placement = Shard | Replicate | Partial

SUPPORTED_PAIRS = (
    "Shard(d) -> Replicate() (all-gather)",
    "Partial() -> Shard(d) (reduce-scatter)",
    "Partial() -> Replicate() (all-reduce)",
    "Shard(a) -> Shard(b), a != b (all-to-all)",
)

_SHARD = re.compile(r"^(?:shard\((\d+)\)|shard-?(\d+)|s(\d+))$")


def parse_placement(text: str) -> Placement:
    """``Shard(0)`` / ``shard-0`` / ``S0``, ``Replicate()`` / ``R``, ``Partial()`` / ``P``."""
    t = text.strip().lower().replace(" ", "")
    if m := _SHARD.match(t):
        return Shard(int(next(g for g in m.groups() if g is not None)))
    if t in ("replicate()", "replicate", "r"):
        return Replicate()
    if t in ("partial()", "partial", "p"):
        return Partial()
    raise PlanError(
        f"unknown placement {text!r}; write Shard(d), Replicate() or Partial() "
        "(or shard-d, replicate, partial)"
    )


def collective_for(src: Placement, dst: Placement) -> tuple[str, int]:
    """(collective kind, dim) that turns placement ``src`` into ``dst``."""
    match src, dst:
        case Shard(d), Replicate():
            return "all-gather", d
        case Partial(), Shard(d):
            return "reduce-scatter", d
        case Partial(), Replicate():
            return "all-reduce", 0
        case Shard(a), Shard(b) if a != b:
            return "all-to-all", a
    raise PlanError(
        f"cannot port {src} -> {dst}: no collective for this placement change. "
        "Supported: " + "; ".join(SUPPORTED_PAIRS)
    )


def port(
    src: Placement | str,
    dst: Placement | str,
    world: int,
    tensor: str = "a",
    **options: object,
) -> Plan:
    """The (unverified) plan of a placement change over a 1-D mesh of ``world`` ranks.

    ``options`` are template options (size, chunks_per_rank, order, name, param).
    """
    src_p = parse_placement(src) if isinstance(src, str) else src
    dst_p = parse_placement(dst) if isinstance(dst, str) else dst
    kind, dim = collective_for(src_p, dst_p)
    return instantiate(TemplateOptions(kind=kind, world=world, tensor=tensor, dim=dim, **options))  # type: ignore[arg-type]

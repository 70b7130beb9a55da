"""What every world needs to run a push all-reduce (push-all-reduce, ``syn_push_reduce``).

A pushed plan has one ``push`` table of W rows (lowering/device_helpers.py
says what each word means). The flags live in each rank's signal pad after
the launch's other flags: word ``base + source * tiles + tile`` holds the
epoch of the last launch whose tile ``tile`` of rank ``source`` pushed its
partial here. Staging is, per rank, ``2 * W`` slots shaped like the
output's storage (epoch parity, then source), so a slot holds the same
element offsets as the output and the helper reaches it as ``ptrs + offset``.

Waiting inside the kernel for other ranks' tiles is safe only when every
program of the launch is resident at once: a program that never starts
never pushes. :func:`residency_error` is the rule both worlds apply.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch

from syncopate.runtime.abi import pushed_plans
from syncopate.runtime.fused import FusedProgram
from syncopate.runtime.rows import storage_span

__all__ = ["PushLayout", "SIMULATED_SMS", "distance", "pushed_plans", "residency_error", "span"]

SIMULATED_SMS = 132  # the simulator applies the rule of an H100 / H200 (132 SMs)


def residency_error(program: FusedProgram, grid: tuple[int, ...], sms: int) -> str | None:
    """Why a launch of ``grid`` may hang (None: it may not): its tiles wait
    for peers' tiles, which needs every program resident at once, and a GPU
    with ``sms`` SMs guarantees that only for at most ``sms`` programs."""
    programs = math.prod(grid)
    if programs <= sms:
        return None
    return (f"'{program.kernel_name}' all-reduces by push (push-all-reduce), so each tile waits for the same tile "
            f"of every peer; that needs every program resident at once, but the grid {tuple(grid)} has {programs} "
            f"programs for {sms} SMs: use larger tiles, or reduce=stream / reduce=epilogue for this shape")


@dataclass(frozen=True)
class PushLayout:
    """One rank's flags and staging for a pushed plan (see the module docstring)."""

    world: int
    tiles: int
    base: int  # the pad word of (source 0, tile 0)

    @property
    def flag_end(self) -> int:
        return self.base + self.world * self.tiles

    def flag(self, source: int, tile: int) -> int:
        return self.base + source * self.tiles + tile

    def staging_shape(self, out: torch.Tensor) -> tuple[int, int, int]:
        """(parity, source, elements): each slot spans the output's storage."""
        return (2, self.world, span(out))

    def rows(self, rank: int, out: torch.Tensor, slot_of: Callable[[int, int, int], torch.Tensor],
             raise_word: Callable[[int], int]) -> list[list[int]]:
        """The push table of ``rank``: ``slot_of(owner, parity, source)`` is
        the slot of ``owner``'s staging that ``source`` writes (as this rank
        sees it: a peer view on GPUs), ``raise_word(q)`` the word offset from
        this rank's pad to the flag (tile 0) it raises for peer ``q`` (on
        GPUs ``flag(rank, 0)`` in ``q``'s pad)."""
        table = []
        for q in range(self.world):
            if q == rank:
                table.append([0, 0, 0, 0, 0, -1])
                continue
            writes = [distance(out, slot_of(q, parity, rank)) for parity in (0, 1)]
            reads = [distance(out, slot_of(rank, parity, q)) for parity in (0, 1)]
            table.append([*writes, *reads, raise_word(q), self.flag(q, 0)])
        return table


def span(t: torch.Tensor) -> int:
    """Elements of one staging slot for ``t``: its storage extent, at least
    one (a slot of an empty output still needs an address)."""
    return max(storage_span(t), 1)


def distance(base: torch.Tensor, to: torch.Tensor) -> int:
    """``to``'s address minus ``base``'s, in elements of ``base``."""
    size = base.element_size()
    delta = to.data_ptr() - base.data_ptr()
    if delta % size or to.element_size() != size:
        raise ValueError(f"staging at {to.data_ptr():#x} is not a whole number of {size}-byte elements from the "
                         f"tensor at {base.data_ptr():#x}")
    return delta // size

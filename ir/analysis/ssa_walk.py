"""Walking back from an SSA value to the op results it is computed from."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from xdsl.ir import OpResult, SSAValue


def results_reached(start: SSAValue, follow: Callable[[OpResult], Iterable[SSAValue]]) -> Iterator[OpResult]:
    """Each op result reached from ``start`` (itself first), once: from a
    result the walk goes on to the values ``follow`` gives for it (its op's
    operands, or fewer where the walk should stop). Block arguments end it."""
    work, seen = [start], set()
    while work:
        value = work.pop()
        if value in seen or not isinstance(value, OpResult):
            continue
        seen.add(value)
        yield value
        work.extend(follow(value))

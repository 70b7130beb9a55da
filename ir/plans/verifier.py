"""Semantic verifier of chunk plans.

Checks what a wrong plan would silently break, for every rank:

* structure: ranks in ``[0, W)``, unique chunk ids, every chunk's tensor bound
  by a ``chunk.tensor``, one split dim per tensor, only known symbols;
* exact tiling: the local chunks (``src == dst``, a rank's own shard) tile
  each tensor across ranks with no gap and no overlap; chunks stay inside the
  tensor; for all-to-all, each (src, dst) block of the receiver's output is
  tiled exactly;
* completeness: after the last step every rank holds every region the
  collective promises it (all of the tensor for all-gather / all-reduce /
  ring-exchange, its fully reduced shard for reduce-scatter);
* step order: a chunk is only sent from a rank that holds the region before
  that step (gathers), and no partial sum is counted twice (reductions).

Symbolic plans are checked symbolically where the boundaries can be ordered
for every value of the symbols: the chunk boundaries of a tensor (sympy
expressions, see :mod:`syncopate.ir.plans.expr`) are merged when they are
equal symbolically, ordered, and every consecutive order and every chunk size
is proved non-negative (:func:`~syncopate.ir.plans.expr.provably_nonnegative`);
the checks then run once on the symbolic segments and errors name symbolic
ranges such as ``[2*(M/2), M)``. When a proof fails (a symbolic divisor,
boundaries whose order depends on the values) and for all-to-all plans, the
extents are evaluated at several bindings of the shape symbols (``W`` is
always the world size), including values that do not divide evenly, and the
checks run at each. All problems raise :class:`PlanError` naming the chunk(s).

Simulation model: chunks of one step are all sent from the state at the start
of that step. Reductions track, per rank and region, the set of ranks whose
contribution the value contains; a received value that already contains every
rank is a finished result and overwrites, otherwise it is added (and must not
share contributors with what the receiver has).
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Iterable

from syncopate.ir.plans.errors import PlanError
import sympy

from syncopate.ir.plans.expr import evaluate, from_sympy, provably_nonnegative, symbols, to_sympy
from syncopate.ir.plans.model import Chunk, Plan, Tensor, from_op

_GATHERS = ("all-gather", "ring-exchange")
_REDUCTIONS = ("reduce-scatter", "all-reduce")


def verify_plan(plan: Plan | object) -> None:
    """Raise PlanError if ``plan`` (a Plan or a chunk.plan op) is wrong."""
    if not isinstance(plan, Plan):
        plan = from_op(plan)  # type: ignore[arg-type]
    tensors = _check_structure(plan)
    envs = _environments(plan)
    for name, tensor in tensors.items():
        chunks = [c for c in plan.chunks if c.tensor == name]
        if not chunks:
            raise PlanError(f"tensor '{name}' is bound but has no chunks")
        segments = _Symbolic.order(plan, tensor, chunks) if len(envs) > 1 else None
        if segments is not None:
            _check_segments(plan, tensor, segments)
            continue
        for env in envs:
            try:
                _check_tensor(plan, tensor, chunks, env)
            except PlanError as err:
                raise PlanError(f"{err}{_env_note(env)}") from None


# ---------------------------------------------------------------- structure


def _check_structure(plan: Plan) -> dict[str, Tensor]:
    w = plan.world
    if not plan.chunks:
        raise PlanError("the plan has no chunks")
    tensors: dict[str, Tensor] = {}
    for t in plan.tensors:
        if t.name in tensors:
            raise PlanError(f"tensor '{t.name}' is bound twice")
        tensors[t.name] = t
    seen: dict[int, Chunk] = {}
    dims: dict[str, Chunk] = {}
    for c in plan.chunks:
        for role, rank in (("src", c.src), ("dst", c.dst)):
            if not 0 <= rank < w:
                raise PlanError(f"{c.describe()}: {role} rank {rank} is outside [0, {w})")
        if c.id in seen:
            raise PlanError(
                f"chunk id {c.id} is used twice: {seen[c.id].describe()} and {c.describe()}"
            )
        seen[c.id] = c
        if c.tensor not in tensors:
            raise PlanError(
                f"{c.describe()}: tensor '{c.tensor}' has no chunk.tensor binding"
            )
        rank = len(tensors[c.tensor].shape)
        if not 0 <= c.dim < rank:
            raise PlanError(
                f"{c.describe()}: dim {c.dim} is out of range for tensor "
                f"'{c.tensor}' of rank {rank}"
            )
        first = dims.setdefault(c.tensor, c)
        if first.dim != c.dim:
            raise PlanError(
                f"tensor '{c.tensor}' is split along two dims: {first.describe()} "
                f"uses dim {first.dim}, {c.describe()} uses dim {c.dim}"
            )
        known = _shape_symbols(plan)
        for what in (c.offset, c.size):
            unknown = symbols(what) - known
            if unknown:
                raise PlanError(
                    f"{c.describe()}: unknown symbol(s) {', '.join(sorted(unknown))}; "
                    f"known: {', '.join(sorted(known))}"
                )
    return tensors


def _shape_symbols(plan: Plan) -> frozenset[str]:
    names = {"W"}
    for t in plan.tensors:
        for s in t.shape:
            names |= symbols(s)
    return frozenset(names)


def _environments(plan: Plan) -> list[dict[str, int]]:
    """Symbol bindings to check the plan at (one if nothing is symbolic)."""
    used: set[str] = set()
    for c in plan.chunks:
        used |= symbols(c.offset) | symbols(c.size)
    for t in plan.tensors:
        for s in t.shape:
            used |= symbols(s)
    for s in plan.splits or ():
        used |= symbols(s)
    used.discard("W")
    if not used:
        return [{"W": plan.world}]
    n = max(1, len(plan.chunks))
    envs = []
    for base in (4 * n + 1, 8 * n + 3, 16 * n):
        env = {name: base + 2 * j for j, name in enumerate(sorted(used))}
        env["W"] = plan.world
        envs.append(env)
    return envs


def _env_note(env: dict[str, int]) -> str:
    shown = {k: v for k, v in env.items() if k != "W"}
    if not shown:
        return ""
    return " (checked with " + ", ".join(f"{k}={v}" for k, v in sorted(shown.items())) + ")"


# ---------------------------------------------------------------- intervals


class _Concrete:
    """A tensor's chunks evaluated at one symbol binding, over elementary segments."""

    def nonempty(self, s: int) -> bool:
        return self.bounds[s] < self.bounds[s + 1]

    def __init__(
        self,
        plan: Plan,
        tensor: Tensor,
        chunks: list[Chunk],
        env: dict[str, int],
        extra_bounds: Iterable[int] = (),
    ):
        self.plan = plan
        self.chunks = chunks
        dim = chunks[0].dim
        self.extent = evaluate(tensor.shape[dim], env)
        if self.extent < 0:
            raise PlanError(f"tensor '{tensor.name}' has negative extent {self.extent}")
        self.span: dict[int, tuple[int, int]] = {}
        bounds = {0, self.extent, *extra_bounds}
        for c in chunks:
            off, size = evaluate(c.offset, env), evaluate(c.size, env)
            if off < 0 or size < 0:
                raise PlanError(f"{c.describe()} has negative offset or size ({off}, {size})")
            if off + size > self.extent and plan.kind != "all-to-all":
                raise PlanError(
                    f"{c.describe()} covers [{off}, {off + size}), past the end of "
                    f"tensor '{tensor.name}' (extent {self.extent})"
                )
            self.span[c.id] = (off, off + size)
            bounds |= {off, off + size}
        self.bounds = sorted(bounds)

    def segs(self, c: Chunk) -> range:
        """Indices of the elementary segments chunk ``c`` covers."""
        lo, hi = self.span[c.id]
        return range(bisect.bisect_left(self.bounds, lo), bisect.bisect_left(self.bounds, hi))

    def seg_range(self, lo_seg: int, hi_seg: int) -> str:
        return f"[{self.bounds[lo_seg]}, {self.bounds[hi_seg]})"

    def segs_between(self, lo: int, hi: int) -> range:
        return range(bisect.bisect_left(self.bounds, lo), bisect.bisect_left(self.bounds, hi))

    def region(self, c: Chunk) -> str:
        lo, hi = self.span[c.id]
        return f"[{lo}, {hi})"


class _Symbolic(_Concrete):
    """A tensor's chunks over symbolic segments: the distinct boundaries in an
    order that holds for every value of the symbols."""

    def __init__(self, plan: Plan, chunks: list[Chunk], bounds: list[sympy.Expr], span: dict[int, tuple[int, int]]):
        self.plan, self.chunks, self.span = plan, chunks, span
        self.bounds = bounds

    @classmethod
    def order(cls, plan: Plan, tensor: Tensor, chunks: list[Chunk]) -> _Symbolic | None:
        """The symbolic segments of ``tensor``, or None if their order (or a
        chunk size's sign) cannot be proved."""
        if plan.kind == "all-to-all":
            return None
        extent = to_sympy(tensor.shape[chunks[0].dim])
        points: list[sympy.Expr] = [sympy.Integer(0), extent]
        ends: dict[int, tuple[sympy.Expr, sympy.Expr]] = {}
        for c in chunks:
            off, size = to_sympy(c.offset), to_sympy(c.size)
            if not (provably_nonnegative(off) and provably_nonnegative(size)):
                return None
            ends[c.id] = (off, off + size)
            points += [off, off + size]
        canonical = {p: sympy.expand(p) for p in points}
        distinct = list(dict.fromkeys(canonical.values()))
        sample = {s: 1009 + 104 * i for i, s in enumerate(sorted(extent.free_symbols | {
            s for p in distinct for s in p.free_symbols}, key=str))}
        distinct.sort(key=lambda p: p.xreplace(sample))
        if not all(provably_nonnegative(b - a) for a, b in zip(distinct, distinct[1:])):
            return None
        if sympy.expand(distinct[0]) != 0:
            return None

        position = {p: i for i, p in enumerate(distinct)}

        def index(p: sympy.Expr) -> int:
            return position[canonical[p]]

        last = index(extent)
        span = {cid: (index(lo), index(hi)) for cid, (lo, hi) in ends.items()}
        for c in chunks:
            if span[c.id][1] > last:
                raise PlanError(
                    f"{c.describe()} covers {_show(ends[c.id][0], ends[c.id][1])}, past the end of "
                    f"tensor '{tensor.name}' (extent {from_sympy(extent)})"
                )
        return cls(plan, chunks, distinct[: last + 1], span)

    def segs(self, c: Chunk) -> range:
        return range(*self.span[c.id])

    def seg_range(self, lo_seg: int, hi_seg: int) -> str:
        return _show(self.bounds[lo_seg], self.bounds[hi_seg])

    def nonempty(self, s: int) -> bool:
        return True  # distinct boundaries: the segment has rows for some binding


def _show(lo: sympy.Expr, hi: sympy.Expr) -> str:
    return f"[{from_sympy(lo)}, {from_sympy(hi)})"


def _runs(segs: Iterable[int]) -> list[tuple[int, int]]:
    """Group sorted segment indices into maximal [first, last+1) runs."""
    runs: list[tuple[int, int]] = []
    for s in sorted(segs):
        if runs and runs[-1][1] == s:
            runs[-1] = (runs[-1][0], s + 1)
        else:
            runs.append((s, s + 1))
    return runs


def _check_tiling(
    con: _Concrete, chunks: list[Chunk], segs: range, what: str
) -> None:
    """``chunks`` cover exactly the segments ``segs``: no gap, no overlap."""
    owner: dict[int, Chunk] = {}
    for c in chunks:
        for s in con.segs(c):
            if s in owner:
                other = owner[s]
                raise PlanError(
                    f"{c.describe()} overlaps {other.describe()} on "
                    f"{con.seg_range(s, s + 1)} of {what}"
                )
            owner[s] = c
    missing = [s for s in segs if s not in owner and con.nonempty(s)]
    if missing:
        lo, hi = _runs(missing)[0]
        raise PlanError(f"gap: no chunk covers {con.seg_range(lo, hi)} of {what}")


# ---------------------------------------------------------------- semantics


def _check_tensor(plan: Plan, tensor: Tensor, chunks: list[Chunk], env: dict[str, int]) -> None:
    if plan.kind == "all-to-all":
        _check_all_to_all(plan, tensor, chunks, env)
        return
    _check_segments(plan, tensor, _Concrete(plan, tensor, chunks, env))


def _check_segments(plan: Plan, tensor: Tensor, con: _Concrete) -> None:
    chunks = con.chunks
    everything = range(len(con.bounds) - 1)
    local = [c for c in chunks if c.is_local]
    _check_tiling(
        con, local, everything,
        f"tensor '{tensor.name}' by the ranks' own shards (local chunks, src == dst)",
    )
    if plan.kind in _GATHERS:
        _simulate_gather(plan, con)
    else:
        _simulate_reduction(plan, con)


def _by_step(chunks: list[Chunk]) -> list[list[Chunk]]:
    steps: dict[int, list[Chunk]] = defaultdict(list)
    for c in chunks:
        if not c.is_local:
            steps[c.step].append(c)
    return [steps[k] for k in sorted(steps)]


def _simulate_gather(plan: Plan, con: _Concrete) -> None:
    w = plan.world
    nseg = len(con.bounds) - 1
    held: list[dict[int, Chunk]] = [dict() for _ in range(w)]
    for c in con.chunks:
        if c.is_local:
            for s in con.segs(c):
                held[c.src][s] = c
    for group in _by_step(con.chunks):
        for c in group:
            if plan.kind == "ring-exchange" and c.dst != (c.src + 1) % w:
                raise PlanError(
                    f"{c.describe()}: a ring-exchange only sends to the next rank "
                    f"({(c.src + 1) % w}), not to rank {c.dst}"
                )
            for s in con.segs(c):
                if s not in held[c.src]:
                    later = [
                        d for d in con.chunks
                        if d.dst == c.src and not d.is_local and s in con.segs(d)
                    ]
                    why = (
                        f"; it only arrives there with {later[0].describe()}"
                        if later else "; no chunk ever brings it there"
                    )
                    raise PlanError(
                        f"{c.describe()} sends {con.seg_range(s, s + 1)} from rank "
                        f"{c.src} at step {c.step}, but rank {c.src} does not hold it "
                        f"before that step{why}"
                    )
        for c in group:
            for s in con.segs(c):
                if s in held[c.dst]:
                    raise PlanError(
                        f"{c.describe()} delivers {con.seg_range(s, s + 1)} to rank "
                        f"{c.dst}, which already holds it from {held[c.dst][s].describe()}"
                    )
                held[c.dst][s] = c
    _report_missing(con, [set(range(nseg)) - set(h) for h in held], "never receives")


def _report_missing(con: _Concrete, missing: list[set[int]], verb: str) -> None:
    for rank, segs in enumerate(missing):
        segs = {s for s in segs if con.nonempty(s)}
        if segs:
            lo, hi = _runs(segs)[0]
            raise PlanError(
                f"rank {rank} {verb} {con.seg_range(lo, hi)} of tensor "
                f"'{con.chunks[0].tensor}'"
            )


def _simulate_reduction(plan: Plan, con: _Concrete) -> None:
    w = plan.world
    full = frozenset(range(w))
    nseg = len(con.bounds) - 1
    acc = [[frozenset({r}) for _ in range(nseg)] for r in range(w)]
    for group in _by_step(con.chunks):
        sent = {c.id: [acc[c.src][s] for s in con.segs(c)] for c in group}
        for c in group:
            for s, value in zip(con.segs(c), sent[c.id]):
                have = acc[c.dst][s]
                if value == full:
                    if have == full:
                        raise PlanError(
                            f"{c.describe()} delivers the finished {con.seg_range(s, s + 1)} "
                            f"to rank {c.dst}, which already holds the complete result "
                            "(duplicate or overlapping chunk)"
                        )
                    acc[c.dst][s] = full
                    continue
                if have & value:
                    raise PlanError(
                        f"{c.describe()} adds the contributions of ranks "
                        f"{sorted(value)} to {con.seg_range(s, s + 1)} on rank {c.dst}, "
                        f"which already has those of ranks {sorted(have)}: "
                        f"ranks {sorted(have & value)} would be counted twice"
                    )
                acc[c.dst][s] = have | value
    if plan.kind == "all-reduce":
        targets = [set(range(nseg)) for _ in range(w)]
    else:
        targets = [set() for _ in range(w)]
        for c in con.chunks:
            if c.is_local:
                targets[c.src] |= set(con.segs(c))
    for rank in range(w):
        for s in sorted(targets[rank]):
            if acc[rank][s] != full and con.nonempty(s):
                lacking = sorted(full - acc[rank][s])
                raise PlanError(
                    f"rank {rank} ends with {con.seg_range(s, s + 1)} of tensor "
                    f"'{con.chunks[0].tensor}' missing the contributions of ranks "
                    f"{lacking} (a chunk is missing or sent before its partial sum "
                    "was complete)"
                )


def _check_all_to_all(
    plan: Plan, binding: Tensor, chunks: list[Chunk], env: dict[str, int]
) -> None:
    """All-to-all chunks are in the receiver's output coordinates: the block
    from rank s sits after the blocks from ranks < s (sizes from ``splits``)."""
    w = plan.world
    tensor = binding.name
    split = None
    starts: list[int] = []
    if plan.splits is not None:
        split = [[evaluate(plan.splits[s * w + d], env) for d in range(w)] for s in range(w)]
        for d in range(w):
            for s in range(w + 1):
                starts.append(sum(split[t][d] for t in range(s)))
    con = _Concrete(plan, binding, chunks, env, starts)
    if split is None:
        for d in range(w):
            mine = [c for c in con.chunks if c.dst == d]
            _check_tiling(con, mine, range(len(con.bounds) - 1),
                          f"tensor '{tensor}' on rank {d}")
        return
    for d in range(w):
        start = 0
        for s in range(w):
            lo, hi = start, start + split[s][d]
            start = hi
            pair = [c for c in con.chunks if c.src == s and c.dst == d]
            for c in pair:
                clo, chi = con.span[c.id]
                if clo < lo or chi > hi:
                    raise PlanError(
                        f"{c.describe()} covers [{clo}, {chi}) of tensor '{tensor}' on "
                        f"rank {d}, but the data from rank {s} occupies [{lo}, {hi})"
                    )
            _check_tiling(con, pair, con.segs_between(lo, hi),
                          f"the block rank {s} sends to rank {d} ([{lo}, {hi}) of "
                          f"tensor '{tensor}')")

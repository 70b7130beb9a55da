"""Concrete chunk plans and the tile -> chunk dependency graph.

chunk-dependency-analysis leaves symbolic footprints on the kernel's
accesses (``chunk.access``); for concrete sizes (the launch's arguments) and
a grid, this module evaluates the plans and the footprints into a networkx
graph: an edge ``chunk -> tile`` when the tile reads the chunk on this rank,
``tile -> chunk`` when it writes it. The runtime builds chunk tables, signal
counts and tile orders from it; tests inspect it.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import networkx as nx
from xdsl.dialects.builtin import DictionaryAttr, ModuleOp

from syncopate.dialects import tile
from syncopate.dialects.chunk import PlanOp, extent_value
from syncopate.ir.contract import ACCESS_ATTR
from syncopate.ir.contract import AccessKey as K
from syncopate.ir.locations import describe
from syncopate.ir.plans.expr import evaluate, parse_expression
from syncopate.runtime.errors import AbiError


@dataclass(frozen=True)
class ConcreteChunk:
    plan: str
    id: int
    flag: int  # index in the signal pad
    tensor: str
    param: str
    dim: int
    lo: int
    hi: int
    src: int
    dst: int
    step: int
    backend: str

    @property
    def is_local(self) -> bool:
        return self.src == self.dst


@dataclass(frozen=True)
class Footprint:
    """One access's ``chunk.access`` attribute."""

    plan: str
    tensor: str
    role: str
    lo: str  # host expression or "?"
    extent: str
    wrap: str | None = None  # the rows are (lo + i) % wrap (host expression or "?")
    other: tuple[str, str] | None = None  # (lo, extent) of the row `tl.where` redirects lanes to
    where: str = ""  # the access, for errors (``file.py:12: 'tile.load'``)

    def intervals(self, lo: int, extent: int, wrap: int | None,
                  other: tuple[int, int] | None = None) -> list[tuple[int, int]]:
        """The half-open row ranges of ``[lo, lo + extent)``, taken modulo
        ``wrap`` when the footprint wraps (Triton's ``%``: lanes below row 0 stay negative), plus ``other``."""
        if other is not None:
            return [(lo, lo + extent), (other[0], other[0] + other[1])]
        if wrap is None:
            return [(lo, lo + extent)]
        if lo < 0:
            # Triton's `%` keeps the dividend's sign: the lanes below row 0 stay in (-wrap, 0]
            negative = min(0, lo + extent)
            first = -(-lo // wrap) * wrap  # the first multiple of wrap at or above lo: row 0
            rows = [(max(lo, 1 - wrap), 0 if first >= negative else 1)]
            return rows + (self.intervals(0, lo + extent, wrap) if lo + extent > 0 else [])
        if extent >= wrap:
            return [(0, wrap)]
        start = lo % wrap
        return [(start, min(start + extent, wrap)), (0, start + extent - wrap)]


def concrete_chunks(plan: PlanOp, env: Mapping[str, int], flag_base: int) -> list[ConcreteChunk]:
    """The plan's chunks with offsets and sizes evaluated at ``env``."""
    params = {t.tensor.data: t.param.data for t in plan.tensors}
    env = {"W": plan.world_size, **env}
    chunks = []
    for c in plan.chunks:
        lo = evaluate(extent_value(c.offset), env)
        size = evaluate(extent_value(c.size), env)
        chunks.append(
            ConcreteChunk(
                plan.sym_name.data, c.chunk_id.value.data, flag_base + c.chunk_id.value.data, c.tensor.data,
                params[c.tensor.data], c.dim.value.data, lo, lo + size, c.src.value.data, c.dst.value.data,
                c.step.value.data, c.backend.data,
            )
        )
    return chunks


def kernel_chunks(plan: PlanOp, env: Mapping[str, int], flag_base: int) -> list[ConcreteChunk]:
    """The chunks of ``plan`` the fused kernel takes part in: every chunk,
    but of an all-reduce only its reduction phase. An all-reduce is a
    reduce-scatter to the rows' owners, then a gather of the owners' summed
    rows; the kernel announces its partial rows for the first, and the
    runtime runs the second once the owners have summed. The gather phase
    starts at the first step in which an owner sends its own rows (the
    rows are complete there); every chunk of a later step belongs to it."""
    chunks = concrete_chunks(plan, env, flag_base)
    if plan.collective != "all-reduce":
        return chunks
    gather = reduced_gather_step(chunks)
    return [c for c in chunks if c.is_local or c.step < gather]


def reduced_gather_step(chunks: list[ConcreteChunk]) -> int:
    """The first step of an all-reduce plan's gather phase (see :func:`kernel_chunks`)."""
    if all(c.is_local for c in chunks):  # a world of one: each rank's own rows are the sum already
        return max((c.step for c in chunks), default=0) + 1
    sends = [c.step for c in chunks if not c.is_local and c.src == owner(chunks, c)]
    if not sends:
        raise ValueError(f"all-reduce plan @{chunks[0].plan if chunks else '?'}: no chunk sends an owner's summed "
                         "rows to another rank, so no rank but the owner would get them")
    return min(sends)


def footprints(kernel: tile.FuncOp) -> list[Footprint]:
    result = []
    for op in kernel.walk():
        attr = op.attributes.get(ACCESS_ATTR)
        if isinstance(attr, DictionaryAttr):
            d = attr.data
            wrap = d[K.WRAP].data if K.WRAP in d else None  # type: ignore[union-attr]
            other = (d[K.ELSE_LO].data, d[K.ELSE_EXTENT].data) if K.ELSE_LO in d else None  # type: ignore[union-attr]
            result.append(
                Footprint(d[K.PLAN].string_value(), d[K.TENSOR].data, d[K.ROLE].data, d[K.LO].data, d[K.EXTENT].data,  # type: ignore[union-attr]
                          wrap, other, describe(op))
            )
    return result


def rank_chunks(chunks: list[ConcreteChunk], rank: int, role: str) -> list[ConcreteChunk]:
    """Chunks rank ``rank`` waits for (role ``wait``: it receives them) or
    announces (role ``signal``: it produces them), sorted by offset."""
    mine = [c for c in chunks if (c.dst if role == "wait" else c.src) == rank]
    return sorted(mine, key=lambda c: (c.lo, c.id))


def grid_tiles(grid: tuple[int, ...]) -> list[tuple[int, int, int]]:
    """All program ids of ``grid``, in launch (row-major over axis 0 first) order."""
    g = tuple(grid) + (1,) * (3 - len(grid))
    return [(x, y, z) for z in range(g[2]) for y in range(g[1]) for x in range(g[0])]


INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)


class HostOverflow(AbiError):
    """A host expression whose value, computed in the device's integer
    width, leaves that width: the device would wrap where the host does not."""


def tdiv(a: int, b: int) -> int:
    """Triton's (C's) integer ``a // b``: the quotient truncated toward zero."""
    if b == 0:
        raise ZeroDivisionError(f"{a} // 0")
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def tmod(a: int, b: int) -> int:
    """Triton's (C's) integer ``a % b``: ``a - tdiv(a, b) * b``, with the sign of ``a``."""
    return a - tdiv(a, b) * b


def _fits(value: int, wide: bool) -> bool:
    lo, hi = INT64 if wide else INT32
    return lo <= value <= hi


def _wide(value: int) -> bool:
    """A launch argument or literal the device holds in 64 bits (Triton passes an
    integer argument that does not fit int32 as int64)."""
    return not _fits(value, False)


def eval_host(expr: str, env: Mapping[str, int], pid: tuple[int, int, int], grid: tuple[int, int, int]) -> int | None:
    """A host expression of chunk-dependency-analysis (``host_exprs.host_expr``)
    at one program id of a launch grid; None for ``"?"``. Evaluated as the
    device computes it: ``//`` and ``%`` truncate toward zero (Triton's
    integer division, unlike Python's floor division), ``cdiv(a, b)`` is
    Triton's ``(a + (b - 1)) // b``, and every intermediate value lives in the
    device's width: int32 unless an operand is 64-bit (a launch value
    outside int32, or ``int64(x)``, a widening cast). A value that leaves
    its width raises :class:`HostOverflow` (the device would wrap)."""
    if expr == "?":
        return None
    scope = dict(env)
    scope.update({f"pid{a}": pid[a] for a in range(3)})
    scope.update({f"num_programs{a}": grid[a] for a in range(3)})
    return _HostEval(expr, scope).value()


@functools.lru_cache(maxsize=4096)
def _parsed(expr: str) -> ast.Expression:
    """``expr`` parsed once (a launch evaluates it at every program id), by
    the thread-safe parse of ir/plans/expr.py."""
    return parse_expression(expr)


class _HostEval:
    """Evaluates the small language of ``host_exprs.host_expr`` (names, ints,
    ``+ - * // %``, unary minus, ``min``/``max``/``cdiv``/``int64``, and for a
    flat tile loop's launch ``lt``/``le``/``gt``/``ge``/``eq``/``ne`` (0 or 1)
    and ``select(cond, a, b)``) to
    ``(value, wide)`` pairs."""

    def __init__(self, expr: str, scope: Mapping[str, int]):
        self.expr = expr
        self.scope = scope

    def value(self) -> int:
        try:
            tree = _parsed(self.expr)
        except SyntaxError as err:
            raise ValueError(f"host expression {self.expr!r} does not parse: {err.msg}") from None
        return self.eval(tree.body)[0]

    def checked(self, node: ast.AST, value: int, wide: bool) -> tuple[int, bool]:
        if not _fits(value, wide):
            raise HostOverflow(
                f"'{ast.unparse(node)}' is {value} at this launch, outside {'int64' if wide else 'int32'}, "
                "which the kernel computes it in (it would wrap on the device)"
            )
        return value, wide

    def eval(self, node: ast.AST) -> tuple[int, bool]:
        if isinstance(node, ast.Name):
            if node.id not in self.scope:
                raise NameError(f"name '{node.id}' is not defined")
            value = int(self.scope[node.id])
            return value, _wide(value)
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value, _wide(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            value, wide = self.eval(node.operand)
            return self.checked(node, -value, wide)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            (a, wa), (b, wb) = self.eval(node.left), self.eval(node.right)
            return self.checked(node, _BINARY[type(node.op)](a, b), wa or wb)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords
                and node.func.id != "select"):
            args = [self.eval(a) for a in node.args]
            wide = any(w for _, w in args)
            name = node.func.id
            if name in ("min", "max") and len(args) == 2:
                return (min if name == "min" else max)(a for a, _ in args), wide
            if name == "cdiv" and len(args) == 2:
                (a, _), (b, _) = args
                self.checked(node, a + (b - 1), wide)  # the device's `x + (div - 1)` before it divides
                return self.checked(node, tdiv(a + (b - 1), b), wide)
            if name == "int64" and len(args) == 1:
                return self.checked(node, args[0][0], True)
            if name in _COMPARE and len(args) == 2:
                return int(_COMPARE[name](args[0][0], args[1][0])), False
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "select"
                and len(node.args) == 3 and not node.keywords):
            cond, _ = self.eval(node.args[0])  # only the arm taken is evaluated, as the device's `if`
            return self.eval(node.args[1] if cond else node.args[2])
        raise ValueError(f"host expression {self.expr!r}: unsupported `{ast.unparse(node)}`")


_COMPARE = {"lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b,
            "ge": lambda a, b: a >= b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b}

_BINARY = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: tdiv, ast.Mod: tmod,
}


def tile_chunk_graph(
    module: ModuleOp,
    kernel: tile.FuncOp,
    env: Mapping[str, int],
    grid: tuple[int, ...],
    rank: int,
    flag_bases: Mapping[str, int],
) -> nx.DiGraph:
    """The dependency graph of rank ``rank`` for one launch.

    Nodes ``("tile", pid)`` and ``("chunk", plan, id)``. A footprint that
    depends on loaded data or a loop variable (``lo == "?"``) is connected
    to every chunk of its tensor on this rank, with ``exact=False``.
    """
    g3 = tuple(grid) + (1,) * (3 - len(grid))
    plans = {p.sym_name.data: p for p in module.ops if isinstance(p, PlanOp)}
    chunks = {name: kernel_chunks(p, env, flag_bases.get(name, 0)) for name, p in plans.items()}
    graph = nx.DiGraph()
    for plan_chunks in chunks.values():
        for c in plan_chunks:
            if rank in (c.src, c.dst):
                graph.add_node(("chunk", c.plan, c.id), chunk=c)
    prints = footprints(kernel)
    for fp in prints:  # a produced chunk no tile writes (a launch with no tiles) has no rows written
        for c in rank_chunks(chunks[fp.plan], rank, "signal") if fp.role != "read" else ():
            if c.tensor == fp.tensor:
                graph.nodes[("chunk", c.plan, c.id)].setdefault("written", [])
    for pid in grid_tiles(g3):
        node = ("tile", pid)
        graph.add_node(node)
        for fp in prints:
            role = "wait" if fp.role == "read" else "signal"
            candidates = [c for c in rank_chunks(chunks[fp.plan], rank, role) if c.tensor == fp.tensor]
            try:
                lo = eval_host(fp.lo, env, pid, g3)
                extent = eval_host(fp.extent, env, pid, g3)
                wrap = eval_host(fp.wrap, env, pid, g3) if fp.wrap is not None else None
                other = tuple(eval_host(e, env, pid, g3) for e in fp.other) if fp.other is not None else None
            except HostOverflow as err:
                raise HostOverflow(f"{fp.where}: the rows of this access at program id {pid}: {err}; "
                                   "widen the index with `.to(tl.int64)`") from None
            exact = (lo is not None and extent is not None and (fp.wrap is None or wrap is not None)
                     and (other is None or None not in other))
            ranges = fp.intervals(lo, extent, wrap, other) if exact else []  # type: ignore[arg-type]
            for c in candidates:
                if role == "signal":  # the rows of a produced chunk its tiles write (``unwritten_rows``)
                    written = graph.nodes[("chunk", c.plan, c.id)].setdefault("written", [])
                    written.extend((max(start, c.lo), min(end, c.hi)) for start, end in ranges
                                   if start < c.hi and end > c.lo)
                if exact and not any(c.lo < end and c.hi > start for start, end in ranges):
                    continue
                edge = (("chunk", c.plan, c.id), node) if role == "wait" else (node, ("chunk", c.plan, c.id))
                graph.add_edge(*edge, exact=exact)
    return graph


def unwritten_rows(graph: nx.DiGraph) -> list[tuple[ConcreteChunk, int, int]]:
    """(chunk, lo, hi) for the first rows of each produced chunk of the
    graph's rank that no tile's store covers: the chunk is announced once
    its writing tiles have signalled, and its rows sent or summed whatever
    the buffer held there."""
    missing = []
    for node, data in graph.nodes(data=True):
        if node[0] != "chunk" or "written" not in data:
            continue
        c, at = data["chunk"], data["chunk"].lo
        for start, end in sorted(data["written"]):
            if start > at:
                break
            at = max(at, end)
        if at < c.hi:
            gap_end = min([start for start, _ in data["written"] if start > at] + [c.hi])
            missing.append((c, at, gap_end))
    return missing


def arrival_rank(chunk: ConcreteChunk) -> tuple[int, int]:
    """Sort key of a chunk's expected arrival: local first, then by step."""
    return (0, 0) if chunk.is_local else (1, chunk.step)


def departure_rank(chunk: ConcreteChunk) -> tuple[int, int]:
    """Sort key of when a produced chunk should be complete: chunks that go
    to other ranks first, by step (the order the runtime sends them), the
    rank's own rows last."""
    return (1, 0) if chunk.is_local else (0, chunk.step)


def tile_order(graph: nx.DiGraph, grid: tuple[int, ...], group: int = 1) -> list[int]:
    """Linear program ids sorted by when the tiles' inputs arrive, then by
    when the chunks they write must leave (stable), grouped ``group`` rows
    of axis 0 at a time within one step."""
    g3 = tuple(grid) + (1,) * (3 - len(grid))
    last = (2, 0)  # after every departure_rank: tiles that write no produced chunk

    def key(pid: tuple[int, int, int]) -> tuple:
        node = ("tile", pid)
        preds = [graph.nodes[n]["chunk"] for n in graph.predecessors(node)]
        exact = all(graph.edges[(("chunk", c.plan, c.id), node)]["exact"] for c in preds)
        arrival = max((arrival_rank(c) for c in preds), default=(0, 0)) if exact else (0, 0)
        succs = [graph.nodes[n]["chunk"] for n in graph.successors(node)]
        departure = min((departure_rank(c) for c in succs), default=last)
        return (arrival, departure, pid[2], pid[0] // group, pid[1], pid[0] % group)

    tiles = grid_tiles(g3)
    ordered = sorted(tiles, key=key)
    return [x + y * g3[0] + z * g3[0] * g3[1] for x, y, z in ordered]


def signal_counts(graph: nx.DiGraph) -> dict[tuple[str, int], int]:
    """(plan, chunk id) -> how many tiles write it (the signals that complete it)."""
    counts: dict[tuple[str, int], int] = {}
    for node in graph.nodes:
        if node[0] == "chunk":
            writers = [p for p in graph.predecessors(node) if p[0] == "tile"]
            counts[(node[1], node[2])] = len(writers)
    return counts


def rotation(graph: nx.DiGraph, axis: int) -> int:
    """Where tile-reorder{order=rotate} starts along ``axis``: the first tile
    coordinate that reads this rank's own (local) chunk exactly, so a gather
    starts on local data and meets the others' in ring order. A kernel that
    reads no local chunk but writes one (a reduce-scatter) starts right
    after its last tile that writes its own rows, so the rows other ranks
    wait for come first and its own rows last (departure order for direct
    plans; starting on its own rows would make them wait longest)."""
    def local_tiles(edges: Iterable[tuple]) -> list[int]:
        return [tile[1][axis] for chunk, tile, exact in edges
                if exact and graph.nodes[chunk]["chunk"].is_local]

    reads = local_tiles((a, b, e) for a, b, e in graph.edges(data="exact") if a[0] == "chunk")
    if reads:
        return min(reads)
    writes = local_tiles((b, a, e) for a, b, e in graph.edges(data="exact") if a[0] == "tile")
    if not writes:
        return 0
    count = 1 + max(node[1][axis] for node in graph.nodes if node[0] == "tile")
    return (max(writes) + 1) % count


def owner(chunks: list[ConcreteChunk], c: ConcreteChunk) -> int:
    """The rank whose own (local) chunk holds the rows of ``c``."""
    for local in chunks:
        if local.is_local and local.tensor == c.tensor and local.lo <= c.lo and c.hi <= local.hi:
            return local.dst
    raise ValueError(f"rows [{c.lo}, {c.hi}) of chunk {c.id} of @{c.plan} belong to no rank's own chunk")


def split_matrix(plan: PlanOp) -> list[list[int]]:
    """An all-to-all plan's ``splits`` as ``matrix[src][dst]`` (rows src sends dst)."""
    if plan.splits is None:
        raise ValueError(f"all-to-all plan @{plan.sym_name.data} has no splits")
    w = plan.world_size
    split = [int(extent_value(a)) for a in plan.splits.data]  # type: ignore[arg-type]
    return [split[s * w:(s + 1) * w] for s in range(w)]


def all_to_all_source_row(plan: PlanOp, c: ConcreteChunk) -> int:
    """Row of the sender's (``c.src``) send buffer where chunk ``c`` starts.

    The receive buffer of rank d holds, for each source s in order, the
    ``splits[s][d]`` rows s sent it; the send buffer of s holds, for each
    destination d in order, the ``splits[s][d]`` rows for d."""
    matrix = split_matrix(plan)
    received_before = sum(matrix[s][c.dst] for s in range(c.src))
    sent_before = sum(matrix[c.src][:c.dst])
    return sent_before + (c.lo - received_before)

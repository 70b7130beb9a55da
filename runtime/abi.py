"""The extra kernel arguments of one fused launch, for any World.

Both worlds evaluate the plans at the launch's sizes, build the tile->chunk
graph, and pass the same ABI arguments (see lower-chunk-to-tile and
tile-reorder): chunk tables, tile order or rotation, signal pad and epoch.
Only where the tensors live differs (``device``).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import networkx as nx
import torch

from syncopate.dialects.chunk import PlanOp
from syncopate.ir.analysis import deps
from syncopate.ir.analysis.deps import ConcreteChunk
from syncopate.ir.contract import CONSUMED, FLAT_TILE_LOOP_ATTR, TILE_LOOP_ATTR, TILE_STEP_ATTR, ChunkTable
from syncopate.ir.contract import AbiKey as K
from syncopate.ir.plans.expr import Extent
from syncopate.ir.plans.launch_extents import LaunchExtent, launch_extents
from syncopate.runtime.uploads import upload
from syncopate.runtime import assumptions
from syncopate.runtime.aliasing import check_aliases, planned
from syncopate.runtime.errors import AbiError
from syncopate.runtime.fused import FusedProgram


def scalar_env(params: Mapping[str, Any]) -> dict[str, int]:
    """Integer arguments of a launch (sizes, strides, constexprs)."""
    return {k: int(v) for k, v in params.items() if isinstance(v, int) and not isinstance(v, bool)}


def launch_env(program: FusedProgram, params: Mapping[str, Any]) -> dict[str, int]:
    """The symbols a launch binds: its integer arguments, and each plan
    extent read from the launched tensor's shape (ir/plans/launch_extents.py).
    One symbol read from two tensors must have one value."""
    env = scalar_env(params)
    bound: dict[str, LaunchExtent] = {}
    for plan in program.plans:
        for e in launch_extents(plan, program.kernel.arg_names):
            t = params.get(e.param)
            if not isinstance(t, torch.Tensor):
                raise AbiError(f"plan @{e.plan} takes its extent {e.symbol} from the shape of '{e.param}', but the "
                               f"launch passes {type(t).__name__} for '{e.param}'; pass a tensor")
            if e.dim >= t.dim():
                raise AbiError(f"plan @{e.plan} cuts '{e.param}' along dim {e.dim}, but the launch's '{e.param}' has "
                               f"{t.dim()} dim(s) (shape {tuple(t.shape)})")
            value = int(t.shape[e.dim])
            _check_layout(e, t, env)
            first = bound.setdefault(e.symbol, e)
            if env.setdefault(e.symbol, value) != value:
                raise AbiError(f"the plans read extent {e.symbol} from two tensors of different lengths: "
                               f"{first.describe()} is {env[e.symbol]}, {e.describe()} is {value}; give the plans "
                               "different size= names")
    _check_strides(program, params, env)
    return env


def _check_strides(program: FusedProgram, params: Mapping[str, Any], env: Mapping[str, int]) -> None:
    """A planned tensor's dims are the launched tensor's own only where each
    stride parameter the plan names for them (by the kernel's declaration
    order, or ``stride=``) holds the tensor's stride along that dim: the
    analysis found the plan's dim in the addresses by those names, and the
    runtime moves rows along the tensor's own dims. A tensor of the plan's
    rank whose stride along a dim of two or more entries is not the named
    argument's value is refused: stride parameters declared in another
    order than the dims (a mask need not reveal it), or a transposed view
    launched with its strides swapped. (:func:`_check_layout` checks the
    split dim alone, for tensors of any rank, where the plan reads its
    extent from the shape; it runs first, so its message is the one such a
    launch sees.)"""
    for plan in program.plans:
        for tensor in plan.tensors:
            t = params.get(tensor.param.data)
            strides = tensor.stride_values
            if not isinstance(t, torch.Tensor) or t.dim() != len(strides):
                continue
            for dim, name in enumerate(strides):
                if isinstance(name, str) and name in env and t.shape[dim] > 1 and t.stride(dim) != env[name]:
                    raise AbiError(
                        f"plan @{plan.sym_name.data} takes '{name}' as the stride of dim {dim} of "
                        f"'{tensor.param.data}', but the launch passes {name}={env[name]} while '{tensor.param.data}' "
                        f"has stride {t.stride(dim)} along dim {dim} (shape {tuple(t.shape)}, strides {t.stride()}): "
                        f"declare the stride parameters in the order of the dims, or name the plan's with "
                        f"stride=<parameter>; a transposed view must be launched as the tensor it is")


def _check_layout(e: LaunchExtent, t: torch.Tensor, env: Mapping[str, int]) -> None:
    """The tensor's shape along the dim counts the rows the kernel indexes
    only if its stride there is the kernel's: a flattened or strided view
    would pass its element count off as rows."""
    stride = e.stride if isinstance(e.stride, int) else env.get(e.stride)
    if stride is not None and t.shape[e.dim] > 1 and t.stride(e.dim) != stride:
        via = f"stride={e.stride}={stride}" if isinstance(e.stride, str) else f"stride {stride}"
        raise AbiError(f"plan @{e.plan} reads its extent {e.symbol} from '{e.param}'.shape[{e.dim}], but the kernel steps "
                       f"dim {e.dim} of '{e.param}' by {via} while the launch's '{e.param}' has stride "
                       f"{t.stride(e.dim)} there (shape {tuple(t.shape)}); pass it in the layout the kernel indexes, "
                       "or give the plan size=<the kernel parameter holding the extent>")


SLICES_PER_PROGRAM = 4  # SM slices per communication program and chunk: finer arrival, more flags


@dataclass
class LaunchPlan:
    """The plans of one launch on one rank, evaluated at its sizes."""

    plans: dict[str, PlanOp]
    chunks: dict[str, list[ConcreteChunk]]
    graph: nx.DiGraph
    grid: tuple[int, ...]  # the launch grid
    rank: int
    tiles: tuple[int, ...]  # the grid of tiles the graph and the order cover ((count,) for a tile loop)
    persistent: bool  # the kernel walks its tiles in a loop (its programs run until every tile is done)

    @classmethod
    def build(cls, program: FusedProgram, params: Mapping[str, Any], grid: tuple[int, ...], rank: int) -> LaunchPlan:
        abi = program.abi
        env = launch_env(program, params)
        bases = {k: v.value.data for k, v in abi[K.FLAG_BASES].data.items()} if K.FLAG_BASES in abi else {}
        plans = {p.sym_name.data: p for p in program.plans}
        chunks = {name: deps.kernel_chunks(p, env, bases.get(name, 0)) for name, p in plans.items()}
        if bases:  # a kernel without flag_bases polls and raises no flags (e.g. overlap{waits=false})
            _check_flags(chunks)
        _check_extents(plans, chunks, params, rank, pushed_plans(program))
        _check_in_row(program, env, rank)
        check_aliases(planned(plans), params)
        tiles = tile_grid(program, env, grid)
        assumptions.check(assumptions.entries(program.kernel), params, env, grid, tiles, rank)
        graph = deps.tile_chunk_graph(program.module, program.kernel, env, tiles, rank, bases)
        _check_written(plans, graph, rank)
        persistent = TILE_LOOP_ATTR in program.kernel.attributes or FLAT_TILE_LOOP_ATTR in program.kernel.attributes
        return cls(plans, chunks, graph, grid, rank, tiles, persistent)

    @property
    def flag_count(self) -> int:
        return max((c.flag + 1 for cs in self.chunks.values() for c in cs), default=1)

    def sm_slices(self, programs: int) -> dict[tuple[str, int], list[ConcreteChunk]]:
        """SM chunks cut into up to ``programs * SLICES_PER_PROGRAM`` slices
        along their dim, each with its own flag (after the plan flags): the
        programs copy a chunk together, slice ``i`` by program ``i % programs``
        (so the first slices of the earliest chunks arrive first), and a tile
        waits only for the slices its rows touch."""
        slices: dict[tuple[str, int], list[ConcreteChunk]] = {}
        flag = self.flag_count
        for c in sorted(self.sm_chunks(), key=lambda c: (deps.arrival_rank(c), c.plan, c.id)):
            n = c.hi - c.lo
            parts = max(1, min(programs * SLICES_PER_PROGRAM, n))
            cuts = [c.lo + n * i // parts for i in range(parts + 1)]
            slices[(c.plan, c.id)] = [dataclasses.replace(c, lo=a, hi=b, flag=flag + i)
                                      for i, (a, b) in enumerate(zip(cuts, cuts[1:]))]
            flag += parts
        return slices

    def total_flags(self, programs: int) -> int:
        """Signal-pad words one launch uses: plan flags and SM slice flags."""
        return self.flag_count + sum(len(v) for v in self.sm_slices(programs).values())

    def arguments(self, program: FusedProgram, sync: SyncState, device: Any = None,
                  peer_offset: Callable[[ConcreteChunk, torch.Tensor], int] | None = None,
                  params: Mapping[str, Any] | None = None,
                  reduce_staging: Callable[[str, str], tuple[torch.Tensor, list[list[int]]]] | None = None,
                  push_rows: Callable[[str, str], list[list[int]]] | None = None) -> dict[str, Any]:
        """The keyword arguments the fused kernel's ABI adds. ``peer_offset(c,
        t)`` (SM backend) is the distance, in elements of ``t``, from chunk
        ``c``'s rows in this rank's ``t`` to the same data in its owner's.
        ``reduce_staging(plan, tensor)`` (fused reductions) is the staging
        buffer and the ``syn_reduce_span`` table rows of this rank (see
        runtime/staging.py). ``push_rows(plan, tensor)`` (push-all-reduce) is
        this rank's ``syn_push_reduce`` table (runtime/push.py)."""
        abi = program.abi
        extra: dict[str, Any] = {}
        if K.FLAGS in abi:
            extra[abi[K.FLAGS].data] = sync.flags
            extra[abi[K.EPOCH].data] = sync.epoch
            extra[abi[K.SPIN_LIMIT].data] = sync.spin_limit
            extra[abi[K.REPORT].data] = sync.report
        if K.COMM_PROGRAMS in abi:
            extra[abi[K.COMM_PROGRAMS].data] = sync.comm_programs
        if K.MEMO in abi:  # syn_wait_span_memo: two words per program of the launch grid, epoch 0 = nothing seen
            programs = self.launch_grid(program, sync.comm_programs)[0]
            extra[abi[K.MEMO].data] = torch.zeros(2 * programs, dtype=torch.int32, device=device)
        slices = self.sm_slices(sync.comm_programs) if K.COMM_PROGRAMS in abi else {}
        for e in chunk_tables(program):
            if e.role == "reduce":
                if reduce_staging is None or e.staging is None:
                    raise AbiError(f"@{program.kernel.sym_name.data} reduces plan @{e.plan} in its epilogue "
                                   "(fuse-peer-reduction), which this world cannot run")
                extra[e.staging], rows_ = reduce_staging(e.plan, e.tensor)
                _put_table(extra, e, rows_, 6, torch.int64, device)
            elif e.role == "push":
                if push_rows is None:
                    raise AbiError(f"@{program.kernel.sym_name.data} all-reduces plan @{e.plan} by push "
                                   "(push-all-reduce), which this world cannot run")
                _put_table(extra, e, push_rows(e.plan, e.tensor), 6, torch.int64, device)
            elif e.role == "sm":
                rows_ = self._sm_rows(e.plan, e.tensor, params or {}, peer_offset, slices)
                _put_table(extra, e, rows_, 6, torch.int64, device)
            else:
                mine = [s for c in deps.rank_chunks(self.chunks[e.plan], self.rank, e.role)
                        if c.tensor == e.tensor for s in slices.get((c.plan, c.id), [c])]
                if e.role == "wait":
                    _check_disjoint(mine, self.rank)
                _put_table(extra, e, [[c.lo, c.hi, c.flag] for c in mine], 3, torch.int32, device)
        if K.TILE_ORDER in abi:
            order = deps.tile_order(self.graph, self.tiles, abi[K.GROUP].value.data)
            extra[abi[K.TILE_ORDER].data] = upload(order, torch.int32, device)
        if K.ROTATE in abi:
            extra[abi[K.ROTATE].data] = deps.rotation(self.graph, abi[K.AXIS].value.data)
        return extra

    def sm_chunks(self, plan: str | None = None) -> list[ConcreteChunk]:
        """Chunks this rank receives through the kernel's communication programs."""
        return [c for name, cs in self.chunks.items() if plan in (None, name) for c in cs
                if c.dst == self.rank and not c.is_local and c.backend == "sm"]

    def _sm_rows(self, plan: str, tensor: str, params: Mapping[str, Any],
                 peer_offset: Callable[[ConcreteChunk, torch.Tensor], int] | None,
                 slices: Mapping[tuple[str, int], list[ConcreteChunk]]) -> list[list[int]]:
        whole = sorted((c for c in self.sm_chunks(plan) if c.tensor == tensor), key=lambda c: (deps.arrival_rank(c), c.id))
        chunks = [s for c in whole for s in slices.get((c.plan, c.id), [c])]  # slice i of a chunk -> program i
        result = []
        for c in chunks:
            t = params.get(c.param)
            if not isinstance(t, torch.Tensor) or not t.is_contiguous():
                raise AbiError(f"the SM backend needs '{c.param}' (chunk {c.id} of @{c.plan}) to be a contiguous tensor")
            if peer_offset is None:
                raise AbiError(f"chunk {c.id} of @{c.plan} uses the SM backend, which this world cannot run")
            # rows [lo, hi) along dim d of a contiguous tensor: one element range per index of the dims before d
            inner = t.stride(c.dim)
            segments = t.numel() // (t.shape[c.dim] * inner) if t.numel() else 0
            outer = t.shape[c.dim] * inner
            result.append([c.lo * inner, c.hi * inner, c.flag, peer_offset(c, t), segments, outer])
        return result

    def launch_grid(self, program: FusedProgram, comm_programs: int) -> tuple[int, ...]:
        """The grid to launch: SM communication programs go in front of axis 0."""
        if K.COMM_PROGRAMS not in program.abi:
            return self.grid
        return (self.grid[0] + comm_programs, *self.grid[1:])


def _put_table(extra: dict[str, Any], entry: ChunkTable, rows: list[list[int]], width: int,
               dtype: torch.dtype, device: Any) -> None:
    """A table argument and its row count (an empty table still passes one row of zeros: no 0-size tensors)."""
    extra[entry.param] = upload(rows or [[0] * width], dtype, device)
    extra[entry.count] = len(rows)


def fused_reductions(program: FusedProgram) -> set[str]:
    """Plans whose owner's sum the kernel does in its tile epilogue (fuse-peer-reduction)."""
    return {e.plan for e in chunk_tables(program) if e.role == "reduce"}


def pushed_plans(program: FusedProgram) -> set[str]:
    """Plans the kernel all-reduces by itself (push-all-reduce; runtime/push.py)."""
    return {e.plan for e in chunk_tables(program) if e.role == "push"}


def chunk_tables(program: FusedProgram) -> list[ChunkTable]:
    """The chunk tables the kernel takes, from its launch ABI record."""
    tables = program.abi.get(K.TABLES)
    return [ChunkTable.from_attr(t) for t in tables.data] if tables is not None else []


def epilogue_order_error(program: FusedProgram, launch: LaunchPlan) -> str | None:
    """Why an epilogue-reducing launch could deadlock, or None. A tile that
    adds the peers' partials of its rows waits for the peers' tiles of those
    rows, whose partials wait for nothing only if (1) no tile writes both
    rows this rank owns and rows another rank owns (it would wait before
    announcing the other rank's rows: with the peer's mirror tile, a cycle),
    and (2) every tile writing this rank's rows comes after every tile
    writing other ranks' rows in the tile order (a persistent program, or a
    full grid of waiting tiles, must not sit on an own tile while a peer
    waits for rows it has yet to compute): tile-reorder{order=arrival}."""
    fused = fused_reductions(program)
    if not fused:
        return None
    if K.TILE_ORDER in program.abi:
        order = deps.tile_order(launch.graph, launch.tiles, program.abi[K.GROUP].value.data)
    else:
        order = list(range(math.prod(launch.tiles)))
    g3 = tuple(launch.tiles) + (1,) * (3 - len(launch.tiles))
    position = {pid: i for i, pid in enumerate(order)}
    last_peer, first_own = -1, None
    for node in launch.graph.nodes:
        if node[0] != "tile":
            continue
        x, y, z = node[1]
        owners = {deps.owner(launch.chunks[c.plan], c) for c in
                  (launch.graph.nodes[n]["chunk"] for n in launch.graph.successors(node)) if c.plan in fused}
        mine = launch.rank in owners
        if mine and len(owners) > 1:
            return (f"tile {node[1]} of @{program.kernel.sym_name.data} writes rows of rank {launch.rank} and of "
                    f"rank(s) {sorted(owners - {launch.rank})}: with the reduction in its epilogue it would wait for "
                    "the peers before announcing their rows (a deadlock); make each rank's rows a whole number of "
                    "tiles")
        at = position[x + y * g3[0] + z * g3[0] * g3[1]]
        if mine:
            first_own = at if first_own is None else min(first_own, at)
        elif owners:
            last_peer = max(last_peer, at)
    if first_own is not None and first_own < last_peer:
        return (f"@{program.kernel.sym_name.data} reduces in its epilogue but runs a tile of rank {launch.rank}'s own "
                "rows before tiles of other ranks' rows: its programs could wait on partials that wait on them; "
                "use tile-reorder{order=arrival} (overlap{order=arrival})")
    return None


def tile_grid(program: FusedProgram, env: Mapping[str, int], grid: tuple[int, ...]) -> tuple[int, ...]:
    """The grid of tiles: the launch grid, or for a persistent kernel
    (``chunk.tile_loop`` on the kernel, see chunk-dependency-analysis) the
    1-D grid of its tile loop's ``count`` tiles, launched on a 1-D grid."""
    if FLAT_TILE_LOOP_ATTR in program.kernel.attributes:
        return _flat_tiles(program, env, grid)
    attr = program.kernel.attributes.get(TILE_LOOP_ATTR)
    if attr is None:
        return tuple(grid)
    if len(grid) > 1 and any(g != 1 for g in grid[1:]):
        raise AbiError(f"@{program.kernel.sym_name.data} walks its tiles in a loop over program ids of axis 0; "
                       f"launch it on a 1-D grid, not {tuple(grid)}")
    try:
        count = deps.eval_host(attr.data, env, (0, 0, 0), (grid[0], 1, 1))
    except (NameError, ZeroDivisionError) as err:
        raise AbiError(f"@{program.kernel.sym_name.data}: the tile count '{attr.data}' of its tile loop cannot be "
                       f"evaluated at this launch: {err}") from None
    _check_tile_step(program, env, grid[0], max(count or 0, 0))
    return (max(count or 0, 0),)


def _flat_tiles(program: FusedProgram, env: Mapping[str, int], grid: tuple[int, ...]) -> tuple[int, ...]:
    """The tiles of a kernel's flat (tile, k-step) loop (``chunk.flat_tile_loop``,
    see ``host_exprs.FlatTileLoop``) at this launch: program ``p`` runs its
    loop ``ub - lb`` times, ``k_steps`` iterations per tile, and its ``j``-th
    tile is ``first + step * (j + 1)``; it stores (and signals) only tiles
    whose last k-step it reaches, ``trips // k_steps`` of them (none when
    ``k_steps <= 0``). The tiles of all programs must be ``0 .. n - 1``, each
    once: the host counts each tile's signals once, so a tile run twice
    would announce its chunks early and one never run would hang them."""
    name = program.kernel.sym_name.data
    if len(grid) > 1 and any(g != 1 for g in grid[1:]):
        raise AbiError(f"@{name} walks its tiles in a loop over program ids of axis 0; "
                       f"launch it on a 1-D grid, not {tuple(grid)}")
    exprs = {k: v.data for k, v in program.kernel.attributes[FLAT_TILE_LOOP_ATTR].data.items()}  # type: ignore[union-attr]
    g3 = (grid[0], 1, 1)
    tiles: list[int] = []
    for p in range(grid[0]):
        try:
            at = {k: deps.eval_host(e, env, (p, 0, 0), g3) for k, e in exprs.items()}
        except (NameError, ZeroDivisionError) as err:
            raise AbiError(f"@{name}: the bounds of its flat tile loop cannot be evaluated at this launch: {err}") from None
        trips, k = max(0, at["ub"] - at["lb"]), at["k_steps"]
        count = trips // k if k > 0 else 0
        tiles += [at["first"] + at["step"] * (j + 1) for j in range(count)]
    if sorted(tiles) != list(range(len(tiles))):
        repeated = sorted({t for t in tiles if tiles.count(t) > 1})[:3]
        missing = sorted(set(range(max(tiles, default=0) + 1)) - set(tiles))[:3]
        raise AbiError(f"@{name}'s flat loop over (tile, k-step) pairs runs, on a grid of {grid[0]} programs, tiles "
                       f"that are not each of 0 .. n-1 once (repeated {repeated}, missing {missing}): the host counts "
                       "each tile's signals once; launch as many programs as the tile counter steps by "
                       f"({exprs['step']})")
    return (len(tiles),)


def _check_tile_step(program: FusedProgram, env: Mapping[str, int], programs: int, count: int) -> None:
    """A persistent kernel's tile loop must run each of its ``count`` tiles
    exactly once: the host takes its loop variable for the tile of a 1-D
    grid in which program ``pid`` runs tiles ``pid, pid + step, ...``. That
    holds when the step is the program count, or when neither the step nor
    the program count is below the tile count (one tile per program, as a
    grid of ``min(NUM_SMS, tiles)`` programs stepping by ``NUM_SMS`` runs
    small problems). A larger step skips tiles (their produced chunks would
    never be announced, and a reordered kernel would compute other tiles
    than the original); a smaller one runs tiles twice (announcing chunks
    early)."""
    attr = program.kernel.attributes.get(TILE_STEP_ATTR)
    if attr is None:
        return
    try:
        step = deps.eval_host(attr.data, env, (0, 0, 0), (programs, 1, 1))
    except (NameError, ZeroDivisionError) as err:
        raise AbiError(f"@{program.kernel.sym_name.data}: the step '{attr.data}' of its tile loop cannot be "
                       f"evaluated at this launch: {err}") from None
    if step is not None and step >= 1 and (step == programs or min(step, programs) >= count):
        return
    raise AbiError(f"@{program.kernel.sym_name.data} walks its {count} tiles with `range(tl.program_id(0), tiles, "
                   f"{attr.data})`, {attr.data} = {step} at this launch, on a grid of {programs} programs: "
                   "a persistent tile loop must step by the number of programs launched, so that each "
                   f"tile runs exactly once; launch it on ({step},) programs, or pass that count as the step")


def _check_written(plans: Mapping[str, PlanOp], graph: nx.DiGraph, rank: int) -> None:
    """Every row of a chunk this rank produces is written by some tile of
    the launch: the chunk is announced when its writing tiles have
    signalled, so rows no tile writes would be sent (and summed) with
    whatever the buffer held, seen only as a mismatch of the result."""
    for c, lo, hi in deps.unwritten_rows(graph)[:1]:
        plan = plans[c.plan]
        raise AbiError(
            f"rank {rank}: rows [{lo}, {hi}) of '{c.tensor}' in chunk {c.id} of @{c.plan} (rows [{c.lo}, {c.hi}), "
            f"for rank {c.dst}) are written by no tile of this launch: a {plan.collective} sends every row of its "
            f"chunks, so those rows would carry whatever the buffer held; launch a grid whose tiles write every "
            f"row of '{c.tensor}' along dim {c.dim}, or give the plan size= of the rows the kernel writes")


def _check_flags(chunks: Mapping[str, list[ConcreteChunk]]) -> None:
    """Every chunk of every plan has its own signal-pad flag: a flag shared by
    two chunks would let a wait pass on the other chunk's arrival."""
    seen: dict[int, ConcreteChunk] = {}
    for c in (c for cs in chunks.values() for c in cs):
        other = seen.setdefault(c.flag, c)
        if other is not c:
            raise AbiError(f"chunk {other.id} of @{other.plan} and chunk {c.id} of @{c.plan} share signal-pad flag "
                           f"{c.flag}; each chunk needs its own (chunk.abi flag_bases)")


def _check_in_row(program: FusedProgram, env: Mapping[str, int], rank: int) -> None:
    """An access whose scalar row adds a length the analysis took for a
    column (``input_ptrs + d``, ``AccessKey.IN_ROW``) must stay in the row
    at this launch: the columns it reaches end at most at the row stride.
    Otherwise it reads the next row, which its wait does not cover (``X +
    n_cols + cols`` over rows of ``n_cols`` columns)."""
    from syncopate.ir.contract import ACCESS_ATTR
    from syncopate.ir.contract import AccessKey as A
    from syncopate.ir.locations import describe

    for op in program.kernel.walk():
        access = op.attributes.get(ACCESS_ATTR)
        if access is None or A.IN_ROW not in access.data:
            continue
        end, stride = access.data[A.IN_ROW].data, access.data[A.ROW_STRIDE].data
        reach, row = deps.eval_host(end, env, (0, 0, 0), (1, 1, 1)), env.get(stride)
        if reach is None or row is None or reach > row:
            raise AbiError(f"rank {rank}: {describe(op)} adds a length to a row's address that the analysis took "
                           f"for a column offset, which holds only if {end} <= {stride}; this launch has {end} = "
                           f"{reach} and {stride} = {row}, so the access reads past its row (the next row, "
                           f"which no wait covers): write the offset as index * {stride}")


def _check_extents(plans: Mapping[str, PlanOp], chunks: Mapping[str, list[ConcreteChunk]],
                   params: Mapping[str, Any], rank: int, pushed: set[str]) -> None:
    """The rows a plan moves for this rank must be exactly the launch
    tensor's extent along the plan's dim: rows past the end would be read or
    written out of bounds, rows the plan leaves out would never be
    synchronised. A plan the kernel all-reduces by push (``pushed``) may
    give a rank no rows: its tiles push whole tiles, whoever owns the rows."""
    for name, plan in plans.items():
        if name in pushed:
            continue
        role = "wait" if plan.collective in CONSUMED else "signal"
        for tensor in plan.tensors:
            param = tensor.param.data
            mine = [c for c in deps.rank_chunks(chunks[name], rank, role) if c.param == param]
            t = params.get(param)
            if not mine or not isinstance(t, torch.Tensor):
                continue
            dim = mine[0].dim
            if dim >= t.dim():
                raise AbiError(f"plan @{name} cuts '{param}' along dim {dim}, but rank {rank}'s '{param}' has "
                               f"{t.dim()} dim(s) (shape {tuple(t.shape)})")
            # (an all-to-all may send a rank nothing; an even cut gives every rank rows unless world > extent)
            empty = [c.dst for c in chunks[name] if c.param == param and c.is_local and c.hi <= c.lo
                     and plan.collective != "all-to-all"]
            if empty:
                raise AbiError(f"plan @{name} gives rank {empty[0]} no rows of '{param}' along dim {dim} (extent "
                               f"{t.shape[dim]}, world {plan.world_size}): the world must be at most the extent")
            lo, hi = min(c.lo for c in mine), max(c.hi for c in mine)
            if (lo, hi) != (0, t.shape[dim]):
                raise AbiError(f"plan @{name} covers rows [{lo}, {hi}) of '{param}' along dim {dim} on rank {rank}, "
                               f"but the launch's '{param}' has {t.shape[dim]} (shape {tuple(t.shape)})"
                               + _extent_hint(tensor.shape_values[dim], param, params))


def _extent_hint(extent: Extent, param: str, params: Mapping[str, Any]) -> str:
    """Where a plan's extent that disagrees with the launched tensor came from."""
    if isinstance(extent, int):
        return (f"; the plan's size={extent} is fixed when it is compiled, while a size= naming no kernel parameter "
                f"(the default M, if the kernel has no M) is read from the shape of '{param}' at each launch")
    if extent in params:
        return f"; the plan's size={extent} is the launch's argument {extent}={params[extent]!r}"
    return ""


ROW_RULE = ("plans cut N rows over W ranks as N // W rows per rank, the last rank the rest "
            "(syncopate.runtime.workload.shard_bounds(N, W, rank) gives each rank's (start, size))")


def check_shards(launch: LaunchPlan, shards: Mapping[str, tuple[str, list[tuple[int, int]]]]) -> None:
    """Each rank's all-gather input must be exactly the rows the plan gives
    it. ``shards``: gathered parameter -> (launch argument, per rank the
    (start, size) of its input in the gathered tensor)."""
    for name, plan in launch.plans.items():
        if plan.collective != "all-gather":
            continue
        for tensor in plan.tensors:
            param = tensor.param.data
            if param not in shards:
                continue
            arg, cut = shards[param]
            chunks = [c for c in launch.chunks[name] if c.param == param]
            for r, (start, size) in enumerate(cut):
                owned = sorted({(c.lo, c.hi) for c in chunks if c.is_local and c.dst == r and c.hi > c.lo})
                lo, hi = (owned[0][0], owned[-1][1]) if owned else (start, start)
                if (lo, hi) != (start, start + size) or sum(b - a for a, b in owned) != hi - lo:
                    dim = chunks[0].dim
                    raise AbiError(f"rank {r}'s input '{arg}' has {size} rows along dim {dim} (rows [{start}, "
                                   f"{start + size}) of the gathered tensor), but plan @{name} gives rank {r} "
                                   f"{hi - lo} rows [{lo}, {hi}); {ROW_RULE}")


def _check_disjoint(chunks: list[ConcreteChunk], rank: int) -> None:
    """A wait table (sorted by lo) must not overlap: syn_wait_span finds a
    span's chunks by binary search over their ends."""
    for a, b in zip(chunks, chunks[1:]):
        if a.hi > b.lo:
            raise AbiError(
                f"plan @{a.plan}: rank {rank} receives rows [{b.lo}, {min(a.hi, b.hi)}) of '{a.tensor}' in two chunks "
                f"({a.id} and {b.id}); a rank must receive each row once"
            )


UNCOVERED_WAIT = 2  # the report code of syn_check_span (lowering/device_helpers.py)


def uncovered_wait(launch: LaunchPlan, rank: int, tile_id: int, lo: int, hi: int) -> str:
    """The report of a wait for rows ``[lo, hi)`` that no chunk this rank
    receives overlaps: it returned at once, so the tile's loads were not
    ordered after any delivery. Names the plan tensors whose chunks miss the
    range, and their extents."""
    missed = []
    for name, chunks in launch.chunks.items():
        if launch.plans[name].collective not in CONSUMED:
            continue
        received: dict[tuple[str, str], list[ConcreteChunk]] = {}
        for c in chunks:
            if c.dst == rank:
                received.setdefault((c.plan, c.param), []).append(c)
        for (plan, param), mine in received.items():
            if not any(c.lo < hi and lo < c.hi for c in mine):
                missed.append(f"'{param}' of @{plan} (rows [{min(c.lo for c in mine)}, {max(c.hi for c in mine)}))")
    where = f" of {' or '.join(missed)}" if missed else ""
    return (f"rank {rank}: program {tile_id} waited for rows [{lo}, {hi}){where}, where this rank receives no chunk: "
            f"the wait returned at once, so the tile read rows that no delivery is ordered before (a row index "
            f"that leaves the plan's extent, such as one moved by `off_hz * N_CTX`)")


@dataclass
class SyncState:
    """One rank's synchronisation memory for a launch: the signal pad, the
    epoch word (incremented on the stream before every launch, read by the
    kernel), the spin bound (0: none) and the 4-word spin report
    ``(timed out, tile, flag, value)``, and the number of SM communication
    programs."""

    flags: torch.Tensor
    epoch: torch.Tensor
    report: torch.Tensor
    spin_limit: int = 0
    comm_programs: int = 0
    host_epoch: int = 0  # launches issued eagerly (stream writes carry it; see GpuWorld)
    captured: bool = False  # a launch on this pad was captured in a CUDA graph (GpuWorld re-reads the epoch)

    @classmethod
    def allocate(cls, size: int, device: Any = None, spin_limit: int = 0, comm_programs: int = 0) -> SyncState:
        zeros = functools.partial(torch.zeros, dtype=torch.int32, device=device)
        return cls(zeros(max(size, 1)), zeros(1), zeros(4), spin_limit, comm_programs)

    def grow(self, size: int) -> None:
        if self.flags.numel() < size:
            grown = torch.zeros(size, dtype=torch.int32, device=self.flags.device)
            grown[: self.flags.numel()] = self.flags
            self.flags = grown

    def timeout(self, launch: LaunchPlan, rank: int,
                words: Mapping[int, tuple[str, int]] | None = None) -> str | None:
        """The spin report as a sentence, or None if no spin ran out and no
        wait found its range outside every chunk (lowering/device_helpers.py);
        ``words`` names other pad words: index -> (what, expected value)."""
        hit, tile_id, flag, seen = (int(x) for x in self.report.tolist())
        if not hit:
            return None
        if hit == UNCOVERED_WAIT:
            return uncovered_wait(launch, rank, tile_id, flag, seen)
        expected = int(self.epoch.item())
        chunk = next((c for cs in launch.chunks.values() for c in cs if c.flag == flag and c.dst == rank), None)
        if chunk:
            what = f"chunk {chunk.id} of @{chunk.plan} (rows [{chunk.lo}, {chunk.hi}) of '{chunk.param}' from rank {chunk.src})"
        elif words and flag in words:
            what, expected = words[flag]
        else:
            what = f"signal-pad flag {flag}"
        return (f"rank {rank}: program {tile_id} gave up waiting for {what}: flag {seen}, "
                f"expected >= {expected} after {self.spin_limit} polls")

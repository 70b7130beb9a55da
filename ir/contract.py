"""The compiler/runtime contract: every name the passes write into the IR and
the runtime reads back.

The fused kernel leaves the compiler as tile IR plus attributes; the runtime
builds the launch's extra arguments (signal pad, epoch, chunk tables, tile
order) from those attributes alone. Both sides spell each name through this
module, so a rename is one edit and a typo is an ImportError, not a kernel
that silently never gets an argument.

Three kinds of names:

* attribute names on ops (``chunk.access``, ``chunk.abi``, ...);
* the ``syn_*`` kernel parameters the lowering adds (the runtime passes them
  by keyword);
* the launch ABI record (``chunk.abi`` on the kernel): which of those
  parameters the kernel takes, and one :class:`ChunkTable` per table.

It imports only xDSL, so every module from ir/ up may import it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal, get_args

from xdsl.dialects.builtin import DictionaryAttr, StringAttr

# --- attribute names -------------------------------------------------------

KERNEL_ATTR: Final = "chunk.kernel"
"""On the module: the name of the kernel to fuse (overlap-opt --kernel)."""
ACCESS_ATTR: Final = "chunk.access"
"""On a load/store of a plan tensor: its footprint along the plan's dim (:class:`AccessKey`)."""
ABI_ATTR: Final = "chunk.abi"
"""On the kernel: the launch ABI record (:class:`AbiKey`)."""
TILE_LOOP_ATTR: Final = "chunk.tile_loop"
"""On a persistent kernel: the tile count of its tile loop, a host expression."""
TILE_STEP_ATTR: Final = "chunk.tile_step"
"""On a persistent kernel: the step of its tile loop, a host expression; the
launch must run exactly that many programs (runtime/abi.py ``tile_grid``)."""
FLAT_TILE_LOOP_ATTR: Final = "chunk.flat_tile_loop"
"""On a persistent kernel with one flat loop over (tile, k-step) pairs
(``host_exprs.FlatTileLoop``): host expressions ``lb``, ``ub`` (its
bounds), ``first`` (the counter's start), ``step`` (what the tile branch
adds to it) and ``k_steps``, from which the launch lists each program's
tiles (runtime/abi.py ``tile_grid``)."""
COST_ATTR: Final = "chunk.cost"
"""On a chunk: why select-backend chose its backend."""
ASSUME_ATTR: Final = "chunk.assume"
"""On the kernel: what verify-addresses' proofs assumed of a launch, one
entry per access (``where``, ``guards``, ``least``, ``in_row``,
``descriptor``, ``int32``), checked by the runtime at each launch
(runtime/assumptions.py)."""
SPAN_PREFIX: Final = "syn_span_"
"""In an ``int32`` bound of :data:`ASSUME_ATTR`, ``syn_span_<p>`` is one past
tensor argument ``p``'s largest element offset at the launch."""
ORIGIN_ATTR: Final = "tile.origin"
"""On an op a pass created: the pass's name (the emitter comments it)."""


class AccessKey:
    """Keys of the ``chunk.access`` dictionary."""

    PLAN: Final = "plan"
    TENSOR: Final = "tensor"
    DIM: Final = "dim"
    ROLE: Final = "role"
    LO: Final = "lo"
    EXTENT: Final = "extent"
    LOOPS: Final = "loops"
    INVARIANT: Final = "invariant"
    WRAP: Final = "wrap"  # present when the index is wrapped with `%`: the modulus, a host expression
    # present when `tl.where(cond, rows, row)` redirects lanes: the range of those lanes' row
    ELSE_LO: Final = "else_lo"
    ELSE_EXTENT: Final = "else_extent"
    # present when a scalar row's address adds a length the analysis takes for a column
    # (`input_ptrs + d`): a host expression of the column end, which a launch checks is at most
    # the row stride named by ROW_STRIDE (else the access reads the next row)
    IN_ROW: Final = "in_row"
    ROW_STRIDE: Final = "row_stride"


# --- plan roles --------------------------------------------------------------

CONSUMED: Final = ("all-gather", "all-to-all", "ring-exchange")
"""Collectives whose tensor the kernel reads: chunks arrive while it runs."""
PRODUCED: Final = ("reduce-scatter", "all-reduce")
"""Collectives whose tensor the kernel writes: chunks leave as tiles finish."""


def is_consumed(collective: str) -> bool:
    """True when the kernel reads the plan's tensor (it waits for chunks)."""
    return collective in CONSUMED


# --- kernel parameters the lowering adds -------------------------------------

FLAGS_PARAM: Final = "syn_flags"
EPOCH_PARAM: Final = "syn_epoch"
SPIN_LIMIT_PARAM: Final = "syn_spin_limit"
REPORT_PARAM: Final = "syn_report"
MEMO_PARAM: Final = "syn_wait_memo"
"""Per program: the last chunk it saw arrive (``syn_wait_span_memo``)."""
COMM_PROGRAMS_PARAM: Final = "syn_comm_programs"
TILE_ORDER_PARAM: Final = "syn_tile_order"
ROTATE_PARAM: Final = "syn_rotate"

COMM_PROGRAMS: Final = 16
"""Default number of SM communication programs; they exit (freeing their SMs) once copied."""

TableRole = Literal["wait", "signal", "reduce", "sm", "push"]
TABLE_ROLES: Final[tuple[str, ...]] = get_args(TableRole)


def table_param(plan: str, tensor: str, role: TableRole) -> tuple[str, str]:
    """Names of the chunk-table pointer and its row count for one plan tensor."""
    stem = f"syn_{role}_{plan}_{tensor}"
    return stem + "_tab", stem + "_n"


def staging_param(plan: str, tensor: str) -> str:
    """Name of the staging buffer a fused reduction reads the peers' partials from."""
    return f"syn_staging_{plan}_{tensor}"


# --- the launch ABI record (``chunk.abi``) -------------------------------------


class AbiKey:
    """Keys of the ``chunk.abi`` dictionary. A parameter key maps to the name
    of the kernel parameter; a key that is absent means the kernel does not
    take that parameter."""

    FLAGS: Final = "flags"
    EPOCH: Final = "epoch"
    SPIN_LIMIT: Final = "spin_limit"
    REPORT: Final = "report"
    COMM_PROGRAMS: Final = "comm_programs"
    MEMO: Final = "memo"
    TILE_ORDER: Final = "tile_order"
    ROTATE: Final = "rotate"
    ORDER: Final = "order"  # tile-reorder's order option
    GROUP: Final = "group"  # integer: rows of axis 0 per group (order=arrival)
    AXIS: Final = "axis"  # integer: the rotated grid axis (order=rotate)
    FLAG_BASES: Final = "flag_bases"  # plan name -> index of its chunk 0 in the signal pad
    TABLES: Final = "tables"  # array of ChunkTable records


@dataclass(frozen=True)
class ChunkTable:
    """One chunk table the kernel takes: a pointer parameter and its row count.

    Rows are ``(lo, hi, flag)`` for wait/signal tables and six int64 words for
    ``sm`` and ``reduce`` tables (see runtime/abi.py); ``staging`` names the
    staging buffer of a ``reduce`` table."""

    param: str
    count: str
    plan: str
    tensor: str
    role: TableRole
    staging: str | None = None

    @classmethod
    def for_tensor(cls, plan: str, tensor: str, role: TableRole) -> ChunkTable:
        tab, n = table_param(plan, tensor, role)
        return cls(tab, n, plan, tensor, role, staging_param(plan, tensor) if role == "reduce" else None)

    def to_attr(self) -> DictionaryAttr:
        fields = {"param": self.param, "count": self.count, "plan": self.plan, "tensor": self.tensor, "role": self.role}
        if self.staging is not None:
            fields["staging"] = self.staging
        return DictionaryAttr({k: StringAttr(v) for k, v in fields.items()})

    @classmethod
    def from_attr(cls, attr: DictionaryAttr) -> ChunkTable:
        fields = {k: v.data for k, v in attr.data.items() if isinstance(v, StringAttr)}
        role = fields["role"]
        if role not in TABLE_ROLES:
            raise ValueError(f"chunk table of @{fields.get('plan')}: unknown role '{role}' (known: {', '.join(TABLE_ROLES)})")
        return cls(fields["param"], fields["count"], fields["plan"], fields["tensor"], role, fields.get("staging"))  # type: ignore[arg-type]

"""select-backend: copy engine, SM or NCCL per chunk, from a cost model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from xdsl.context import Context
from xdsl.dialects.builtin import DictionaryAttr, FloatAttr, IntegerAttr, ModuleOp, StringAttr, f64, i64
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from syncopate.dialects import tile
from syncopate.dialects.chunk import ChunkOp, PlanOp, extent_value
from syncopate.ir.analysis.chunk_access import analyze
from syncopate.ir.contract import CONSUMED, COST_ATTR
from syncopate.ir.plans.errors import PlanError
from syncopate.ir.plans.expr import evaluate
from syncopate.passes.options import ChoiceOptions

BackendChoice = Literal["auto", "ce", "sm", "nccl"]
"""What ``backend=`` accepts: ``auto`` (the cost model decides) or one backend for every chunk."""



@dataclass(frozen=True)
class CostModel:
    """Time to move ``bytes`` by each backend, in microseconds.

    copy engine: a DMA launch and the flag write cost ``ce_latency_us``, then
    the link's bandwidth. SM: ``sms`` streaming multiprocessors copy at
    ``sm_gbps`` each (capped by the link) after ``sm_latency_us``, and the
    compute they no longer do costs their share ``sms / total_sms`` of the
    transfer time. NCCL: like the copy engine with a higher fixed cost.
    """

    link_gbps: float = 450.0
    sm_gbps: float = 25.0
    sms: int = 8
    total_sms: int = 132
    ce_latency_us: float = 8.0
    sm_latency_us: float = 2.0
    nccl_latency_us: float = 20.0

    def ce(self, nbytes: int) -> float:
        return self.ce_latency_us + nbytes / (self.link_gbps * 1e3)

    def sm(self, nbytes: int) -> float:
        bandwidth = min(self.link_gbps, self.sms * self.sm_gbps)
        transfer = nbytes / (bandwidth * 1e3)
        return self.sm_latency_us + transfer * (1 + self.sms / self.total_sms)

    def nccl(self, nbytes: int) -> float:
        return self.nccl_latency_us + nbytes / (self.link_gbps * 1e3)


def _parse_sizes(text: str) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for item in filter(None, (p.strip() for p in text.split(","))):
        name, _, value = item.partition("=")
        if not name.strip().isidentifier() or not value.strip().lstrip("-").isdigit():
            raise PassFailedException(
                f"select-backend: sizes expects NAME=INT pairs separated by commas, got '{item}'"
            )
        sizes[name.strip()] = int(value)
    return sizes


@dataclass(frozen=True)
class SelectBackendPass(ChoiceOptions, ModulePass):
    """Choose how each chunk moves: copy engine, SM loads and stores, or NCCL.

    ``ce`` is the copy engine, ``sm`` loads and stores by SMs, ``nccl`` the
    portable fallback.

    Assumes: the module holds chunk.plan ops; ``sizes="M=8192,K=4096"`` gives
    the values of the shape symbols (other dims of a chunk come from the
    tensor's shape; ``elem_bytes`` is the element size).

    Guarantees: every non-local chunk whose backend is ``unset`` gets one;
    backends already in the plan (hand-written or a previous run) are kept,
    so a plan file overrides the model per chunk, and ``backend=ce|sm|nccl``
    overrides it for all. With sizes known, the chunk gets the cheapest
    backend by :class:`CostModel` and a ``chunk.cost = {bytes, ce_us, sm_us,
    nccl_us}`` attribute records why; without them, the copy engine (it
    takes no SMs from compute) and ``chunk.cost = {reason = "sizes unknown"}``.
    Local chunks (src == dst) move nothing and stay ``unset``. The SM
    backend is the kernel's own communication programs, which pull gathered
    chunks (all-gather, all-to-all, ring-exchange); for a reduce-scatter the
    model chooses among ``ce`` and ``nccl`` only, and ``sm`` is an error;
    so it is for a plan on a tensor descriptor made on the host (the
    communication programs copy through a pointer).
    """

    name: ClassVar[str] = "select-backend"
    # it sets chunk backends, which no access bound depends on
    preserved_analyses: ClassVar[tuple] = (analyze,)

    backend: BackendChoice = "auto"
    sizes: str = ""
    elem_bytes: int = 2
    link_gbps: float = 450.0
    sms: int = 8

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # the cost model divides by these; zero or negative would choose backends by nonsense sizes and times
        for option, value in (("elem_bytes", self.elem_bytes), ("sms", self.sms), ("link_gbps", self.link_gbps)):
            if not value > 0 or value == float("inf"):
                raise PassFailedException(f"select-backend: {option} must be a positive number, got {value}")
        model = CostModel(link_gbps=self.link_gbps, sms=self.sms)
        env = _parse_sizes(self.sizes)
        descriptors = _descriptor_params(op)
        for plan in (p for p in op.walk() if isinstance(p, PlanOp)):
            shapes = {t.tensor.data: t.shape_values for t in plan.tensors}
            on_descriptor = {t.tensor.data: t.param.data for t in plan.tensors if t.param.data in descriptors}
            for chunk in plan.chunks:
                descriptor = on_descriptor.get(chunk.tensor.data)
                candidates = ("ce", "sm") if plan.collective in CONSUMED and descriptor is None else ("ce",)
                if chunk.src.value.data != chunk.dst.value.data and chunk.backend.data == "unset":
                    self._choose(chunk, shapes[chunk.tensor.data], env, model, candidates)
                if chunk.backend.data != "sm":
                    continue
                if plan.collective not in CONSUMED:
                    raise PassFailedException(
                        f"select-backend: chunk {chunk.chunk_id.value.data} of @{plan.sym_name.data} uses the SM backend, "
                        f"which moves gathered chunks only; a {plan.collective} needs ce or nccl"
                    )
                if descriptor is not None:
                    raise PassFailedException(
                        f"select-backend: chunk {chunk.chunk_id.value.data} of @{plan.sym_name.data} uses the SM backend, "
                        f"whose programs copy through a pointer, but '{descriptor}' is a tensor descriptor made on the "
                        "host; use backend=ce or backend=nccl"
                    )

    def _choose(self, chunk: ChunkOp, shape: list, env: dict[str, int], model: CostModel,
                candidates: tuple[str, ...]) -> None:
        nbytes = _chunk_bytes(chunk, shape, env, self.elem_bytes)
        if nbytes is None:
            choice = "ce" if self.backend == "auto" else self.backend
            chunk.attributes[COST_ATTR] = DictionaryAttr({"reason": StringAttr("sizes unknown")})
        else:
            costs = {"ce": model.ce(nbytes), "sm": model.sm(nbytes), "nccl": model.nccl(nbytes)}
            choice = min(candidates, key=costs.__getitem__) if self.backend == "auto" else self.backend
            chunk.attributes[COST_ATTR] = DictionaryAttr(
                {"bytes": IntegerAttr(nbytes, i64)}
                | {f"{k}_us": FloatAttr(round(v, 3), f64) for k, v in costs.items()}
            )
        chunk.properties["backend"] = StringAttr(choice)


def _descriptor_params(module: ModuleOp) -> set[str]:
    """Parameters of the module's kernels that are tensor descriptors made on the host."""
    return {name for f in module.ops if isinstance(f, tile.FuncOp)
            for name, arg in zip(f.arg_names, f.body.block.args) if isinstance(arg.type, tile.DescriptorType)}


def _chunk_bytes(chunk: ChunkOp, shape: list, env: dict[str, int], elem_bytes: int) -> int | None:
    try:
        elems = evaluate(extent_value(chunk.size), env)
        for d, extent in enumerate(shape):
            if d != chunk.dim.value.data:
                elems *= evaluate(extent, env)
    except PlanError:
        return None
    return elems * elem_bytes

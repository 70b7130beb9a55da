"""overlap: the named pipeline (docs/architecture.md, "The data flow"), one pass with the options of its stages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from syncopate.passes.chunk_dependency_analysis import ChunkDependencyAnalysisPass
from syncopate.passes.fuse_peer_reduction import FusePeerReductionPass
from syncopate.passes.insert_signals import InsertSignalsPass
from syncopate.passes.lower_chunk_to_tile import LowerChunkToTilePass
from syncopate.passes.options import ChoiceOptions
from syncopate.passes.pipeline import apply_passes
from syncopate.passes.push_all_reduce import PushAllReducePass
from syncopate.passes.select_backend import BackendChoice, SelectBackendPass
from syncopate.passes.tile_reorder import Order, TileReorderPass
from syncopate.passes.verify_addresses import VerifyAddressesPass
from syncopate.passes.verify_sync import VerifySyncPass


@dataclass(frozen=True)
class OverlapPipelinePass(ChoiceOptions, ModulePass):
    """Fuse the module's chunk plans into its kernel (the whole pipeline).

    Runs chunk-dependency-analysis, tile-reorder{order group axis},
    insert-signals{waits signals hoist_loops}, select-backend{backend sizes elem_bytes},
    with ``reduce=epilogue`` fuse-peer-reduction (the owner of a reduce-scatter
    sums the peers' partials in its tiles' epilogue; ``reduce=stream``, the
    default, leaves that add to the runtime), with ``reduce=push``
    push-all-reduce (an all-reduce done inside the kernel: each tile pushes
    its partial to every peer and stores the sum), verify-sync{waits signals},
    verify-addresses{strict=true} (with waits and signals both on) and
    lower-chunk-to-tile{memo}, in that order; each option goes to the
    stage of the same name (see each pass's documentation for assumptions and
    guarantees). ``overlap`` alone equals
    ``chunk-dependency-analysis,tile-reorder{order=arrival group=8},insert-signals,select-backend,``
    ``verify-sync,verify-addresses{strict=true},lower-chunk-to-tile``
    (group=8: L2-grouped tiles within an arrival step, as in Triton's grouped matmul).
    verify-sync re-derives every access's footprint and checks the waits and
    signals the earlier stages placed; verify-addresses checks them again
    from element offsets with no code shared with the footprint analysis:
    an access it cannot bound, or bounded but cannot prove covered, fails
    the pipeline naming its ``file.py:LINE``, so a fused kernel's every
    planned access is proved by both; what its proofs assume of a launch is
    recorded for the runtime to check. They run just before
    lower-chunk-to-tile, the last point where they are chunk span ops (after
    it they are helper calls over runtime tables). With ``waits=false`` or
    ``signals=false`` it skips that side too (the negative controls);
    ``verify=false`` skips it altogether (tests that count the placing
    passes' own work, or run deliberately broken pipelines).

    Assumes: what its first stage assumes (a module with one kernel and its
    chunk plans, every access to a planned tensor boundable).
    Guarantees: the union of its stages' guarantees: every tile waits for
    the chunks it reads and signals the chunks it writes, in the backend's
    protocol (checked by verify-sync), or the pipeline fails with the error
    of the stage that refused.
    """

    name: ClassVar[str] = "overlap"

    order: Order = "arrival"
    group: int = 8  # L2-grouped tile order within an arrival step (Triton's GROUP_M)
    axis: int = 0
    waits: bool = True
    signals: bool = True
    hoist_loops: bool = False
    backend: BackendChoice = "auto"
    sizes: str = ""
    elem_bytes: int = 2
    memo: bool = True
    reduce: Literal["stream", "epilogue", "push"] = "stream"
    verify: bool = True

    def stages(self) -> list[ModulePass]:
        return [
            ChunkDependencyAnalysisPass(),
            TileReorderPass(order=self.order, group=self.group, axis=self.axis),
            InsertSignalsPass(waits=self.waits, signals=self.signals, hoist_loops=self.hoist_loops),
            SelectBackendPass(backend=self.backend, sizes=self.sizes, elem_bytes=self.elem_bytes),
            *([FusePeerReductionPass()] if self._reduce_in_epilogue() else []),
            *([PushAllReducePass()] if self.reduce == "push" else []),
            *([VerifySyncPass(waits=self.waits, signals=self.signals)] if self.verify else []),
            *([VerifyAddressesPass(strict=True)] if self.verify and self.waits and self.signals else []),
            LowerChunkToTilePass(memo=self.memo),
        ]

    def _reduce_in_epilogue(self) -> bool:
        return self.reduce == "epilogue"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_passes(self.stages(), ctx, op)

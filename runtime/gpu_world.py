"""The GPU World's public names (the implementation is the runtime/gpu
package; its protocol is described in docs/runtime-protocol.md)."""

from syncopate.runtime.gpu.errors import GpuWorldError
from syncopate.runtime.gpu.flags import FLAG_CAPACITY, GRAPH_FLAG
from syncopate.runtime.gpu.policies import (
    epilogue_comm_sms,
    epilogue_reduction_refusal,
    first_tile,
    nccl_starvation_risk,
    persistent_nccl_refusal,
    staged_reductions_refusal,
)
from syncopate.runtime.gpu.rank import GpuRank
from syncopate.runtime.gpu.world import GpuWorld, default_ce_lanes

__all__ = [
    "FLAG_CAPACITY",
    "GRAPH_FLAG",
    "GpuRank",
    "GpuWorld",
    "GpuWorldError",
    "default_ce_lanes",
    "epilogue_comm_sms",
    "epilogue_reduction_refusal",
    "first_tile",
    "nccl_starvation_risk",
    "persistent_nccl_refusal",
    "staged_reductions_refusal",
]

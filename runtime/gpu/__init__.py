"""The GPU World, split by job (the protocol: docs/runtime-protocol.md), and
its public names: the one facade other layers import it through.

* ``world``: :class:`GpuWorld`, the process, its streams and lanes;
* ``memory``: symmetric buffers, peer views, signal pads, staging buffers;
* ``flags``: flags and epochs, eagerly and under CUDA-graph capture;
* ``rank``: :class:`GpuRank`, the order of one launch's stream work;
* ``ce`` (with sm), ``nccl``: the backends of consumed plans;
* ``reduce_scatter``: produced plans, their staging and staging tokens;
* ``gather_tokens``: readiness and release tokens of consumed plans;
* ``policies``: launches refused or warned about;
* ``device``: every device operation the protocol issues;
* ``stream_wait``: the one-program kernel that holds a stream on a flag.
"""

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

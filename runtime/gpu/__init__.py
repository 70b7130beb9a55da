"""The GPU World, split by job (the protocol: docs/runtime-protocol.md).

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
from syncopate.runtime.gpu.rank import GpuRank
from syncopate.runtime.gpu.world import GpuWorld

__all__ = ["GpuRank", "GpuWorld", "GpuWorldError"]

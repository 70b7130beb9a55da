"""Host tables copied to the device without holding the host.

``torch.tensor(values, device="cuda")`` copies from pageable memory and
then synchronises the current stream, so the host waits for every kernel
queued before it. The runtime builds tables (chunk tables, flag words)
whenever a launch key is new, which a server meets on every new token
count: such a wait would drain the device's queue at each one. A
non-blocking copy from pageable memory is staged by the driver at once
and runs in stream order, before anything queued after it.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch


def upload(values: Sequence, dtype: torch.dtype, device: torch.device | str) -> torch.Tensor:
    """``values`` as a tensor on ``device``, copied in the current stream's order."""
    return torch.tensor(values, dtype=dtype).to(device, non_blocking=True)

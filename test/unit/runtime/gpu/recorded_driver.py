"""What the recorded ``cuda-python`` drivers of the GPU runtime's tests share."""

from __future__ import annotations

import enum


class Result(enum.IntEnum):
    """The driver's result codes the runtime checks."""

    CUDA_SUCCESS = 0
    CUDA_ERROR_INVALID_VALUE = 1

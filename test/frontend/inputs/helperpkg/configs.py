"""Autotuning configurations kept apart from the kernels that use them."""

import triton


def block_configs():
    return [triton.Config({"BLOCK": block}, num_warps=4) for block in (16, 32)]

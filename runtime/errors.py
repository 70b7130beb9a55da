"""The error a launch raises for arguments the fused kernel cannot take
(both worlds; runtime/abi.py and runtime/descriptors.py raise it)."""


class AbiError(Exception):
    """Launch arguments the fused kernel cannot take."""

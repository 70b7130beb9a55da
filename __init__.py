"""syncopate: chunk-centric compute/communication overlap for multi-GPU Triton kernels."""

__version__ = "0.1.0"

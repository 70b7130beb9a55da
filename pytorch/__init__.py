"""syncopate from PyTorch programs: ``syncopate.compile``, ``syncopate.empty``,
the ``syncopate.ops`` custom ops and the tensor-parallel styles.

Everything here is reached lazily from ``import syncopate`` (see the package
``__init__``), so importing syncopate does not import torch, Triton or xDSL.
See docs/pytorch.md.
"""

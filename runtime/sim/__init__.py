"""Simulated ranks: W ranks in one process, kernels in the Triton
interpreter, chunks delivered in a chosen order (docs/runtime-protocol.md).

* ``delivery``: signal pads, poison and the delivery orders;
* ``world``: :class:`~syncopate.runtime.sim.world.SimWorld`, the simulated
  World and its ranks;
* ``epilogue``: kernels that reduce peers' partials in their epilogue;
* ``sanitizer``: the address-level check of every planned access.

Nothing here is imported by the GPU World (runtime/gpu/), nor the other way
round; what both need lives in runtime/ (abi, rows, staging).
"""

"""syncopate.lowering: tile IR -> Triton Python source.

The emitter is :mod:`syncopate.lowering.triton_emitter` (``emit_module``,
``EmitError``); this package does not import it, so that importing a light
module of it (``target``, ``device_helpers``) stays cheap.
"""

"""syncopate.ir.analysis: facts about a kernel and its plans, no rewriting.

The footprint of a memory access: `access_patterns` takes its address apart
(base parameter, index terms, scalar offsets, loop-carried steps),
`index_spans` bounds the rows each index spans, `host_exprs` writes scalars
as expressions the host evaluates, `unbounded` says why an access has no
footprint; below them `ssa_values` (what a value is underneath),
`loop_nesting` (loops around ops, loop invariance) and `ssa_walk`.
`helper_rows` carries rows a jit helper returns into its caller,
`loaded_rows` bounds rows read from a table, `mask_bounds` reads the bounds
a mask puts on an index and `pointer_uses` finds every op a pointer
reaches. `chunk_access` binds plan tensors to the kernel and bounds their
accesses along the plan's dim, `wait_extent` checks a wait cannot leave the
plan's extent, `symbolic` proves ranges equal or nested, and `deps`
evaluates the accesses for concrete sizes into the tile -> chunk graph.
`manager` shares analysis results between the passes of one pipeline run.
"""

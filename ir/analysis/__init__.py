"""syncopate.ir.analysis: facts about a kernel and its plans, no rewriting.

`footprint` bounds the memory accesses of tile IR, `chunk_access` binds plan
tensors to the kernel and bounds their accesses along the plan's dim, and
`deps` evaluates both for concrete sizes into the tile -> chunk graph.
`manager` shares analysis results between the passes of one pipeline run.
"""

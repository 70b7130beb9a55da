"""gemm_rs.py's GEMM + reduce-scatter as a persistent kernel: the kernel of
``ag_gemm_persistent.py`` (PROGRAMS programs walk all the output tiles),
imported from there, with gemm_rs.py's inputs, plan and reference. A
workload may import its KERNEL: syncopate reads the file that defines it.

What syncopate does with it (``overlap-run examples/gemm_rs_persistent.py``):
the tile loop's variable is the tile index (chunk-dependency-analysis),
tiles run in departure order (tile-reorder remaps the loop variable: the
rows other ranks own first), and each iteration signals the chunks its
store wrote right after the store (insert-signals), so the runtime can send
a chunk as soon as all its tiles are done.
"""

import os

from syncopate.runtime.workload import load_workload

_HERE = os.path.dirname(os.path.abspath(__file__))
_PERSISTENT = load_workload(os.path.join(_HERE, "ag_gemm_persistent.py")).module
_DENSE = load_workload(os.path.join(_HERE, "gemm_rs.py")).module

KERNEL = _PERSISTENT.KERNEL
PLANS = _DENSE.PLANS
COLLECTIVES = _DENSE.COLLECTIVES
make_inputs = _DENSE.make_inputs
launch = _PERSISTENT.launch  # C = A @ B on PROGRAMS programs: the rank's partial C

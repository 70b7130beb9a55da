"""Print rank R's tile -> chunk dependency edges of a module read from stdin.

usage: overlap-opt ... -p chunk-dependency-analysis | python tile_chunks.py RANK GRID NAME=INT...
(GRID is comma-separated, e.g. 4 or 4,2). One line per tile:
``tile (x, y, z): waits <plan>#<id>[lo, hi) ...`` / ``signals ...``.
"""

import sys

from xdsl.parser import Parser

from syncopate.dialects import tile
from syncopate.ir.analysis import deps
from syncopate.ir.context import make_context
from syncopate.ir.contract import ACCESS_ATTR
from syncopate.passes.lower_chunk_to_tile import flag_bases


def main() -> None:
    rank = int(sys.argv[1])
    grid = tuple(int(g) for g in sys.argv[2].split(","))
    env = {k: int(v) for k, v in (a.split("=") for a in sys.argv[3:])}
    module = Parser(make_context(), sys.stdin.read()).parse_module()
    kernels = [op for op in module.ops if isinstance(op, tile.FuncOp)]
    # the kernel the analysis annotated (a file may hold several; --kernel picks one)
    kernel = next((k for k in kernels if any(ACCESS_ATTR in o.attributes for o in k.walk())), kernels[0])
    graph = deps.tile_chunk_graph(module, kernel, env, grid, rank, flag_bases(module))
    for pid in deps.grid_tiles(grid):
        node = ("tile", pid)
        parts = []
        for verb, nodes in (("waits", graph.predecessors(node)), ("signals", graph.successors(node))):
            chunks = sorted((graph.nodes[n]["chunk"] for n in nodes), key=lambda c: (c.lo, c.id))
            if chunks:
                parts.append(verb + " " + " ".join(f"{c.plan}#{c.id}[{c.lo}, {c.hi})" for c in chunks))
        print(f"tile {pid}: " + ("; ".join(parts) or "none"))


if __name__ == "__main__":
    main()

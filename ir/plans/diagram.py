"""Draw a chunk plan: one row per rank, one column per logical step, an arrow
per chunk from its source rank to its destination rank, labelled with the chunk
id and region. Local chunks (a rank's own shard) are drawn as boxes in the
first column. Uses matplotlib's Agg backend; the format follows the suffix
(``.svg``, ``.png``, ``.pdf``).
"""

from __future__ import annotations

import os

from syncopate.dialects.chunk import PlanOp
from syncopate.ir.plans.errors import PlanError
from syncopate.ir.plans.model import Plan, from_op

FORMATS = (".svg", ".png", ".pdf")


def draw(plan: Plan | PlanOp, path: str) -> None:
    """Write the diagram of ``plan`` to ``path``; raises PlanError on a bad path."""
    if isinstance(plan, PlanOp):
        plan = from_op(plan)
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in FORMATS:
        raise PlanError(f"diagram path {path!r} must end in one of {', '.join(FORMATS)}")
    try:
        import matplotlib
    except ImportError:
        raise PlanError("drawing a plan needs matplotlib (pip install 'syncopate[plot]')") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    moves = [c for c in plan.chunks if not c.is_local]
    steps = sorted({c.step for c in moves})
    column = {s: i + 1 for i, s in enumerate(steps)}
    fig, ax = plt.subplots(figsize=(2 + 1.6 * (len(steps) + 1), 1 + 0.8 * plan.world))
    cmap = plt.get_cmap("tab10")
    local_count: dict[int, int] = {}
    for c in plan.chunks:
        if c.is_local:
            k = local_count.get(c.src, 0)
            local_count[c.src] = k + 1
            ax.text(-0.3 + 0.25 * (k % 4), c.src + 0.25 * (k // 4), f"#{c.id}", ha="center", va="center", fontsize=7,
                    bbox={"boxstyle": "round", "fc": cmap(c.src % 10), "alpha": 0.4})
    per_cell: dict[tuple[int, int], int] = {}
    for c in moves:
        x = column[c.step]
        k = per_cell.get((x, c.src), 0)
        per_cell[(x, c.src)] = k + 1
        dx = 0.12 * k
        ax.annotate("", xy=(x + 0.35 + dx, c.dst), xytext=(x - 0.35 + dx, c.src),
                    arrowprops={"arrowstyle": "->", "color": cmap(c.src % 10), "lw": 1.2})
        ax.text(x - 0.35 + dx, c.src + 0.18, f"#{c.id} {c.offset}+{c.size}",
                fontsize=6, color=cmap(c.src % 10))
    ax.set_yticks(range(plan.world), [f"rank {r}" for r in range(plan.world)])
    ax.set_xticks(range(len(steps) + 1), ["local"] + [f"step {s}" for s in steps])
    ax.set_ylim(plan.world - 0.5, -0.7)
    ax.set_xlim(-0.6, len(steps) + 0.8)
    ax.set_title(f"@{plan.name}: {plan.kind}, W={plan.world}, {len(plan.chunks)} chunks")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    try:
        fig.savefig(path)
    except OSError as err:
        raise PlanError(f"cannot write diagram {path}: {err.strerror}") from None
    finally:
        plt.close(fig)

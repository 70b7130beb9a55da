"""The bar chart: one panel per table, one horizontal bar per row (ms).

Bars are coloured by row group (baselines, parts alone, bounds, syncopate);
rows without a time (n/a, WRONG) are named with their status at zero. The
Triton bound is drawn as a dashed line. Needs matplotlib (Agg backend);
without it :func:`write_png` returns a message and writes nothing.
"""

from __future__ import annotations

import math

from syncopate.bench.report import Table
from syncopate.bench.variants import ALONE, BASELINE, BOUND, BOUND_TRITON, FUSED

COLORS = {BASELINE: "#4c72b0", ALONE: "#8c8c8c", BOUND: "#55a868", FUSED: "#dd8452"}


def write_png(tables: list[Table], path: str) -> str | None:
    """Write the chart to ``path``; return None, or why nothing was written."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (pip install matplotlib): no PNG written"
    if not tables:
        return "no tables: no PNG written"
    cols = 2 if len(tables) > 1 else 1
    nrows = math.ceil(len(tables) / cols)
    height = max(len(t.rows) for t in tables) * 0.28 + 1.2
    fig, axes = plt.subplots(nrows, cols, figsize=(8 * cols, height * nrows), squeeze=False)
    for ax, table in zip(axes.flat, tables):
        names = [r.variant for r in table.rows]
        values = [r.ms if r.ok and r.ms is not None else 0.0 for r in table.rows]
        ax.barh(range(len(names)), values, color=[COLORS.get(r.group, "#999999") for r in table.rows])
        ax.set_yticks(range(len(names)))
        ax.set_yticklabels([n if r.ok else f"{n} ({r.status.split(':')[0]})" for n, r in zip(names, table.rows)],
                           fontsize=7)
        ax.invert_yaxis()
        if not any(values):
            ax.set_xlim(0, 1)
            ax.text(0.5, 0.5, "no row measured", ha="center", va="center", transform=ax.transAxes, fontsize=9)
        bound = table.ms(BOUND_TRITON)
        if bound is not None:
            ax.axvline(bound, color=COLORS[BOUND], linestyle="--", linewidth=1)
        ax.set_title(f"{table.workload} {table.label} (W={table.world}, {table.dtype})", fontsize=9)
        ax.set_xlabel("ms (median, max over ranks)", fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
    for ax in list(axes.flat)[len(tables):]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None

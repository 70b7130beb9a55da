"""The headline syncopate row of a shape, chosen before anything is timed.

The fastest of N rows timed side by side is biased fast: with noise, the
minimum of N medians sits below the typical time of the row that produced
it (the winner's curse), and the more rows explored, the larger the bias.
So the headline of a shape is one row fixed in advance and timed in its own
confirmation run (``overlap-bench --phases confirm``):

* the autotune cache's choice for (workload, shape, W, device), written by
  an earlier exploration run (``--phases explore --autotune``), read once
  at the start of the run, before any row of this run is timed;
* else the fixed rule: the default pipeline ``overlap{order=arrival
  backend=ce}``, one chunk per rank, the runtime's default ce lanes, the
  shape's GEMM configuration.

For the all-gather GEMM the confirmation also times the chosen row's
``/direct`` twin (the producer writes straight into the symmetric buffer),
labelled, never the headline: a public call that is handed an ordinary
tensor pays the staging copy.
"""

from __future__ import annotations

from dataclasses import dataclass

from syncopate.bench.autotune import Choice, TuneKey, best_choice
from syncopate.bench.shapes import AG_GEMM
from syncopate.bench.variants import FusedOptions, Variant

RULE_BACKEND, RULE_ORDER = "ce", "arrival"


@dataclass(frozen=True)
class Headline:
    """The row a shape's confirmation run reports, and where the choice came from."""

    options: FusedOptions
    source: str  # shown in the row, e.g. "fixed rule" or "autotune cache: ce/arrival/c2, 1.234 ms earlier"


def from_choice(choice: Choice | None, default_lanes: int) -> Headline:
    """The headline for a cached ``choice`` (None: the fixed rule)."""
    if choice is None:
        options = FusedOptions(RULE_BACKEND, RULE_ORDER, 1, default_lanes)
        return Headline(options, f"fixed rule {RULE_BACKEND}/{RULE_ORDER}")
    options = FusedOptions(choice.backend, choice.order, choice.chunks, choice.lanes, choice.tile, choice.reduce)
    return Headline(options, f"autotune cache ({choice.text()}, {choice.ms:.3f} ms in an earlier run)")


def choose(key: TuneKey, default_lanes: int, cache: str | None = None) -> Headline:
    """The headline of ``key``: the cache's choice, else the fixed rule (raises ``AutotuneError`` on a bad cache)."""
    return from_choice(best_choice(key, cache), default_lanes)


def rows_of(headline: Headline, workload: str) -> list[FusedOptions]:
    """The syncopate rows of a confirmation run: the headline, and for the
    all-gather GEMM its ``/direct`` twin."""
    rows = [headline.options]
    if workload == AG_GEMM:
        o = headline.options
        rows.append(FusedOptions(o.backend, o.order, o.chunks, o.lanes, o.tile, o.reduce, direct=True))
    return rows


def mark(variants: list[Variant], headline: Headline) -> list[Variant]:
    """``variants`` (built from :func:`rows_of`) with the first marked as the headline."""
    if variants:
        variants[0].meta = {**variants[0].meta, "headline": headline.source}
    return variants

"""The bench builds its plans and pipelines as typed values; these check
them against the spec text a user would write for the same row
(``--plan``, ``-p``), so the two paths agree."""

from syncopate.ir.plans.load import load
from syncopate.passes import parse_pipeline


def same_plan(typed, text: str) -> bool:
    """``typed`` (template options) builds the plan op the spec ``text`` builds."""
    return str(load(typed)) == str(load(text))


def same_pipeline(typed, text: str) -> bool:
    """``typed`` (a pass) is the one pass that the ``-p`` text ``text`` parses to."""
    return parse_pipeline(text).passes == (typed,)

"""The one exception type of the plan tooling.

Everything user-facing in :mod:`syncopate.ir.plans` (spec parsing, templates,
porting, file loading, verification) reports problems by raising
:class:`PlanError` with a message that names what is wrong, so a driver can
print ``str(err)`` and exit instead of showing a traceback.
"""


class PlanError(Exception):
    """A chunk plan, plan spec or plan file is invalid."""

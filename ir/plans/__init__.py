"""Chunk plans: templates, porting, verification, diagrams and CLI glue.

Public entry points:

* :func:`syncopate.ir.plans.cli.load_plan` / ``add_plan_arguments`` (drivers)
* :func:`syncopate.ir.plans.spec.plan_from_spec` (spec -> Plan)
* :func:`syncopate.ir.plans.port.port` (DTensor placements -> Plan)
* :func:`syncopate.ir.plans.verifier.verify_plan`
* :func:`syncopate.ir.plans.diagram.draw`
* :func:`syncopate.ir.plans.launch_extents.launch_extents` (extents read from the launched tensor)
"""

from syncopate.ir.plans.errors import PlanError

__all__ = ["PlanError"]

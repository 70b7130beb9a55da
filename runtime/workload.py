"""What workload files import: the stable public path of the harness's
workload contract (runtime/harness/workload.py, which documents it).

Workload files (``examples/*.py`` and the users' own) are written against
``syncopate.runtime.workload``; the harness that loads and checks them
lives in runtime/harness/, and this module keeps their imports working
wherever it moves.
"""

from syncopate.runtime.harness.workload import Workload, WorkloadError, load_workload, shard_bounds, with_world

__all__ = ["Workload", "WorkloadError", "load_workload", "shard_bounds", "with_world"]

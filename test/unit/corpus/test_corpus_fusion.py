"""Every corpus kernel (test/corpus/*.py) either fuses unchanged and passes
the simulated-rank check, or says why no plan applies.

A corpus file states its fusion in one of three ways:

* a workload (``KERNEL``, ``PLANS``, ``COLLECTIVES``, ``make_inputs``,
  ``launch``; see ``syncopate.runtime.harness.workload``);
* ``FUSE = (plan spec, index of the gathered argument in make_case's args,
  dim)``: the workload is derived from ``make_case``: each rank holds its
  shard of that argument (``shard_bounds``), ``launch`` runs the case with
  the gathered tensor and returns the case's first output;
* ``NO_PLAN = "why"``: the kernel reads or writes nothing a plan could shard
  sensibly (the reason is checked to be non-empty).

An idiom the compiler refuses is tested where it is refused (the lit
folders' ``err-*`` and error cases), not kept in the corpus.

The check runs W=2 with the ``late`` delivery (every chunk arrives after the
kernel started waiting) and the ``isolated`` one (a tile sees only the chunks
it waited for) by default; SYNCOPATE_CORPUS_MATRIX=1 runs W = 2, 3, 4 and
every delivery order.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import types
from pathlib import Path

import pytest
import torch

CORPUS_DIR = Path(__file__).resolve().parents[2] / "corpus"
CORPUS_FILES = sorted(p for p in CORPUS_DIR.glob("*.py") if not p.name.startswith("_"))
SEED = 0
MATRIX = os.environ.get("SYNCOPATE_CORPUS_MATRIX") == "1"
WORLDS = (2, 3, 4) if MATRIX else (2,)


def _load(path: Path):
    name = f"_syncopate_fusion_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _derived_workload(path: Path, corpus) -> "types.ModuleType":
    """A workload built from ``FUSE`` and ``make_case`` (see the module docstring)."""
    from syncopate.runtime.harness.workload import shard_bounds

    spec, index, dim = corpus.FUSE
    case = corpus.make_case(SEED)
    full = case["args"][index]
    param = corpus.FUSE_PARAM if hasattr(corpus, "FUSE_PARAM") else spec.split("tensor=")[1].split()[0].rstrip("}")
    module = types.ModuleType(f"derived_{path.stem}")
    module.KERNEL = getattr(corpus, case["kernel"])
    module.PLANS = [spec]
    module.COLLECTIVES = {param: "x"}

    def make_inputs(rank, world, seed):
        start, size = shard_bounds(full.shape[dim], world, rank)
        return {"x": full.narrow(dim, start, size).clone()}

    def launch(kernel, x):
        # on the device of the plan's tensor: the GPU matrix runs these workloads too
        args = [a.to(x.device, copy=True) if isinstance(a, torch.Tensor) else a for a in case["args"]]
        args[index] = x
        kernel[case["grid"]](*args, **case["kwargs"])
        return args[case["outputs"][0]]

    module.make_inputs, module.launch = make_inputs, launch
    return module


def _workload(path: Path):
    from syncopate.runtime.harness.workload import Workload

    corpus = _load(path)
    if hasattr(corpus, "PLANS"):
        return Workload(str(path), corpus)
    if hasattr(corpus, "FUSE"):
        return Workload(str(path), _derived_workload(path, corpus))
    return None


def test_every_corpus_file_states_its_fusion():
    for path in CORPUS_FILES:
        corpus = _load(path)
        ways = [n for n in ("PLANS", "FUSE", "NO_PLAN") if hasattr(corpus, n)]
        assert len(ways) == 1, f"{path.name}: state exactly one of PLANS, FUSE, NO_PLAN (found {ways})"
        if hasattr(corpus, "NO_PLAN"):
            assert corpus.NO_PLAN.strip(), f"{path.name}: NO_PLAN needs a reason"


FUSED = [p for p in CORPUS_FILES if any(f"\n{n} = " in p.read_text() for n in ("PLANS", "FUSE"))]


@pytest.mark.parametrize("world", WORLDS)
@pytest.mark.parametrize("path", FUSED, ids=lambda p: p.stem)
def test_fuses_and_matches(path: Path, world: int):
    from syncopate.runtime.harness.check import compile_workload, run_simulated
    from syncopate.runtime.sim.delivery import DELIVERY_ORDERS

    workload = _workload(path)
    program = compile_workload(workload, world)
    for order in DELIVERY_ORDERS if MATRIX else [o for o in ("late", "isolated") if o in DELIVERY_ORDERS]:
        results = run_simulated(workload, world, order, SEED, program)
        bad = [(r.rank, r.max_error) for r in results if not r.ok]
        assert not bad, f"{path.stem} W={world} delivery={order}: ranks differ from the reference: {bad}"
        if _consumes(workload):  # a reduce-scatter alone signals and never waits
            assert sum(r.polls for r in results) > 0, f"{path.stem}: the fused kernel never waited"


def _consumes(workload) -> bool:
    from syncopate.ir.contract import CONSUMED

    return any(spec.split("{")[0].strip() in CONSUMED for spec in workload.module.PLANS)

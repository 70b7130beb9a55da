"""lit configuration: FileCheck tests for every stage of syncopate.

Each folder under test/ holds the tests of one pass or stage; a test is a
.mlir or .py file with RUN lines. `%python` is the interpreter running lit, so
tests use the same environment; `overlap-opt` must be on PATH (it is after
`pip install`).
"""

import os
import sys

import lit.formats

config.name = "syncopate"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".py"]
config.test_source_root = os.path.dirname(__file__)
# Python modules that are inputs to other tests, not tests themselves.
config.excludes = ["lit.cfg.py", "unit", "e2e", "corpus", "mutation", "fuzz", "inputs", "conftest.py", "__pycache__"]
config.substitutions.append(("%python", sys.executable))
config.environment["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
for var in ("HOME", "TMPDIR", "PYTHONPATH", "TRITON_INTERPRET", "TRITON_CACHE_DIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

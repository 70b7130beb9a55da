"""Round trip on a real GPU: every corpus kernel, compiled by the installed
Triton (3.6 on the GPU image), against the same kernel after import -> print
-> parse -> emit. Skipped only when no CUDA device is present; run it in its
own process without TRITON_INTERPRET (`python -m pytest test/e2e`), because
the interpreter patches triton.language for the rest of a process; under a
plain `pytest` (unit tests first, interpreter selected) it re-runs itself in
a subprocess without it.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

# A plain `pytest` collects test/unit first, whose conftest selects the
# interpreter for the whole process: then the round trip runs again in a
# process of its own, with the compiler.
IN_INTERPRETER = os.environ.get("TRITON_INTERPRET") == "1"


@pytest.mark.gpu
@pytest.mark.skipif(not IN_INTERPRETER, reason="this process already uses the Triton compiler")
def test_roundtrip_on_gpu_in_a_compiler_process():
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__],
                          capture_output=True, text=True, env=env, timeout=1800)
    assert done.returncode == 0 and " passed" in done.stdout, done.stdout[-4000:] + done.stderr[-2000:]


sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit" / "corpus"))
import test_roundtrip as harness  # noqa: E402
from xdsl.parser import Parser  # noqa: E402

from syncopate.ir.context import make_context  # noqa: E402
from syncopate.ir.frontend.triton_import import import_file  # noqa: E402
from syncopate.lowering.triton_emitter import emit_module  # noqa: E402


def _on_gpu(case: dict) -> dict:
    return dict(case, args=[a.cuda() if isinstance(a, torch.Tensor) else a for a in case["args"]])


@pytest.mark.gpu
@pytest.mark.skipif(IN_INTERPRETER, reason="runs in a compiler process (test_roundtrip_on_gpu_in_a_compiler_process)")
@pytest.mark.parametrize("path", harness.CORPUS_FILES, ids=lambda p: p.stem)
def test_roundtrip_on_gpu(path: Path, tmp_path: Path):
    original = harness._load_corpus(path)
    case = _on_gpu(original.make_case(harness.SEED))
    text = str(import_file(path))
    emitted_path = tmp_path / f"emitted_{path.stem}.py"
    emitted_path.write_text(emit_module(Parser(make_context(), text).parse_module()))
    emitted = harness._load_module(emitted_path, f"_emitted_gpu_{path.stem}")
    expected = harness._launch(getattr(original, case["kernel"]), case)
    actual = harness._launch(getattr(emitted, case["kernel"]), case)
    torch.cuda.synchronize()
    # The round-trip property: the emitted kernel computes what the original does.
    harness._assert_outputs_close(actual, expected, case, "emitted kernel on GPU vs original")
    # And the original is right: on the GPU tl.dot on fp32 uses TF32, hence the looser bound.
    reference = [r.cuda() for r in original.reference(harness._pristine(case))]
    loose = dict(case, atol=max(case["atol"], 5e-2), rtol=max(case["rtol"], 5e-2))
    harness._assert_outputs_close(expected, reference, loose, "original kernel on GPU vs torch (TF32 tolerance)")

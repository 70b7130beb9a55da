"""The README's "Use from PyTorch" snippet works when pasted: it is cut out
of README.md and run as a two-rank CPU program (gloo, Triton interpreter),
as `TRITON_INTERPRET=1 torchrun --nproc-per-node=2 use_syncopate.py` would."""

import os
import re

from gloo_ranks import run_script

README = os.path.join(os.path.dirname(__file__), "..", "..", "..", "README.md")


def snippet() -> str:
    with open(README) as f:
        text = f.read()
    section = text.split("\n## Use from PyTorch\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    assert len(blocks) == 1, "the section holds exactly one python block"
    return blocks[0]


def test_snippet_runs_on_two_cpu_ranks(tmp_path):
    path = tmp_path / "use_syncopate.py"
    path.write_text(snippet())
    errors = run_script(str(path), env={"TRITON_INTERPRET": "1"})
    for rank, error in enumerate(errors):
        assert error is None, f"rank {rank}:\n{error}"


def test_snippet_covers_ops_compile_and_tp():
    text = snippet()
    for call in ("syncopate.ops.all_gather_matmul", "syncopate.ops.matmul_reduce_scatter", "syncopate.compile(",
                 "syncopate.empty(", "SyncopateColwiseParallel", "SyncopateRowwiseParallel"):
        assert call in text, call
